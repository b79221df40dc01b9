"""A purchase order in the supplier's terms: its lines in the supplier's unit and its
amounts in the supplier's currency, converted to stock units and the company currency
when stock moves (11 boxes of 100 at 3.50 a box come in as 1,100 pcs at 0.035; 100 at
2.00 USD with USD at 0.92 come in at 1.84).

A line in a supplier's unit keeps what was ordered, received and returned in that unit,
exactly as the supplier counts it (`unit_quantity`, `unit_received`, `unit_returned`),
and the same in stock units (what every reader of stock counts), rounded once to the
item's precision: 3.3 lb of 0.453592 kg is 1.497 kg, never 1.4968536 kg that no scale
shows and no sum of receipts comes back to. Receipts and returns are given and compared
in the line's unit; the stock they move is what brings the line's stock figure to its
unit figure converted (so two receipts of 3.3 lb and 4.4 lb move 7.7 lb's kilograms,
and returning all that came in leaves nothing of it on hand). The price is per the
line's unit; a stock unit costs what the line costs over what it brings in, so the
stock's value is the invoice's to the cent. `units_per_unit` is the pack size it was
ordered at, kept with the line so a later change of the supplier's terms does not
rewrite an order already placed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, Protocol

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import LIMIT, storable
from shopfloor.domain.buying import currencies, supplier_items
from shopfloor.domain.lines import rules
from shopfloor.domain.stock.counted import exact, precision
from shopfloor.kernel import units
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.text import unit_cost as cost_text
from shopfloor.store.tables import Item, PurchaseOrder, PurchaseOrderLine, Supplier


class Terms(NamedTuple):
    """A purchase line as it will be stored: stock quantity, price per unit, unit, pack,
    and the quantity in that unit (None: a line in stock units)."""

    quantity: Decimal
    price: Decimal
    unit: str | None
    per: Decimal | None
    in_unit: Decimal | None = None


def converted(quantity: Decimal, per: Decimal, item: Any) -> Decimal:
    """A quantity in a purchase unit in stock units, rounded to the item's precision."""
    return units.quantize(quantity * per, precision(item))


def terms(op: Op, supplier: Supplier, item: Item, spec: Any, i: int) -> Terms:
    """A requested line (quantity and price in `spec.unit`, if it names one) as stored;
    refused at once, naming the field, if any figure it makes is beyond what is stored."""
    fld = f"lines[{i}].quantity"
    unit: str | None = spec.unit
    if unit is not None and unit == item.uom and not supplier_items.sells_by(
            op, item, supplier, unit):
        unit = None  # the item's own unit (what a line read back shows): no conversion
    if unit is None:
        price = _item_price(op, supplier, item, i) if spec.unit_price is None \
            else spec.unit_price
        _worth(spec.quantity, price, None, i)
        return Terms(storable(exact(spec.quantity, item, fld), fld), price, None, None)
    row = supplier_items.for_line(op, item, supplier, unit, f"lines[{i}].unit")
    per = row.units_per_purchase_unit
    price = supplier_items.default_price(row, spec.quantity) if spec.unit_price is None \
        else spec.unit_price
    stock = storable(converted(spec.quantity, per, item), fld)
    if stock == 0:
        raise ValidationFailed(
            f"{fmt(spec.quantity)} {unit} is {fmt(spec.quantity * per)} {item.uom}, less than "
            f"the smallest {item.uom} of {item.sku} ({fmt(units.quantum(precision(item)))})",
            field=fld)
    _worth(spec.quantity, price, per, i)
    return Terms(stock, price, unit, per, spec.quantity)


def _worth(quantity: Decimal, price: Decimal, per: Decimal | None, i: int) -> None:
    """The line's value, and its price per stock unit, are checked where they are given,
    not at the receipt that would book them."""
    value = quantity * price
    if not -LIMIT < value < LIMIT:
        raise ValidationFailed(
            f"lines[{i}]: {fmt(quantity)} x {fmt(price)} is {value:.0f}, beyond what Shopfloor "
            "stores (less than 10^12 in value)", field=f"lines[{i}].quantity",
            details={"limit": "1000000000000"})
    if per is not None:
        storable(price / per, f"lines[{i}].unit_price")


