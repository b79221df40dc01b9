"""A purchase order in the supplier's terms: its lines in the supplier's unit and its
amounts in the supplier's currency, converted to stock units and the company currency
when stock moves (11 boxes of 100 at 3.50 a box come in as 1,100 pcs at 0.035; 100 at
2.00 USD with USD at 0.92 come in at 1.84).

A line stores its quantities in stock units (what every reader of stock counts) and its
price per its unit, in the order's currency (what the supplier invoices); `units_per_unit`
is the pack size it was ordered at, kept with the line so a later change of the
supplier's terms does not rewrite an order already placed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.buying import currencies, supplier_items
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import cost, fmt
from shopfloor.kernel.text import unit_cost
from shopfloor.store.tables import Item, PurchaseOrder, PurchaseOrderLine, Supplier


class Terms:
    """A purchase line as it will be stored: stock quantity, price per unit, unit, pack."""

    __slots__ = ("per", "price", "quantity", "unit")

    def __init__(self, quantity: Decimal, price: Decimal, unit: str | None,
                 per: Decimal | None) -> None:
        self.quantity, self.price, self.unit, self.per = quantity, price, unit, per


def terms(op: Op, supplier: Supplier, item: Item, spec: Any, i: int) -> Terms:
    """A requested line (quantity and price in `spec.unit`, if it names one) as stored."""
    unit: str | None = spec.unit
    if unit is not None and unit == item.uom and not supplier_items.sells_by(
            op, item, supplier, unit):
        unit = None  # the item's own unit (what a line read back shows): no conversion
    if unit is None:
        price = _item_price(op, supplier, item, i) if spec.unit_price is None \
            else spec.unit_price
        return Terms(storable(spec.quantity, f"lines[{i}].quantity"), price, None, None)
    row = supplier_items.for_line(op, item, supplier, unit, f"lines[{i}].unit")
    per = row.units_per_purchase_unit
    price = supplier_items.default_price(row, spec.quantity) if spec.unit_price is None \
        else spec.unit_price
    return Terms(storable(spec.quantity * per, f"lines[{i}].quantity"), price, unit, per)


def _item_price(op: Op, supplier: Supplier, item: Item, i: int) -> Decimal:
    """The item's purchase price (the company's currency) in the supplier's, at today's
    rate; with no rate, the line must say its price."""
    if supplier.currency is None or supplier.currency == currencies.company(op):
        return item.purchase_price
    rate = currencies.rate_on(op, supplier.currency, op.now.date(), f"lines[{i}].unit_price")
    return cost(item.purchase_price / rate)


def shown(quantity: Decimal, line: PurchaseOrderLine) -> Decimal:
    """A stock quantity of the line, in the line's own unit."""
    per = line.units_per_unit
    return quantity / per if per and quantity is not None else quantity


def said(quantity: Decimal, line: PurchaseOrderLine) -> str:
    """A stock quantity of the line as its order says it, with the stock figure beside it
    ("4 box (400 pcs)"): a receipt typed in boxes must not read back as pieces. A line in
    stock units, and nothing at all, is the bare number."""
    per = line.units_per_unit
    if not per or not quantity:
        return fmt(quantity)
    return f"{fmt(quantity / per)} {line.unit} ({fmt(quantity)} {line.item.uom})"


def text(quantity: Decimal, price: Decimal, unit: str | None) -> str:
    return f"{fmt(quantity)}{f' {unit}' if unit else ''} @ {fmt(price)}"


def in_stock_units(po: PurchaseOrder, specs: Sequence[Any] | None) -> Sequence[Any] | None:
    """A receipt's lines, given in each order line's unit, in stock units."""
    if specs is None:
        return None
    per = {ln.item.sku: ln.units_per_unit for ln in po.lines if ln.units_per_unit}
    return [s._replace(quantity=s.quantity * per[s.sku]) if s.sku in per else s
            for s in specs]


def returned_in_stock_units(po: PurchaseOrder, specs: Sequence[Any]) -> list[Any]:
    """A supplier return's lines in stock units. A line may name its `unit`: the order
    line's own (its purchase unit: 11 box of 100 go back as 1,100 pcs) or the item's (the
    default), so that a quantity read off the order (in boxes) is never taken as pieces.
    Named lots' quantities stay in stock units, as on a receipt."""
    by_sku = {ln.item.sku: ln for ln in po.lines}
    out = []
    for i, spec in enumerate(specs):
        line = by_sku.get(spec.sku)
        if spec.unit is None or line is None:
            out.append(spec)
        elif spec.unit == line.unit and line.units_per_unit:
            out.append(replace(spec, quantity=spec.quantity * line.units_per_unit, unit=None))
        elif spec.unit == line.item.uom:
            out.append(replace(spec, unit=None))
        else:
            known = " or ".join(dict.fromkeys(u for u in (line.unit, line.item.uom) if u))
            raise ValidationFailed(f"{spec.sku} on {po.number} is returned in {known}, "
                                   f"not {spec.unit}", field=f"lines[{i}].unit")
    return out


def stock_cost(op: Op, po: PurchaseOrder) -> dict[int, Decimal]:
    """What each line's stock unit costs, in the company currency, at the rate valid
    today: refused, naming `currency`, when none is (nothing is booked at a guess)."""
    rate = currencies.rate_on(op, po.currency, op.now.date())
    return {ln.id: cost(ln.unit_price / (ln.units_per_unit or 1) * rate) for ln in po.lines}


def cost_said(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, stock_cost: Decimal
              ) -> str | None:
    """Where a foreign price becomes a stock cost, both of them and the rate ("US$3.50/box =
    €0.0322/pcs at 0.92"): the books' figure alone would not match the supplier's
    invoice, the invoice's alone not the stock value. None for a price in the books'
    currency."""
    books = currencies.company(op)
    theirs = currencies.of_document(po)
    if theirs == books:
        return None
    rate = currencies.rate_on(op, po.currency, op.now.date())
    return (f"{unit_cost(line.unit_price, theirs)}/{line.unit or line.item.uom} = "
            f"{unit_cost(stock_cost, books)}/{line.item.uom} at {fmt(rate)}")
