"""Items, recipes, locations and partners: the master data every document points at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, inspect, or_, select
from sqlalchemy.orm.attributes import flag_modified

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import lookalikes, lots, usable, yields
from shopfloor.domain.stock.counted import exact, precision
from shopfloor.domain.stock.yields import Yield
from shopfloor.kernel import gs1, units
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import OPEN_MO, OPEN_PO, OPEN_SO
from shopfloor.store.tables import (
    Balance,
    Customer,
    Item,
    Location,
    ManufacturingOrder,
    PurchaseOrder,
    PurchaseOrderLine,
    RecipeLine,
    SalesOrder,
    SalesOrderLine,
    Supplier,
)

ITEM_FIELDS = ("name", "kind", "uom", "purchase_price", "sales_price", "reorder_point",
               "reorder_quantity", "lead_time_days", "batch_tracked", "serial_tracked",
               "lot_numbering", "shelf_life_days", "order_multiple", "supply_period_days", "gtin",
               "weight", "precision")


def _unique(op: Op, model: type[Any], column: Any, value: str, fld: str, what: str) -> None:
    if op.session.execute(select(model.id).where(column == value)).first() is not None:
        raise Conflict(f"{what} {value!r} already exists", field=fld)


def create_item(op: Op, sku: str, fields: dict[str, Any], default_supplier: str | None) -> Item:
    lots.check_rule(fields.get("lot_numbering"))
    existing = op.session.scalars(select(Item).where(Item.sku == sku)).one_or_none()
    if existing is not None:
        raise Conflict(f"item {sku!r} already exists" + (" (deleted)" if existing.archived else ""),
                       field="sku")
    lookalikes.new_key(op, Item.sku, Item.sku_skeleton, sku, fld="sku", what="item")
    gtin_free(op, fields.get("gtin"), sku)
    item = Item(sku=sku, **fields)
    if default_supplier is not None:
        item.default_supplier = lookup.supplier(op, default_supplier, fld="default_supplier")
    op.session.add(item)
    op.session.flush()
    _multiples_fit(item)
    op.change("item", sku, "created", None, fields.get("name"))
    return item


def modify_item(op: Op, sku: str, fields: dict[str, Any], default_supplier: str | None,
                clear_supplier: bool) -> Item:
    item = lookup.item(op, sku, lock=True)
    if fields.get("kind") == "material" and item.kind != "material" and item.recipe_lines:
        raise ValidationFailed(material_with_recipe(sku), field="kind")
    lots.check_rule(fields.get("lot_numbering"))
    lots.may_stop_tracking(op, item, fields)
    if fields.get("gtin") not in (None, item.gtin):
        gtin_free(op, fields["gtin"], sku)
    _stock_fits(op, item, units.places(fields.get("precision", item.precision),
                                       fields.get("uom", item.uom)),
                "precision" if "precision" in fields else "uom")
    for name, value in fields.items():
        before = getattr(item, name)
        if before != value:
            op.change("item", sku, name, before, value)
            setattr(item, name, value)
    _multiples_fit(item)
    if default_supplier is not None or clear_supplier:
        before_name = item.default_supplier.name if item.default_supplier else None
        new = lookup.supplier(op, default_supplier, fld="default_supplier") if default_supplier \
            else None
        item.default_supplier = new
        op.change("item", sku, "default_supplier", before_name, new.name if new else None)
    if not op.changes:
        op.warn("no_change", f"{sku} already has these values")
    return item


ORDERED_IN = ("reorder_point", "reorder_quantity", "order_multiple")


def _multiples_fit(item: Item) -> None:
    """What the item is bought or made in (its pack, its reorder quantity) and the stock it
    is reordered at are quantities of its unit: MRP orders them, an order of 2.5 pcs would
    be refused, and 2.5 pcs on hand is a level no count reaches."""
    for name in ORDERED_IN:
        value = getattr(item, name)
        if value:
            exact(value, item, name)


def _stock_fits(op: Op, item: Item, places: int, fld: str) -> None:
    """A coarser precision is refused while stock is counted finer than it: its figures
    would no longer be quantities of the unit."""
    if places >= precision(item):
        return
    finer = [q for q in op.session.scalars(select(Balance.on_hand).where(
        Balance.item_id == item.id)) if not units.fits(q, places)]
    if finer:
        raise ValidationFailed(f"{item.sku} has {fmt(finer[0])} on hand somewhere, finer than "
                               f"{units.said_precision(places)}: adjust it first", field=fld)


def gtin_free(op: Op, gtin: str | None, sku: str) -> None:
    """A GTIN names one trade item: a scan of it must find one item, so a second item
    taking it (in any of its lengths) is refused."""
    if gtin is None:
        return
    other = op.session.scalar(select(Item.sku).where(Item.gtin.in_(gs1.gtin_forms(gtin)),
                                                     Item.sku != sku).limit(1))
    if other is not None:
        raise Conflict(f"GTIN {gtin} is already item {other}'s", field="gtin")


def material_with_recipe(sku: str) -> str:
    """Why an item with a recipe cannot become a material: a material is bought, so its
    recipe would be dead data that planning and manufacturing orders still follow."""
    return (f"{sku} has a recipe and a material cannot: remove the recipe first "
            "(a recipe with no components), then make it a material")


def delete_item(op: Op, sku: str) -> Item:
    """Archive rather than erase: the ledger and old documents keep pointing at it."""
    item = lookup.item(op, sku, lock=True)
    on_hand = op.session.scalar(
        select(func.coalesce(func.sum(Balance.on_hand), 0)).where(Balance.item_id == item.id)
    ) or ZERO
    if on_hand != 0:
        raise Conflict(f"{sku} still has {fmt(on_hand)} on hand; adjust it to zero first",
                       field="sku")
    open_refs = _open_documents(op, item)
    if open_refs:
        raise Conflict(f"{sku} is on open documents: {', '.join(open_refs[:5])}", field="sku",
                       details={"documents": open_refs})
    used_in = op.session.scalars(
        select(Item.sku).join(RecipeLine, RecipeLine.product_id == Item.id)
        .where(RecipeLine.component_id == item.id, Item.archived.is_(False))
    ).all()
    if used_in:
        raise Conflict(f"{sku} is a component of {', '.join(used_in[:5])}", field="sku",
                       details={"used_in": list(used_in)})
    item.archived = True
    op.change("item", sku, "deleted", "no", "yes")
    return item


def _open_documents(op: Op, item: Item) -> list[str]:
    s = op.session
    refs = list(s.scalars(select(PurchaseOrder.number).join(PurchaseOrderLine)
                          .where(PurchaseOrderLine.item_id == item.id,
                                 PurchaseOrder.status.in_(OPEN_PO))).unique())
    refs += list(s.scalars(select(SalesOrder.number).join(SalesOrderLine)
                           .where(SalesOrderLine.item_id == item.id,
                                  SalesOrder.status.in_(OPEN_SO))).unique())
    refs += list(s.scalars(select(ManufacturingOrder.number)
                           .where(ManufacturingOrder.item_id == item.id,
                                  ManufacturingOrder.status.in_(OPEN_MO))))
    return refs


@dataclass(frozen=True)
class ComponentSpec:
    sku: str
    quantity: Decimal
    yields: Yield | None = None  # None: the line's yield as it is (plain for a new line)


def update_recipe(op: Op, sku: str, components: Sequence[ComponentSpec]) -> Item:
    """Replace the recipe; refuse a component that (directly or not) contains the product."""
    product = lookup.item(op, sku, lock=True)
    if product.kind == "material" and components:  # emptying one is how a material sheds it
        raise ValidationFailed(f"{sku} is a material; only products and intermediates have "
                               "recipes", field="sku")
    seen: set[str] = set()
    rows: list[tuple[Item, Decimal, Yield | None]] = []
    for i, c in enumerate(components):
        fld = f"components[{i}].sku"
        if c.sku in seen:
            raise ValidationFailed(f"{c.sku} is listed twice", field=fld)
        seen.add(c.sku)
        comp = lookup.item(op, c.sku, fld=fld)
        if comp.id == product.id or product.id in all_components(op, comp.id):
            raise ValidationFailed(f"{c.sku} contains {sku}: a recipe cannot include itself",
                                   field=fld)
        _check_yield(c.yields, i, comp)
        rows.append((comp, c.quantity, c.yields))
    before = {line.component.sku: line.quantity for line in product.recipe_lines}
    kept = {line.component.sku: yields.of(line) for line in product.recipe_lines}
    product.recipe_lines.clear()
    op.session.flush()
    for pos, (comp, qty, y) in enumerate(rows):
        was = kept.get(comp.sku, yields.PLAIN)
        y = was if y is None else y
        product.recipe_lines.append(RecipeLine(
            component_id=comp.id, quantity=qty, position=pos, component=comp,
            attrition_percent=y.attrition_percent, setup_quantity=y.setup_quantity,
            rounding_multiple=y.rounding_multiple))
        op.change("recipe", sku, comp.sku, before.pop(comp.sku, None), qty)
        if y != was:
            op.change("recipe_yield", sku, comp.sku, yields.said(was), yields.said(y))
    for gone, qty in before.items():
        op.change("recipe", sku, gone, qty, None)
    touch(product)
    op.session.flush()
    return product


def _check_yield(y: Yield | None, i: int, comp: Item) -> None:
    """A set-up quantity and a rounding multiple are quantities of the component as it is
    counted (a reel of 50 pcs, not of 2.5); a quantity per unit of the product may be finer
    (two products share one piece)."""
    if y is None:
        return
    if not 0 <= y.attrition_percent < 100:
        raise ValidationFailed(
            "attrition is the share of the component lost on the way, a percentage from 0 "
            f"to below 100; not {fmt(y.attrition_percent)}",
            field=f"components[{i}].attrition_percent")
    if y.setup_quantity < 0:
        raise ValidationFailed("a set-up quantity cannot be negative",
                               field=f"components[{i}].setup_quantity")
    exact(y.setup_quantity, comp, f"components[{i}].setup_quantity")
    if y.rounding_multiple is not None and y.rounding_multiple <= 0:
        raise ValidationFailed("a rounding multiple must be above zero",
                               field=f"components[{i}].rounding_multiple")
    if y.rounding_multiple is not None:
        exact(y.rounding_multiple, comp, f"components[{i}].rounding_multiple")


def touch(row: Any) -> None:
    """Make the ORM write (and so re-version) a row whose children changed."""
    mapper = inspect(row).mapper
    plain = next(a.key for a in mapper.column_attrs
                 if not a.columns[0].primary_key and a.key != "version")
    flag_modified(row, plain)


def all_components(op: Op, item_id: int) -> set[int]:
    found: set[int] = set()
    frontier = {item_id}
    while frontier:
        rows = op.session.execute(
            select(RecipeLine.component_id).where(RecipeLine.product_id.in_(frontier))
        ).scalars().all()
        frontier = set(rows) - found
        found |= frontier
    return found


def create_location(op: Op, code: str, name: str, allow_negative: bool) -> Location:
    _unique(op, Location, Location.code, code, "code", "location")
    lookalikes.new_key(op, Location.code, Location.code_skeleton, code, fld="code",
                       what="location")
    loc = Location(code=code, name=name, allow_negative=allow_negative)
    op.session.add(loc)
    op.session.flush()
    op.change("location", code, "created", None, name)
    return loc


def create_partner(op: Op, model: type[Supplier] | type[Customer], name: str,
                   email: str | None, phone: str | None,
                   currency: str | None = None) -> Supplier | Customer:
    what = "supplier" if model is Supplier else "customer"
    _unique(op, model, model.name, name, "name", what)
    lookalikes.new_key(op, model.name, model.name_skeleton, name, fld="name", what=what)
    row = model(name=name, email=email, phone=phone, currency=currency)
    op.session.add(row)
    op.session.flush()
    op.change(what, name, "created", None, name)
    if currency:
        op.change(what, name, "currency", None, currency)
    return row


def search_items(op: Op, query: str | None, kind: str | None, limit: int,
                 after_sku: str | None, include_archived: bool = False,
                 skus: Sequence[str] | None = None) -> list[Item]:
    """`skus`: exactly those items, deleted ones too (a document may name one): what a
    screen showing a document's lines needs, in one query."""
    stmt = select(Item).order_by(Item.sku).limit(limit)
    if skus is not None:
        stmt = stmt.where(Item.sku.in_(sorted(set(skus))))
        include_archived = True
    if query:
        like = f"%{query.lower()}%"
        stmt = stmt.where(or_(func.lower(Item.sku).like(like), func.lower(Item.name).like(like)))
    if kind:
        stmt = stmt.where(Item.kind == kind)
    if after_sku:
        stmt = stmt.where(Item.sku > after_sku)
    if not include_archived:
        stmt = stmt.where(Item.archived.is_(False))
    return list(op.session.scalars(stmt).unique())


def totals(op: Op, item_ids: Sequence[int]) -> dict[int, tuple[Decimal, Decimal]]:
    """On hand and available per item, over all locations: available leaves out what is
    committed and what sits in held or expired lots. One query per table."""
    if not item_ids:
        return {}
    rows = op.session.execute(
        select(Balance.item_id, func.sum(Balance.on_hand), func.sum(Balance.committed))
        .where(Balance.item_id.in_(item_ids)).group_by(Balance.item_id)
    ).all()
    held_back = usable.blocked(op.session.connection(), op.now.date(), item_ids=item_ids)
    out = {i: (ZERO, ZERO) for i in item_ids}
    for item_id, on_hand, committed in rows:
        out[item_id] = (on_hand, on_hand - committed
                        - held_back.get(item_id, usable.NONE).total)
    return out
