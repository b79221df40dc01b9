"""Bulk writes that run as jobs: item import, a component changed across recipes, and the
rebuild of balances. Each previews row by row like any write; its apply queues a job
that runs this same handler and checks nothing changed since the preview."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Required

from pydantic import (
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    with_config,
)
from typing_extensions import TypedDict  # pydantic reads TypedDicts from here before 3.12

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import bulk as revert_bulk
from shopfloor.domain.production import recipes as recipe_changes
from shopfloor.domain.stock import imports, rebuild
from shopfloor.kernel import keys
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Toolset, WriteRequest
from shopfloor.tools import floor
from shopfloor.tools.fields import (
    Gtin,
    Key,
    Kind,
    LeadDays,
    LotRule,
    Money,
    Name,
    NonNegative,
    Out,
    PartnerName,
    Quantity,
    ShelfLifeDays,
    SupplyDays,
    Uom,
)

tools = Toolset("bulk")

MAX_ROWS = 50_000
STOCK_PREFIX = "on_hand:"


@with_config(ConfigDict(extra="forbid", str_strip_whitespace=True))
class ItemRow(TypedDict, total=False):
    """One CSV row: every cell optional except sku; an empty cell leaves the field alone."""

    sku: Required[Key]
    name: Name
    kind: Kind
    uom: Uom
    purchase_price: Money
    sales_price: Money
    reorder_point: NonNegative
    reorder_quantity: NonNegative
    order_multiple: Quantity
    supply_period_days: SupplyDays
    lead_time_days: LeadDays
    batch_tracked: bool
    serial_tracked: bool
    lot_numbering: LotRule
    shelf_life_days: ShelfLifeDays
    gtin: Gtin
    default_supplier: PartnerName
    unit_cost: Money
    routing: Annotated[str, StringConstraints(max_length=5000)]


class _Cells(TypedDict):
    """One row as it is validated: its counted stock per location, then its item cells
    (so a bad count is the reason given first, as it always was)."""

    stock: dict[str, NonNegative]
    row: ItemRow


COLUMNS = tuple(ItemRow.__annotations__)
NOT_FIELDS = ("sku", "default_supplier", "unit_cost", "routing")
_ROWS = TypeAdapter(list[_Cells])
_ONE = TypeAdapter(_Cells)


def _header(names: Sequence[str] | None) -> list[str]:
    if not names:
        raise ValidationFailed("the CSV is empty: give a header row and one row per item",
                               field="csv")
    header = [_column((n or "").strip()) for n in names]
    for name in header:
        if name not in COLUMNS and not (name.startswith(STOCK_PREFIX) and
                                        len(name) > len(STOCK_PREFIX)):
            raise ValidationFailed(
                f"unknown column {name!r}; known: {', '.join(COLUMNS)}, on_hand:<LOCATION>",
                field="csv")
    if "sku" not in header:
        raise ValidationFailed("the CSV has no sku column", field="csv")
    if len(set(header)) != len(header):
        raise ValidationFailed("a column appears twice in the header", field="csv")
    return header


def _column(name: str) -> str:
    """Column names are case-blind; a location code after on_hand: keeps its case, in the
    form a typed key has (shopfloor.kernel.keys)."""
    if name.lower().startswith(STOCK_PREFIX):
        try:
            return STOCK_PREFIX + keys.normal(name[len(STOCK_PREFIX):].strip(), 64)
        except ValueError as exc:
            raise ValidationFailed(f"column {name!r}: the location code {exc}",
                                   field="csv") from None
    return name.lower()


@dataclass(frozen=True)
class _Record:
    line: int
    cells: dict[str, Any]  # a _Cells, before validation
    sku: str | None
    extra: bool  # more cells than the header has columns


def _records(text: str) -> Iterator[_Record]:
    """The CSV's non-blank records, under a checked header. What makes the file unreadable
    as a whole (header, row limit, CSV syntax) is refused here, as it is met; a bad cell
    only rejects its row."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    count = 0
    try:
        header = _header(next(reader, None))
        stock = [(i, c[len(STOCK_PREFIX):]) for i, c in enumerate(header)
                 if c.startswith(STOCK_PREFIX)]
        item = [(i, c) for i, c in enumerate(header) if not c.startswith(STOCK_PREFIX)]
        width, at_sku = len(header), header.index("sku")
        for cells in reader:
            given = [c.strip() for c in cells[:width]]
            if not any(given):
                continue
            count += 1
            if count > MAX_ROWS:
                raise ValidationFailed(f"more than {MAX_ROWS} rows: split the file",
                                       field="csv")
            given += [""] * (width - len(given))
            yield _Record(reader.line_num,
                          {"stock": {code: given[i] for i, code in stock if given[i]},
                           "row": {name: given[i] for i, name in item if given[i]}},
                          given[at_sku] or None, len(cells) > width)
    except csv.Error as exc:
        raise ValidationFailed(f"line {reader.line_num}: {exc}", field="csv") from None
    if count == 0:
        raise ValidationFailed("the CSV has a header but no rows", field="csv")