def _item_price(op: Op, supplier: Supplier, item: Item, i: int) -> Decimal:
    """The item's purchase price (the company's currency) in the supplier's, at today's
    rate; with no rate, the line must say its price."""
    if supplier.currency is None or supplier.currency == currencies.company(op):
        return item.purchase_price
    rate = currencies.rate_on(op, supplier.currency, op.now.date(), f"lines[{i}].unit_price")
    return cost(item.purchase_price / rate)


def in_unit(quantity: Decimal, line: PurchaseOrderLine) -> Decimal:
    """The line's ordered quantity in its own unit (stock units for a line in them)."""
    return line.unit_quantity if line.unit and line.unit_quantity is not None else quantity


def shown(line: PurchaseOrderLine) -> tuple[Decimal, Decimal, Decimal]:
    """Ordered, received and returned, in the line's own unit."""
    if line.unit and line.unit_quantity is not None:
        return line.unit_quantity, line.unit_received or ZERO, line.unit_returned or ZERO
    return line.quantity, line.received_quantity, line.returned_quantity


class InUnit(Protocol):
    """What counts in a supplier's unit: a purchase line, or a return line of one."""

    @property
    def unit(self) -> str | None: ...
    @property
    def units_per_unit(self) -> Decimal | None: ...
    @property
    def item(self) -> Item: ...


def said(quantity: Decimal, line: InUnit, unit_quantity: Decimal | None = None) -> str:
    """A stock quantity of the line as its order says it, with the stock figure beside it
    ("4 box (400 pcs)"): a receipt typed in boxes must not read back as pieces. A line in
    stock units, and nothing at all, is the bare number. `unit_quantity` is the figure in
    the line's unit (else the stock one converted back, to six places)."""
    per = line.units_per_unit
    if not per or not line.unit or not (quantity or unit_quantity):
        return fmt(quantity)
    if unit_quantity is None:
        unit_quantity = units.quantize(quantity / per, units.PURCHASE_PLACES)
    return packs(unit_quantity, line, quantity) or \
        f"{fmt(unit_quantity)} {line.unit} ({fmt(quantity)} {line.item.uom})"


def named(quantity: Decimal, line: InUnit, unit_quantity: Decimal | None = None) -> str:
    """`said`, naming the stock unit where the line counts in nothing else ("6 pcs"): a
    figure standing alone (a return's line) needs its unit."""
    if line.unit and line.units_per_unit and quantity:
        return said(quantity, line, unit_quantity)
    return f"{fmt(quantity)} {line.item.uom}"


def figure(quantity: Decimal, line: InUnit, unit_quantity: Decimal | None = None
           ) -> Decimal | None:
    """The figure in the line's own unit (`unit_quantity`, else the stock one converted
    back, snapped to what its pieces stand for); None for a line in stock units."""
    per = line.units_per_unit
    if not per or not line.unit:
        return None
    if unit_quantity is not None:
        return unit_quantity
    return units.snap(units.quantize(quantity / per, units.PURCHASE_PLACES), per,
                      precision(line.item))


def packs(unit_quantity: Decimal, line: InUnit, stock: Decimal | None = None) -> str | None:
    """Part of a pack as the buyer counts it ("1 pc of a box of 3"), else None."""
    if not line.unit or not line.units_per_unit:
        return None
    return units.in_packs(unit_quantity, line.unit, line.units_per_unit, line.item.uom,
                          precision(line.item), stock)


def logged(text: str | None) -> Decimal | None:
    """The figure in the line's unit a change row logged with `said` (its first word, or
    what its packs and pieces stand for); None for text `said` never wrote (nothing
    logged is zero)."""
    if not text:
        return ZERO
    in_packs = units.read_packs(text)
    if in_packs is not None:
        return in_packs[0]
    try:
        found = Decimal(text.split(" ", 1)[0])
    except InvalidOperation:
        return None
    return found if found.is_finite() else None


def stock_figure(text: str) -> str:
    """The stock figure of a logged quantity: a line in boxes logs "4 box (400 pcs)", or
    part of a box as "1 pc of a box of 3"."""
    in_packs = units.read_packs(text)
    if in_packs is not None:
        return fmt(in_packs[1])
    if "(" in text and text.endswith(")"):
        return text[text.index("(") + 1:].split(" ", 1)[0]
    return text


def text(quantity: Decimal, price: Decimal, unit: str | None) -> str:
    return f"{fmt(quantity)}{f' {unit}' if unit else ''} @ {fmt(price)}"


