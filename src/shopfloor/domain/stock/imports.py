"""Bulk item import: creates, updates and opening-stock counts, decided row by row.

The same pass serves the preview (every row's outcome, rolled back) and the job that
applies it, so what the user confirmed is what runs. Rejected rows block the import
unless the caller asks to skip them: a half-imported catalogue nobody chose is worse
than none.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from sqlalchemy import String, any_, bindparam, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lookalikes, lots, movements
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.items import ORDERED_IN, material_with_recipe
from shopfloor.domain.stock.lot_ledger import LOTS
from shopfloor.kernel import gs1
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import Item, Location, RecipeLine, Supplier

CHUNK = 500


@dataclass(frozen=True)
class ImportRow:
    line: int
    sku: str
    fields: dict[str, Any]
    supplier: str | None = None
    stock: dict[str, Decimal] = field(default_factory=dict)
    unit_cost: Decimal | None = None
    routing: str | None = None  # carried for the shop floor, which sits above stock



@dataclass(frozen=True)
class Rejected:
    line: int
    sku: str | None
    reason: str
    field: str | None = None


@dataclass
class Outcome:
    line: int
    sku: str | None
    action: str  # create | update | unchanged | reject
    detail: str = ""
    field: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "sku": self.sku, "action": self.action,
                "detail": self.detail, "field": self.field}


def _by_key(op: Op, column: Any, keys: Iterable[str], *, lock: bool = False) -> dict[str, Any]:
    wanted = sorted(set(keys))
    found: dict[str, Any] = {}
    for start in range(0, len(wanted), CHUNK):
        stmt = select(column.class_).where(column.in_(wanted[start:start + CHUNK]))
        for row in op.session.scalars(op.lock(stmt) if lock else stmt).unique():
            found[getattr(row, column.key)] = row
    return found


@dataclass(frozen=True)
class Known:
    """What the row checks need of an existing item, so they can run on a key read."""

    id: int
    archived: bool
    kind: str
    batch_tracked: bool
    serial_tracked: bool
    uom: str = "pcs"
    precision: int | None = None

    def stops_tracking(self, fields: Mapping[str, Any]) -> bool:
        """Would these fields leave a tracked item tracked by neither lot nor serial?"""
        return (self.batch_tracked or self.serial_tracked) and not (
            fields.get("batch_tracked", self.batch_tracked)
            or fields.get("serial_tracked", self.serial_tracked))

    def becomes_material(self, fields: Mapping[str, Any]) -> bool:
        return fields.get("kind") == "material" and self.kind != "material"


def _among(op: Op, column: Any, keys: Iterable[str]) -> Iterator[Any]:
    """`column` in `keys`: on PostgreSQL one query with the keys as one array (a 30k-row
    import's keys cost one round trip, not sixty), on SQLite in chunks of its limit."""
    wanted = sorted(set(keys))
    if op.dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import ARRAY

        yield column == any_(bindparam("keys", wanted, type_=ARRAY(String)))
        return
    for start in range(0, len(wanted), CHUNK):
        yield column.in_(wanted[start:start + CHUNK])


def _known(op: Op, skus: Iterable[str]) -> dict[str, Known]:
    found: dict[str, Known] = {}
    for where in _among(op, Item.sku, skus):
        for sku, id_, archived, kind, batch, serial, uom, places in op.session.execute(
                select(Item.sku, Item.id, Item.archived, Item.kind, Item.batch_tracked,
                       Item.serial_tracked, Item.uom, Item.precision).where(where)):
            found[sku] = Known(id_, archived, kind, batch, serial, uom, places)
    return found


def _keys(op: Op, column: Any, keys: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for where in _among(op, column, keys):
        found.update(op.session.scalars(select(column).where(where)))
    return found


def _ids(op: Op, column: Any, ids: Sequence[int], *where: Any) -> set[int]:
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        found.update(op.session.scalars(select(column).distinct().where(
            column.in_(ids[start:start + CHUNK]), *where)))
    return found


def _blocked(op: Op, rows: Sequence[ImportRow], known: dict[str, Known]) -> dict[int, str]:
    """Existing items a row may not change as asked, with the field that says why: a
    product with a recipe made a material, tracking turned off while lots hold stock (the
    same rules as changing one item). One query each, for the few rows that try."""
    existing = [(known[r.sku], r.fields) for r in rows if r.sku in known]
    to_material = sorted({k.id for k, fields in existing if k.becomes_material(fields)})
    untracked = sorted({k.id for k, fields in existing if k.stops_tracking(fields)})
    blocked = {i: "kind" for i in _ids(op, RecipeLine.product_id, to_material)}
    for i in _ids(op, LOTS.c.item_id, untracked, LOTS.c.on_hand != 0):
        blocked.setdefault(i, "batch_tracked")
    return blocked


def _gtins(op: Op, rows: Sequence[ImportRow]) -> dict[str, str]:
    """The items already holding the rows' GTINs: 14-digit form -> SKU (one query)."""
    forms = {f for r in rows if r.fields.get("gtin") for f in gs1.gtin_forms(r.fields["gtin"])}
    found: dict[str, str] = {}
    if not forms:
        return found
    for where in _among(op, Item.gtin, forms):
        for sku, gtin in op.session.execute(select(Item.sku, Item.gtin).where(where)):
            found[gs1.gtin14(gtin or "")] = sku
    return found


def _gtin_taken(row: ImportRow, gtins: dict[str, str]) -> Rejected | None:
    """A GTIN names one item: taken by another item, or by an earlier row, is refused."""
    gtin = row.fields.get("gtin")
    if gtin is None:
        return None
    owner = gtins.setdefault(gs1.gtin14(gtin), row.sku)
    if owner == row.sku:
        return None
    return Rejected(row.line, row.sku, f"GTIN {gtin} is already item {owner}'s", "gtin")


def _rule_problem(row: ImportRow) -> Rejected | None:
    try:
        lots.check_rule(row.fields.get("lot_numbering"))
    except ValidationFailed as exc:
        return Rejected(row.line, row.sku, exc.message, "lot_numbering")
    return None


def _check(row: ImportRow, first_line: dict[str, int], items: Mapping[str, Known],
           suppliers: Container[str], locations: Container[str],
           blocked: Mapping[int, str], gtins: dict[str, str]) -> Rejected | None:
    if first_line.setdefault(row.sku, row.line) != row.line:
        return Rejected(row.line, row.sku, f"{row.sku} is also on line {first_line[row.sku]}",
                        "sku")
    existing = items.get(row.sku)
    if existing is not None and existing.archived:
        return Rejected(row.line, row.sku, f"{row.sku} is a deleted item", "sku")
    reason = blocked.get(existing.id) if existing is not None else None
    if reason == "kind":
        return Rejected(row.line, row.sku, material_with_recipe(row.sku), "kind")
    if reason is not None:
        return Rejected(row.line, row.sku, lots.still_in_lots(row.sku), reason)
    problem = _rule_problem(row)
    if problem is not None:
        return problem
    if existing is None and "name" not in row.fields:
        return Rejected(row.line, row.sku, "a new item needs a name", "name")
    if row.supplier is not None and row.supplier not in suppliers:
        return Rejected(row.line, row.sku, f"no supplier {row.supplier!r}", "default_supplier")
    for code in row.stock:
        if code not in locations:
            return Rejected(row.line, row.sku, f"no location {code!r}", f"on_hand:{code}")
    return _finer(row, existing) or _gtin_taken(row, gtins)


def _finer(row: ImportRow, existing: Known | None) -> Rejected | None:
    """A count, reorder point, reorder quantity or pack finer than the item is counted (its
    unit and precision as the row leaves them) is the row's reject, naming its column, as
    a typed one's refusal names its field."""
    unit = SimpleNamespace(sku=row.sku, uom=row.fields.get("uom", existing.uom if existing
                                                           else "pcs"),
                           precision=row.fields.get("precision", existing.precision
                                                    if existing else None))
    given = [(f"on_hand:{code}", counted) for code, counted in row.stock.items()]
    given += [(name, row.fields[name]) for name in ORDERED_IN if row.fields.get(name)]
    for column, quantity in given:
        try:
            exact(quantity, unit, column)
        except ValidationFailed as exc:
            return Rejected(row.line, row.sku, exc.message, column)
    return None


def _update(op: Op, item: Item, row: ImportRow, supplier: Supplier | None) -> list[str]:
    changed = []
    for name, value in row.fields.items():
        before = getattr(item, name)
        if before != value:
            op.change("item", item.sku, name, before, value)
            setattr(item, name, value)
            changed.append(f"{name} {_text(before)} -> {_text(value)}")
    if supplier is not None and item.default_supplier_id != supplier.id:
        before_name = item.default_supplier.name if item.default_supplier else None
        op.change("item", item.sku, "default_supplier", before_name, supplier.name)
        item.default_supplier = supplier
        changed.append(f"default_supplier {before_name} -> {supplier.name}")
    return changed


def _text(value: Any) -> str:
    return fmt(value) if isinstance(value, Decimal) else str(value)


def _reject(row: ImportRow | Rejected, first_line: dict[str, int], known: Mapping[str, Known],
            suppliers: Container[str], locations: Container[str],
            blocked: Mapping[int, str], gtins: dict[str, str]) -> Outcome | None:
    problem = row if isinstance(row, Rejected) else _check(
        row, first_line, known, suppliers, locations, blocked, gtins)
    if problem is None:
        return None
    return Outcome(problem.line, problem.sku, "reject", problem.reason, problem.field)


def _refusal(rejected: Sequence[Outcome], total: int,
             rows: Sequence[Outcome] | None = None) -> ValidationFailed:
    """One refusal for an import with rejects, listing each, and with every row's outcome
    when they were all decided: what the preview shows, for a job's failed result."""
    first = rejected[0]
    details: dict[str, Any] = {"rejected": [o.as_dict() for o in rejected]}
    if rows is not None:
        details["rows"] = [o.as_dict() for o in rows]
    return ValidationFailed(
        f"{len(rejected)} of {total} rows rejected (line {first.line}: {first.detail}); "
        "fix them, or import the rest with skip_rejects=true", field="csv", details=details)


def check(op: Op, rows: Sequence[ImportRow | Rejected], *, skip_rejects: bool) -> None:
    """The import's rejects found by key reads alone (no item loaded, nothing written), so
    an apply without a preview refuses them before it queues instead of after a dry run
    as long as the job. The job decides every row again, as the preview does."""
    if skip_rejects:
        return
    valid = [r for r in rows if isinstance(r, ImportRow)]
    known = _known(op, (r.sku for r in valid))
    suppliers = _keys(op, Supplier.name, (r.supplier for r in valid if r.supplier))
    locations = _keys(op, Location.code, (c for r in valid for c in r.stock))
    blocked = _blocked(op, valid, known)
    gtins = _gtins(op, valid)
    first_line: dict[str, int] = {}
    rejected = [o for o in (_reject(r, first_line, known, suppliers, locations, blocked, gtins)
                            for r in rows) if o is not None]
    if rejected:
        raise _refusal(rejected, len(rows))


def import_items(op: Op, rows: Sequence[ImportRow | Rejected], *,
                 skip_rejects: bool) -> list[Outcome]:
    valid = [r for r in rows if isinstance(r, ImportRow)]
    items = _by_key(op, Item.sku, (r.sku for r in valid), lock=True)
    suppliers = _by_key(op, Supplier.name, (r.supplier for r in valid if r.supplier))
    locations = _by_key(op, Location.code, (c for r in valid for c in r.stock))
    known = {sku: Known(i.id, i.archived, i.kind, i.batch_tracked, i.serial_tracked)
             for sku, i in items.items()}
    blocked = _blocked(op, valid, known)
    gtins = _gtins(op, valid)
    outcomes: list[Outcome] = []
    first_line: dict[str, int] = {}
    counts: list[tuple[ImportRow, Outcome]] = []
    created: list[tuple[int, str]] = []
    for n, row in enumerate(rows):
        if n % CHUNK == 0:
            op.progress(0.8 * n / len(rows), f"row {n + 1} of {len(rows)}")
        rejected = _reject(row, first_line, known, suppliers, locations, blocked, gtins)
        if rejected is not None:
            outcomes.append(rejected)
            continue
        assert isinstance(row, ImportRow)
        supplier = suppliers.get(row.supplier) if row.supplier else None
        item = items.get(row.sku)
        if item is None:
            fields = {"kind": "material", **row.fields}
            item = Item(sku=row.sku, **fields, default_supplier=supplier)
            op.session.add(item)
            items[row.sku] = item
            op.change("item", row.sku, "created", None, row.fields["name"])
            outcome = Outcome(row.line, row.sku, "create",
                              f"new {row.fields.get('kind', 'material')} {row.fields['name']}")
            created.append((row.line, row.sku))
        else:
            changed = _update(op, item, row, supplier)
            outcome = Outcome(row.line, row.sku, "update" if changed else "unchanged",
                              "; ".join(changed))
        outcomes.append(outcome)
        if row.stock:
            counts.append((row, outcome))
    op.session.flush()
    lookalikes.new_items(op, created)
    op.progress(0.85, "counting opening stock")
    _count_stock(op, counts, items, locations)
    rejects = [o for o in outcomes if o.action == "reject"]
    if rejects and not skip_rejects:  # refused once all is decided: every row as previewed
        op.refuse(_refusal(rejects, len(rows), outcomes))
    return outcomes


def _count_stock(op: Op, counts: Sequence[tuple[ImportRow, Outcome]], items: dict[str, Item],
                 locations: dict[str, Location]) -> None:
    """Opening stock is a count: one adjustment per location, only where it differs."""
    for code, location in locations.items():
        stock.prefetch(op, [items[r.sku] for r, _ in counts if code in r.stock], location)
    per_location: dict[str, list[movements.AdjustLine]] = {}
    with op.session.no_autoflush:  # one flush at the end, not one per row as the session grows
        for row, outcome in counts:
            item = items[row.sku]
            for code, counted in row.stock.items():
                on_hand = stock.balance(op, item, locations[code]).on_hand
                if on_hand == counted:
                    continue
                per_location.setdefault(code, []).append(movements.AdjustLine(
                    row.sku, counted_quantity=counted, unit_cost=row.unit_cost))
                note = f"on hand at {code} {fmt(on_hand)} -> {fmt(counted)}"
                outcome.detail = f"{outcome.detail}; {note}" if outcome.detail else note
                if outcome.action == "unchanged":
                    outcome.action = "update"
        for code, lines in sorted(per_location.items()):
            movements.create_adjustment(op, code, "item import (opening stock)", lines,
                                        known=items)
    op.session.flush()
