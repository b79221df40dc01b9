"""Supplier items: what one supplier sells one item as.

An item has as many suppliers as are set, one entry per SKU-and-supplier pair (setting
it again replaces that pair's entry, the others stay). Quantities (minimum, multiple,
price break thresholds) are in the supplier's purchase unit, prices per purchase unit in
the supplier's currency; `units_per_purchase_unit` converts to the item's stock unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.domain.buying.choice import Offer, price_at
from shopfloor.domain.stock.counted import precision
from shopfloor.kernel import units
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.tables import Item, Supplier, SupplierItem


@dataclass(frozen=True)
class Terms:
    supplier_sku: str | None
    purchase_unit: str
    units_per_purchase_unit: Decimal
    minimum_order: Decimal
    order_multiple: Decimal | None
    lead_time_days: int
    price_breaks: Sequence[tuple[Decimal, Decimal]]  # (min_quantity, unit_price)
    preferred: bool


def _check(t: Terms) -> None:
    if t.units_per_purchase_unit <= 0:
        raise ValidationFailed("a pack holds more than nothing", field="units_per_purchase_unit")
    if t.minimum_order < 0:
        raise ValidationFailed("a minimum cannot be negative", field="minimum_order")
    if t.order_multiple is not None and t.order_multiple <= 0:
        raise ValidationFailed("a multiple must be above zero", field="order_multiple")
    if not 0 <= t.lead_time_days <= 3650:
        raise ValidationFailed("a lead time is 0 to 3650 days", field="lead_time_days")
    if not 0 < len(t.price_breaks) <= 50:
        raise ValidationFailed("give 1 to 50 prices", field="price_breaks")
    last: Decimal | None = None
    dearest: Decimal | None = None
    for i, (least, price) in enumerate(t.price_breaks):
        if least < 0:
            raise ValidationFailed("a break's quantity cannot be negative",
                                   field=f"price_breaks[{i}].min_quantity")
        if price < 0:
            raise ValidationFailed("a price cannot be negative",
                                   field=f"price_breaks[{i}].unit_price")
        if last is not None and least == last:
            raise ValidationFailed(f"two breaks from {fmt(least)}",
                                   field=f"price_breaks[{i}].min_quantity")
        if last is not None and least < last:
            raise ValidationFailed(f"breaks go up: {fmt(least)} comes after {fmt(last)}",
                                   field=f"price_breaks[{i}].min_quantity")
        if dearest is not None and price > dearest:
            raise ValidationFailed(
                f"the break from {fmt(least)} costs {fmt(price)} a unit, more than the "
                f"{fmt(dearest)} of a smaller quantity: a price break never raises the price",
                field=f"price_breaks[{i}].unit_price")
        last, dearest = least, price


def _counted(t: Terms, item: Item) -> None:
    """A minimum and a multiple are quantities of the purchase unit, held to how finely it
    is counted: the item's own precision when it is bought in its own unit (a minimum of
    2.5 pcs could never be ordered), else the purchase unit's."""
    places = precision(item) if t.purchase_unit == item.uom else \
        units.default_precision(t.purchase_unit)
    for name, value in (("minimum_order", t.minimum_order), ("order_multiple", t.order_multiple)):
        if value and not units.fits(value, places):
            raise ValidationFailed(
                f"{item.sku} is bought from this supplier in {t.purchase_unit}, counted to "
                f"{units.said_precision(places)}: {fmt(value)} {t.purchase_unit} is finer "
                "than that", field=name, details={"precision": places})


def _text(t: Terms, currency: str) -> str:
    breaks = ", ".join(f"{fmt(p)} from {fmt(q)}" for q, p in t.price_breaks)
    extra = [f"min {fmt(t.minimum_order)}"] if t.minimum_order else []
    if t.order_multiple:
        extra.append(f"x{fmt(t.order_multiple)}")
    if t.preferred:
        extra.append("preferred")
    return (f"{t.purchase_unit} of {fmt(t.units_per_purchase_unit)}, {breaks} {currency}, "
            f"{t.lead_time_days} days" + (f" ({', '.join(extra)})" if extra else ""))


def _row(op: Op, item: Item, supplier: Supplier, *, lock: bool = False
         ) -> SupplierItem | None:
    stmt = select(SupplierItem).where(SupplierItem.item_id == item.id,
                                      SupplierItem.supplier_id == supplier.id)
    return op.session.scalars(op.lock(stmt) if lock else stmt).unique().one_or_none()