class Receipt(NamedTuple):
    """One line of a receipt: the stock it moves, the same in the line's unit, where."""

    line: PurchaseOrderLine
    quantity: Decimal
    in_unit: Decimal | None
    field: str


def _moved(line: PurchaseOrderLine, done: Decimal, stock_done: Decimal, whole: Decimal,
           stock_whole: Decimal, more: Decimal) -> Decimal:
    """The stock a movement of `more` (in the line's unit) makes: what brings the stock
    figure to the unit figure converted (all of it when the unit figure reaches
    `whole`)."""
    after = done + more
    target = stock_whole if after == whole else converted(after, line.units_per_unit or ZERO,
                                                          line.item)
    return target - stock_done


def to_receive(po: PurchaseOrder, specs: Sequence[Any] | None) -> list[Receipt]:
    """What a receipt moves: all that is outstanding, or the lines asked for (each in its
    order line's unit), each within what is still outstanding on it, compared in that
    unit."""
    if specs is None:
        out = []
        for ln in po.lines:
            ordered, got, _ = shown(ln)
            if got < ordered and ln.received_quantity < ln.quantity:
                out.append(Receipt(ln, ln.quantity - ln.received_quantity,
                                   ordered - got if ln.unit else None, "lines"))
        return out
    todo: list[Receipt] = []
    for i, spec, line in rules.named_lines(po.lines, specs, po.number):
        fld = f"lines[{i}].quantity"
        ordered, got, _ = shown(line)
        boxed = line.unit is not None and line.unit_quantity is not None
        stock = _moved(line, got, line.received_quantity, ordered, line.quantity,
                       spec.quantity) if boxed else exact(spec.quantity, line.item, fld)
        _within(line, spec.quantity, stock, fld, "receiving", "outstanding",
                line.quantity - line.received_quantity, ordered - got)
        todo.append(Receipt(line, stock, spec.quantity if boxed else None, fld))
    return todo


def _within(line: PurchaseOrderLine, quantity: Decimal, stock: Decimal, fld: str,
            doing: str, what_is_left: str, left: Decimal, left_in_unit: Decimal) -> None:
    """A receipt's or a return's `quantity` in the line's unit (`stock` in stock units),
    refused beyond what is left of the line (`left`, `left_in_unit`) and where it rounds
    to no stock at all."""
    if quantity > left_in_unit:
        raise ValidationFailed(
            f"{line.item.sku}: {doing} {said(stock, line, quantity)} but only "
            f"{said(left, line, left_in_unit)} {what_is_left}", field=fld)
    if stock <= 0:
        raise ValidationFailed(
            f"{fmt(quantity)} {line.unit} of {line.item.sku} is less than its smallest "
            f"{line.item.uom} ({fmt(units.quantum(precision(line.item)))}): nothing would "
            "move", field=fld)


def count(op: Op, number: str, line: PurchaseOrderLine, what: str, stock: Decimal,
          in_unit_: Decimal | None) -> None:
    """A line's received (or returned) figures moved by `stock` and, in its unit, by
    `in_unit_` (None: the stock figure converted, to six places), logged in its unit."""
    stock_attr, unit_attr = f"{what}_quantity", f"unit_{what}"
    before, unit_before = getattr(line, stock_attr), getattr(line, unit_attr)
    after = before + stock
    unit_after = None
    if line.unit and unit_before is not None:
        per = line.units_per_unit or Decimal(1)
        step = in_unit_ if in_unit_ is not None else units.quantize(
            stock / per, units.PURCHASE_PLACES)
        ceiling = (line.unit_received if what == "returned" else line.unit_quantity) or ZERO
        stock_ceiling = line.received_quantity if what == "returned" else line.quantity
        # all of it in stock units is all of it in the line's unit, however it was given
        unit_after = ceiling if step > 0 and after == stock_ceiling else \
            min(unit_before + step, ceiling) if step > 0 else max(unit_before + step, ZERO)
        if in_unit_ is None:  # counted in stock units: the figure its pieces stand for
            unit_after = min(units.snap(unit_after, per, precision(line.item)), ceiling)
        setattr(line, unit_attr, unit_after)
    op.change("purchase_order", number, f"line {line.item.sku} {what}",
              said(before, line, unit_before), said(after, line, unit_after))
    setattr(line, stock_attr, after)