def _rejected(record: _Record, error: Any) -> imports.Rejected:
    """A row's first bad cell, named by its column."""
    path = [str(p) for p in error["loc"] if not isinstance(p, int)]  # "stock"|"row", column
    where = None if len(path) < 2 else \
        f"{STOCK_PREFIX}{path[1]}" if path[0] == "stock" else path[1]
    return imports.Rejected(record.line, record.sku,
                            f"{where}: {error['msg']}" if where else error["msg"], where)


def _parsed(record: _Record, cells: _Cells) -> imports.ImportRow:
    row = cells["row"]
    fields = {k: v for k, v in row.items() if k not in NOT_FIELDS}
    return imports.ImportRow(record.line, row["sku"], fields, row.get("default_supplier"),
                             dict(cells["stock"]), row.get("unit_cost"), row.get("routing"))


def _chunk(records: Sequence[_Record]) -> list[imports.ImportRow | imports.Rejected]:
    """A chunk of rows validated in one call (the cost of a large import is per call, not
    per cell); a chunk with a bad row is done again row by row, to reject just that one."""
    fine = [r for r in records if not r.extra]
    try:
        valid = iter(_ROWS.validate_python([r.cells for r in fine]))
    except ValidationError:
        return [_one(r) for r in records]
    return [imports.Rejected(r.line, r.sku, "more cells than columns") if r.extra
            else _parsed(r, next(valid)) for r in records]


def _one(record: _Record) -> imports.ImportRow | imports.Rejected:
    if record.extra:
        return imports.Rejected(record.line, record.sku, "more cells than columns")
    try:
        return _parsed(record, _ONE.validate_python(record.cells))
    except ValidationError as exc:
        return _rejected(record, exc.errors(include_url=False)[0])


def parse_csv(text: str) -> list[imports.ImportRow | imports.Rejected]:
    records = list(_records(text))
    return [row for start in range(0, len(records), imports.CHUNK)
            for row in _chunk(records[start:start + imports.CHUNK])]


class ImportItems(WriteRequest):
    csv: str = Field(min_length=1, max_length=5_000_000, pattern=r"^[^\x00]*$",
                     description="header: sku, then any of create_item's fields, unit_cost "
                                 "on_hand:<LOCATION> (counted opening stock), routing "
                                 "(seq:name:centre:setup:run;...)")
    skip_rejects: bool = Field(False, description="import the valid rows if some are rejected")

    def precheck(self, op: Op) -> None:
        """Before an apply without a preview queues: the file's shape and every row's
        reject that key reads can find, refused at once; the job decides again."""
        imports.check(op, floor.routed_rows(op, parse_csv(self.csv)),
                      skip_rejects=self.skip_rejects)


class RowOut(Out):
    line: int
    sku: str | None
    action: str
    detail: str
    field: str | None


class ImportReport(Out):
    created: int
    updated: int
    unchanged: int
    rejected: int
    rows: list[RowOut]


@tools.write_job("import_items", title="Import items", response=ImportReport, role=Role.admin,
                 description="Create or update items from CSV, with counted stock per "
                             "location. The preview shows each row; apply runs as a job.",
                 destructive=True,
                 undo=Undo.using(revert_bulk.item_fields),
                 subject="the item import")