def terms_of(row: SupplierItem) -> Terms:
    return Terms(row.supplier_sku, row.purchase_unit, row.units_per_purchase_unit,
                 row.minimum_order, row.order_multiple, row.lead_time_days,
                 [(Decimal(q), Decimal(p)) for q, p in row.price_breaks], row.preferred)


def put(op: Op, sku: str, supplier: str, t: Terms) -> SupplierItem:
    item = lookup.item(op, sku, lock=True)
    sup = lookup.supplier(op, supplier)
    _check(t)
    _counted(t, item)
    row = _row(op, item, sup, lock=True)
    currency = currencies.of(op, sup.currency)
    before = _text(terms_of(row), currency) if row is not None else None
    if row is None:
        row = SupplierItem(item=item, item_id=item.id, supplier=sup, supplier_id=sup.id)
        op.session.add(row)
    row.supplier_sku, row.purchase_unit = t.supplier_sku, t.purchase_unit
    row.units_per_purchase_unit, row.minimum_order = t.units_per_purchase_unit, t.minimum_order
    row.order_multiple, row.lead_time_days = t.order_multiple, t.lead_time_days
    row.price_breaks = [[str(q), str(p)] for q, p in t.price_breaks]
    row.preferred, row.updated_at = t.preferred, op.now
    if t.preferred:  # one preferred supplier per item: the others give it up
        for other in op.session.scalars(op.lock(select(SupplierItem).where(
                SupplierItem.item_id == item.id, SupplierItem.supplier_id != sup.id,
                SupplierItem.preferred.is_(True)))).unique():
            op.change("supplier_item", f"{sku} from {other.supplier.name}", "preferred",
                      True, False)
            other.preferred = False
    op.session.flush()
    op.change("supplier_item", f"{sku} from {sup.name}", "terms", before, _text(t, currency))
    return row


def remove(op: Op, sku: str, supplier: str) -> SupplierItem:
    item = lookup.item(op, sku, include_archived=True)
    sup = lookup.supplier(op, supplier)
    row = _row(op, item, sup, lock=True)
    if row is None:
        raise NotFound(f"{supplier} has no entry for {sku}", field="supplier")
    op.change("supplier_item", f"{sku} from {sup.name}", "terms",
              _text(terms_of(row), currencies.of(op, sup.currency)), None)
    op.session.delete(row)
    op.session.flush()
    return row


def listed(op: Op, sku: str | None, supplier: str | None) -> list[SupplierItem]:
    stmt = (select(SupplierItem).join(Item, Item.id == SupplierItem.item_id)
            .join(Supplier, Supplier.id == SupplierItem.supplier_id)
            .order_by(Item.sku, Supplier.name))
    if sku is not None:
        stmt = stmt.where(SupplierItem.item_id == lookup.item(op, sku, include_archived=True).id)
    if supplier is not None:
        stmt = stmt.where(SupplierItem.supplier_id == lookup.supplier(op, supplier).id)
    return list(op.session.scalars(stmt).unique())


def sells_by(op: Op, item: Item, supplier: Supplier, unit: str) -> bool:
    """Whether the supplier's entry for the item is in `unit`."""
    row = _row(op, item, supplier)
    return row is not None and row.purchase_unit == unit


def for_line(op: Op, item: Item, supplier: Supplier, unit: str, fld: str) -> SupplierItem:
    """The supplier item a purchase line in `unit` buys: the supplier's entry for the item,
    in that unit, or a coded error naming the line's unit."""
    row = _row(op, item, supplier)
    if row is None or row.purchase_unit != unit:
        sold = f"sells it by the {row.purchase_unit}" if row else "has no entry for it"
        raise ValidationFailed(f"{supplier.name} {sold}, not by the {unit!r}: {item.sku}",
                               field=fld)
    return row


def default_price(row: SupplierItem, quantity: Decimal) -> Decimal:
    """The break price for `quantity` purchase units."""
    return price_at(offer_of(row, ""), quantity)


def offer_of(row: SupplierItem, currency: str) -> Offer:
    t = terms_of(row)
    return Offer(row.supplier.name if row.supplier else "", currency, t.purchase_unit,
                 t.units_per_purchase_unit, t.minimum_order or ZERO, t.order_multiple,
                 t.lead_time_days, tuple(t.price_breaks), t.preferred)
