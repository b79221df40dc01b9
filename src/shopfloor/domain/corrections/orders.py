"""Corrections of finished documents: reversing rows plus new rows, never an edit.

A receipt's price corrected: the receipt's rows stay; a `correction` row takes the
received quantity back out at the old price and another brings it in at the new one, so
the ledger shows what was booked, what was wrong and what is right. The moving average
is recomputed as if the price had been right from the start: the value difference
travels through every later movement of that balance, each outgoing row taking its share
(quantity / stock on hand then). The share of stock still here re-costs it; the shares
of stock that already left (shipped, consumed, moved away) at the wrong cost are written
as cost adjustments naming those documents, since their ledger rows are history.

A received, shipped or completed quantity corrected moves the difference as the
original would have: more received comes in at the line's price; less leaves at it
(re-averaging what stays); a shipment corrected down brings the goods back at the cost
they left with; a completion corrected down takes the product out at its production
cost and puts the components back at the cost they were consumed at.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import revaluation
from shopfloor.domain.corrections.costs import document_lots, lot_names, only_lot
from shopfloor.domain.corrections.ledger import later, named
from shopfloor.domain.orders import billed
from shopfloor.domain.orders.returns import moved_cost, share_back, shipped_share
from shopfloor.domain.purchasing import units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.statuses import PO, SO, said
from shopfloor.store.tables import PurchaseOrder, SalesOrder, StockMovement


def _line(lines: Any, sku: str, number: str) -> Any:
    for ln in lines:
        if ln.item.sku == sku:
            return ln
    raise ValidationFailed(f"{sku} is not on {number}", field="sku")


def _no_serials(item: Any, lot: str | None) -> None:
    if lot is not None and not lots.tracked(item):
        raise ValidationFailed(f"{item.sku} is not lot-tracked; leave out lot", field="lot")
    if getattr(item, "serial_tracked", False):
        raise ValidationFailed(f"{item.sku} is serial-tracked: correct it with a return and "
                               "a new receipt or shipment naming the serials", field="sku")


def _no_more_once_closed(status: str, closed: str, number: str, moved: str,
                         delta: Decimal) -> None:
    """An order closed short expects no more: booking more on it would move stock its
    close gave up (a sale's released commitment, a purchase no longer on order). Less is
    a fact about the past and stays correctable."""
    if status == closed and delta > 0:
        raise Conflict(f"{number} is {said(status)}: a correction never books more "
                       f"{moved} on it; reopen it first (revert the close)", field="status")


def _named_batch(op: Op, item: Any, lot: str, incoming: bool) -> int:
    line = lots.Line(item, Decimal(1), "lot", (lots.LotIn(lot),))
    parts = (lots.incoming if incoming else lots.outgoing)(op, [line])[0]
    batch = parts[0].batch_id
    assert batch is not None
    return batch


def _relot(op: Op, item: Any, location: Any, document_type: str, number: str,
           held: dict[int | None, Decimal], target: int, incoming: bool) -> None:
    """The document moved the wrong lot: what it holds of each lot (brought in, or took
    out) moves to `target`, at the average so no value changes. Received stock of a wrong
    lot that has left since blocks it, naming where it went."""
    book = stock.ledger(op).lots
    for batch, qty in held.items():
        if batch is None or batch == target:
            continue
        if incoming and book.slot(item.id, location.id, batch).on_hand < qty:
            gone = [m for m in later(op.session, item.id, location.id, 0, [batch])
                    if m.quantity < 0 and m.document_number != number]
            raise Conflict(f"lot {lot_names(op, [batch])} of {item.sku} has been traced "
                           f"onward ({named(gone)}); correct those first", field="lot")
        if not incoming:
            _usable(op, item, location, target)
        avg = stock.balance(op, item, location).average_cost
        gone_from, came_to = (batch, target) if incoming else (target, batch)
        stock.post(op, Posting(item, location, qty, "correction", document_type, number,
                               unit_cost=avg, batch_id=came_to, field="lot"))
        stock.post(op, Posting(item, location, -qty, "correction", document_type, number,
                               batch_id=gone_from, field="lot"))
        op.change(document_type, number, f"line {item.sku} lot", lot_names(op, [batch]),
                  lot_names(op, [target]))


def _usable(op: Op, item: Any, location: Any, batch: int) -> None:
    slot = stock.ledger(op).lots.slot(item.id, location.id, batch)
    if slot.held or slot.expired(op.now.date()):
        raise Conflict(f"lot {slot.lot_number} of {item.sku} is "
                       f"{'on hold' if slot.held else 'expired'}; it cannot have shipped",
                       field="lot")


def _target(op: Op, item: Any, held: dict[int | None, Decimal], lot: str | None,
            number: str, incoming: bool, delta: Decimal) -> tuple[int | None, bool]:
    """The lot a correction moves, and whether the line changes lot altogether."""
    if not lots.tracked(item):
        return None, False
    if lot is not None:
        batch = _named_batch(op, item, lot, incoming)
        return batch, batch not in held
    if delta == 0 or (delta > 0 and not incoming):
        return None, False  # nothing moves, or a shipment picks
    return only_lot(op, held, item.sku, number), False


def _stock_price(op: Op, po: PurchaseOrder, line: Any, price: Decimal, day: date) -> Decimal:
    """A line's price (per its unit, in the order's currency) as the cost of a stock unit
    in the company's currency, as a receipt on `day` booked it (that day's rate)."""
    rate = currencies.rate_on(op, po.currency, day, "unit_price")
    return units.unit_cost(line, price, rate)


def _reprice(op: Op, po: PurchaseOrder, line: Any, old: Decimal, new: Decimal) -> None:
    """The line's goods re-priced from `old` to `new`: each of the order's rows of it by
    the difference at its own day's rate (a receipt in dollars three weeks ago at that
    day's rate, not today's); goods going back to the supplier take their average."""
    rows = op.session.execute(select(StockMovement.created_at, StockMovement.quantity).where(
        StockMovement.document_type == "purchase_order", StockMovement.document_number ==
        po.number, StockMovement.item_id == line.item_id, unreverted())).all()
    days = {at.date() for at, _ in rows} | {op.now.date()}
    diffs = {day: _stock_price(op, po, line, new, day) - _stock_price(op, po, line, old, day)
             for day in days}
    qty = sum((q for _, q in rows), ZERO)
    average = cost(sum((q * diffs[at.date()] for at, q in rows), ZERO) / qty) if qty > 0 \
        else diffs[op.now.date()]
    total = revaluation.revalue(op, line.item, "purchase_order", po.number, average,
                                "unit_price", diff_of=lambda m: diffs[m.created_at.date()]
                                ).total
    op.change("purchase_order", po.number, f"{line.item.sku} re-priced by", None, fmt(total))


def correct_purchase_receipt(op: Op, number: str, sku: str, quantity: Decimal | None,
                             unit_price: Decimal | None, lot: str | None = None
                             ) -> PurchaseOrder:
    """`quantity` and `unit_price` in the line's own unit and the order's currency (the
    supplier's, where the line is in one), as the order reads."""
    po = lookup.purchase_order(op, number, lock=True)
    line = _line(po.lines, sku, number)
    if line.received_quantity == 0:
        raise Conflict(f"{sku} on {number} has not been received; modify the order instead",
                       field="sku")
    boxed = line.unit is not None and line.unit_quantity is not None
    in_unit: Decimal | None = None
    if quantity is None:
        new_qty = line.received_quantity
    elif boxed:  # compared in the line's unit, as a receipt is: all of it is all of it
        ordered, got, _ = units.shown(line)
        new_qty = line.quantity if quantity == ordered else units.converted(
            quantity, line.units_per_unit or ZERO, line.item)
        in_unit = quantity - got
    else:
        new_qty = exact(storable(quantity * (line.units_per_unit or 1), "quantity"), line.item,
                        "quantity")
    new_price = line.unit_price if unit_price is None else unit_price
    if new_qty > line.quantity:
        raise ValidationFailed(f"{sku}: {units.said(new_qty, line)} is more than the "
                               f"{units.said(line.quantity, line)} ordered", field="quantity")
    if new_qty < line.returned_quantity:
        raise ValidationFailed(f"{sku}: {units.said(line.returned_quantity, line)} already "
                               "went back to the supplier", field="quantity")
    owed = billed.of(op, line.id)
    if quantity is not None and new_qty < line.received_quantity and \
            new_qty - line.returned_quantity < owed:
        raise Conflict(f"{sku}: {units.said(owed, line)} of it is billed; revert the "
                       "supplier's bill first", field="quantity")
    if owed and unit_price is not None and unit_price != line.unit_price:
        raise Conflict(f"{sku}: {units.said(owed, line)} of it is billed, at the bill's "
                       "price; a bill re-prices what is not billed yet", field="unit_price")
    if lots.tracked(line.item) or lot is not None:
        _no_serials(line.item, lot)
    stock.prefetch(op, [line.item], po.location)
    held = {b: q for b, q in document_lots(op, "purchase_order", number, line.item_id,
                                           po.location_id).items() if q > 0}
    delta = new_qty - line.received_quantity
    _no_more_once_closed(po.status, PO.closed, number, "received", delta)
    batch, relot = _target(op, line.item, held, lot, number, True, delta)
    if (new_qty, new_price, relot) == (line.received_quantity, line.unit_price, False):
        raise ValidationFailed("nothing to correct: give a different quantity, unit_price "
                               "or lot", field="unit_price" if unit_price is not None
                               else "lot" if lot is not None else "quantity")
    if relot and batch is not None:
        _relot(op, line.item, po.location, "purchase_order", number, held, batch, True)
    if new_price != line.unit_price:
        _reprice(op, po, line, line.unit_price, new_price)
        op.change("purchase_order", number, f"line {sku} price", line.unit_price, new_price)
        line.unit_price = new_price
    unit_cost = _stock_price(op, po, line, new_price, op.now.date())
    if delta > 0:
        stock.post(op, Posting(line.item, po.location, delta, "correction", "purchase_order",
                               number, unit_cost=unit_cost, batch_id=batch, field="quantity"))
    elif delta < 0:
        if po.currency not in (None, currencies.company(op)):  # back at what they came in at
            unit_cost = moved_cost(op, "purchase_order", number, line.item_id, "receipt")
        stock.post(op, Posting(line.item, po.location, delta, "correction", "purchase_order",
                               number, exit_cost=unit_cost, batch_id=batch, field="quantity",
                               pool=batch is None))
    if delta:
        units.count(op, number, line, "received", delta, in_unit)
    if po.status not in (PO.closed, PO.cancelled):
        done = all(ln.received_quantity >= ln.quantity for ln in po.lines)
        status = PO.received if done else PO.partially_received
        op.change("purchase_order", number, "status", po.status, status)
        po.status = status
    touch(po)
    return po


def correct_shipment(op: Op, number: str, sku: str, quantity: Decimal | None,
                     lot: str | None = None) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    line = _line(so.lines, sku, number)
    quantity = line.fulfilled_quantity if quantity is None else exact(quantity, line.item,
                                                                      "quantity")
    if quantity > line.quantity:
        raise ValidationFailed(f"{sku}: {fmt(quantity)} is more than the {fmt(line.quantity)} "
                               "ordered", field="quantity")
    if quantity < line.returned_quantity:
        raise ValidationFailed(f"{sku}: {fmt(line.returned_quantity)} already came back",
                               field="quantity")
    if lots.tracked(line.item) or lot is not None:
        _no_serials(line.item, lot)
    stock.prefetch(op, [line.item], so.location)
    shipped = {b: -q for b, q in document_lots(op, "sales_order", number, line.item_id,
                                               so.location_id).items() if q < 0}
    delta = quantity - line.fulfilled_quantity
    _no_more_once_closed(so.status, SO.closed, number, "shipped", delta)
    batch, relot = _target(op, line.item, shipped, lot, number, False, delta)
    if delta == 0 and not relot:
        raise ValidationFailed(f"{sku}: {fmt(quantity)} is what was shipped"
                               + (f" from lot {lot}" if lot else ""),
                               field="lot" if lot else "quantity")
    open_order = so.status not in (SO.closed, SO.cancelled)
    if relot and batch is not None:
        _relot(op, line.item, so.location, "sales_order", number, shipped, batch,
               False)
    if delta > 0:
        if batch is not None:
            _usable(op, line.item, so.location, batch)
        stock.post(op, Posting(line.item, so.location, -delta, "correction", "sales_order",
                               number, batch_id=batch, field="quantity"))
    elif delta < 0:
        unit = moved_cost(op, "sales_order", number, line.item_id, "shipment")
        # what never left brings back the share of re-pricings it took, as a return does
        value = share_back(op, line.item, so.location, number,
                           shipped_share(op, number, line.item_id), -delta, unit, batch,
                           "share of re-pricings back with the shipment corrected")
        stock.post(op, Posting(line.item, so.location, -delta, "correction", "sales_order",
                               number, unit_cost=unit, batch_id=batch, field="quantity",
                               pool=batch is None, value=value))
    if open_order:
        stock.reserve(op, line.item, so.location, -delta)
    op.change("sales_order", number, f"line {sku} shipped", line.fulfilled_quantity, quantity)
    line.fulfilled_quantity = quantity
    if open_order:
        done = all(ln.fulfilled_quantity >= ln.quantity for ln in so.lines)
        status = SO.fulfilled if done else (
            SO.open if all(ln.fulfilled_quantity == 0 for ln in so.lines)
            else SO.partially_fulfilled)
        op.change("sales_order", number, "status", so.status, status)
        so.status = status
    touch(so)
    return so