def import_items(op: Op, req: ImportItems) -> Done[ImportReport]:
    rows = floor.routed_rows(op, parse_csv(req.csv))
    outcomes = imports.import_items(op, rows, skip_rejects=req.skip_rejects)
    floor.import_routings(op, rows, outcomes)
    tally = {a: sum(o.action == a for o in outcomes)
             for a in ("create", "update", "unchanged", "reject")}
    return Done(f"Import items: {tally['create']} new, {tally['update']} updated, "
                f"{tally['unchanged']} unchanged, {tally['reject']} rejected",
                ImportReport(created=tally["create"], updated=tally["update"],
                             unchanged=tally["unchanged"], rejected=tally["reject"],
                             rows=[RowOut(**o.as_dict()) for o in outcomes]))


class BatchUpdateRecipes(WriteRequest):
    component: Key = Field(description="the component to change in every recipe using it")
    replace_with: Key | None = Field(None, description="SKU that takes its place")
    scale: Quantity | None = Field(None, description="multiply its quantity by this")
    products: list[Key] | None = Field(None, max_length=5000,
                                       description="only these products' recipes")
    skip_rejects: bool = Field(False, description="change the others if some are refused")

    def precheck(self, op: Op) -> None:
        """Before an apply without a preview queues: every refusal, decided on a read of
        the recipes using the component, nothing changed; the job decides again."""
        self.require_a_change()
        recipe_changes.check(op, self.component, self.replace_with, self.scale, self.products,
                             skip_rejects=self.skip_rejects)

    def require_a_change(self) -> None:
        if self.replace_with is None and self.scale is None:
            raise ValidationFailed("give replace_with, scale, or both", field="replace_with")


class RecipeRowOut(Out):
    product: str
    action: str
    detail: str


class RecipeReport(Out):
    updated: int
    rejected: int
    recipes: list[RecipeRowOut]


@tools.write_job("batch_update_recipes", title="Update recipes in bulk", role=Role.admin,
                 response=RecipeReport,
                 description="Replace a component with another, or rescale it, in every "
                             "recipe using it. The preview lists each recipe; apply is a job.",
                 destructive=True,
                 undo=Undo.using(revert_bulk.recipes),
                 subject="the batch recipe update")
def batch_update_recipes(op: Op, req: BatchUpdateRecipes) -> Done[RecipeReport]:
    req.require_a_change()
    rows = recipe_changes.batch_update(op, req.component, req.replace_with, req.scale,
                                       req.products, skip_rejects=req.skip_rejects)
    updated = sum(r["action"] == "update" for r in rows)
    what = f"-> {req.replace_with}" if req.replace_with else ""
    what += f" x {fmt(req.scale)}" if req.scale is not None else ""
    return Done(f"Change {req.component} {what.strip()} in {updated} recipes"
                f"{f', {len(rows) - updated} refused' if updated < len(rows) else ''}",
                RecipeReport(updated=updated, rejected=len(rows) - updated,
                             recipes=[RecipeRowOut(**r) for r in rows]))


class RebuildBalances(WriteRequest):
    pass


class Correction(Out):
    sku: str
    location: str
    on_hand: list[str]
    committed: list[str]


class RebuildReport(Out):
    corrections: list[Correction]


@tools.write_job("rebuild_balances", title="Rebuild balances", response=RebuildReport,
                 role=Role.admin,
                 description="Recompute every balance from the ledger and open orders; the "
                             "preview lists each correction; apply is a job.",
                 destructive=True,
                 undo=Undo.refused("it set each balance to what its ledger rows add up "
                                   "to, so the figures it replaced disagreed with the "
                                   "ledger; if a figure is still wrong, post a "
                                   "create_stock_adjustment"),
                 subject="the balance rebuild")
def rebuild_balances(op: Op, req: RebuildBalances) -> Done[RebuildReport]:
    fixes: list[dict[str, Any]] = rebuild.rebuild_balances(op)
    return Done(f"Rebuild balances: {len(fixes)} to correct",
                RebuildReport(corrections=[Correction(**f) for f in fixes]))