def returned_in_stock_units(po: PurchaseOrder, specs: Sequence[Any]) -> list[Any]:
    """A supplier return's lines in stock units, each carrying its figure in the order
    line's unit (`in_unit`). A line may name its `unit`: the order line's own (its
    purchase unit: 11 box of 100 go back as 1,100 pcs), compared in it with what came in
    and has not gone back, or the item's (the default), so that a quantity read off the
    order (in boxes) is never taken as pieces. Named lots' quantities stay in stock
    units, as on a receipt."""
    by_sku = {ln.item.sku: ln for ln in po.lines}
    out = []
    for i, spec in enumerate(specs):
        line = by_sku.get(spec.sku)
        fld = f"lines[{i}].quantity"
        if line is None:
            out.append(spec)
        elif spec.unit is not None and spec.unit == line.unit and line.units_per_unit \
                and line.unit_received is not None:
            _, got, back = shown(line)
            stock = _moved(line, back, line.returned_quantity, got, line.received_quantity,
                           spec.quantity)
            _within(line, spec.quantity, stock, fld, "returning", "received and not yet returned",
                    line.received_quantity - line.returned_quantity, got - back)
            out.append(replace(spec, quantity=stock, unit=None, in_unit=spec.quantity))
        elif spec.unit is None or spec.unit == line.item.uom:
            out.append(replace(spec, quantity=exact(spec.quantity, line.item, fld), unit=None))
        else:
            known = " or ".join(dict.fromkeys(u for u in (line.unit, line.item.uom) if u))
            raise ValidationFailed(f"{spec.sku} on {po.number} is returned in {known}, "
                                   f"not {spec.unit}", field=f"lines[{i}].unit")
    return out


def unit_cost(line: PurchaseOrderLine, price: Decimal, rate: Decimal) -> Decimal:
    """What one stock unit of the line costs in the company currency at `rate`: the line's
    value over the stock it brings in (its stock quantity was rounded once)."""
    if line.unit and line.unit_quantity is not None and line.quantity:
        return cost(price * line.unit_quantity * rate / line.quantity)
    return cost(price / (line.units_per_unit or 1) * rate)


def stock_cost(op: Op, po: PurchaseOrder) -> dict[int, Decimal]:
    """What each line's stock unit costs, in the company currency, at the rate valid
    today: refused, naming `currency`, when none is (nothing is booked at a guess)."""
    rate = currencies.rate_on(op, po.currency, op.now.date())
    return {ln.id: storable(unit_cost(ln, ln.unit_price, rate), "currency") for ln in po.lines}


def undo(line: PurchaseOrderLine, what: str, changes: Sequence[dict[str, Any]],
         number: str) -> None:
    """A receipt's (or return's) figure in the line's unit taken back, as its log said it
    (stock figures are the ledger's; the reverser sets those)."""
    attr = f"unit_{what}"
    if not line.unit or getattr(line, attr) is None:
        return
    for c in changes:
        if (c["key"], c["field"]) == (number, f"line {line.item.sku} {what}"):
            before, after = logged(c["before"]), logged(c["after"])
            if before is None or after is None:  # a guess (0) would leave the line wrong
                raise Conflict(
                    f"{number} line {line.item.sku}: its log says {what} went from "
                    f"{c['before']!r} to {c['after']!r}, no figure in its {line.unit}; "
                    "nothing was reverted", field="operation_id")
            step = after - before
            left = max(getattr(line, attr) - step, ZERO)
            setattr(line, attr, units.snap(left, line.units_per_unit or ZERO,
                                           precision(line.item)))
            return


def cost_said(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, stock_cost: Decimal
              ) -> str | None:
    """Where a foreign price becomes a stock cost, both of them and the rate ("US$3.50/box =
    €0.0322/pcs at 0.92"): the books' figure alone would not match the supplier's
    invoice, the invoice's alone not the stock value. None for a price in the books'
    currency."""
    books = currencies.company(op)
    theirs = currencies.of(op, po.currency)  # read once per operation, not once a line
    if theirs == books:
        return None
    rate = currencies.rate_on(op, po.currency, op.now.date())
    return (f"{cost_text(line.unit_price, theirs)}/{line.unit or line.item.uom} = "
            f"{cost_text(stock_cost, books)}/{line.item.uom} at {fmt(rate)}")
