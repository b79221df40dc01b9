"""What an order line's goods stand at in goods received not invoiced: received less
returned less billed, and the value the receipts booked it at.

A receipt booked each unit at the line's price converted at its own day's rate, and a
price correction re-priced every unit by the difference at that same day's rate, so a
unit's booked value is always the line's current price at its receipt day's rate: the
value a bill clears and the unbilled receipts show. Bills clear the oldest units
first (as returns do here).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.bills import matching
from shopfloor.domain.buying import currencies
from shopfloor.domain.orders import billed as billed_lines
from shopfloor.domain.purchasing import units
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.numbers import ZERO, cost
from shopfloor.store.tables import (
    PurchaseOrder,
    PurchaseOrderLine,
    StockMovement,
    StockReturn,
    SupplierBill,
    SupplierBillLine,
)

PO_DOC = "purchase_order"


def end_of(day: date | None) -> datetime | None:
    return None if day is None else datetime.combine(day + timedelta(days=1), time(), UTC)


counted_bills = billed_lines.counted
billed = billed_lines.billed


def billed_in_unit(op: Op, line_id: int) -> Decimal:
    found = op.session.scalar(
        select(func.sum(SupplierBillLine.quantity))
        .join(SupplierBill, SupplierBill.id == SupplierBillLine.bill_id)
        .where(SupplierBillLine.order_line_id == line_id, counted_bills()))
    return found if found is not None else ZERO


def received(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, day: date | None = None
             ) -> tuple[list[matching.Lot], Decimal]:
    """The line's receipts as lots by day, and what corrections took back out."""
    stmt = select(StockMovement.created_at, StockMovement.quantity).where(
        StockMovement.document_type == PO_DOC, StockMovement.document_number == po.number,
        StockMovement.item_id == line.item_id, StockMovement.quantity != 0,
        StockMovement.reason.in_(("receipt", "correction")), unreverted()
    ).order_by(StockMovement.id)
    end = end_of(day)
    if end is not None:
        stmt = stmt.where(StockMovement.created_at < end)
    return matching.net((at.date(), q) for at, q in op.session.execute(stmt))


def returned(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, day: date | None = None
             ) -> Decimal:
    if day is None:
        return line.returned_quantity
    found = op.session.scalar(
        select(func.sum(StockMovement.quantity))
        .join(StockReturn, StockReturn.number == StockMovement.document_number)
        .where(StockMovement.reason == "supplier_return", StockReturn.order_number ==
               po.number, StockMovement.item_id == line.item_id, unreverted(),
               StockMovement.created_at < end_of(day)))
    return -found if found is not None else ZERO


class Rates:
    """An order's rates by day, read once each."""

    def __init__(self, op: Op, po: PurchaseOrder) -> None:
        self.op, self.po = op, po
        self.known: dict[date, Decimal] = {}

    def on(self, day: date) -> Decimal:
        if day not in self.known:
            self.known[day] = currencies.rate_on(self.op, self.po.currency, day)
        return self.known[day]


def value(rates: Rates, line: PurchaseOrderLine, lots: list[matching.Lot]) -> Decimal:
    """The booked value of these units at the line's price now."""
    return cost(sum((lot.quantity * units.unit_cost(line, line.unit_price, rates.on(lot.day))
                     for lot in lots), ZERO))


def unbilled(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, day: date | None = None,
             rates: Rates | None = None) -> tuple[Decimal, Decimal, Decimal, Decimal]:
    """Received, returned, billed (stock units) and the booked value of what is left."""
    lots, taken_back = received(op, po, line, day)
    got = sum((lot.quantity for lot in lots), ZERO) - taken_back
    back = returned(op, po, line, day)
    done = billed(op, [line.id], day).get(line.id, ZERO)
    left = got - back - done
    rates = rates or Rates(op, po)
    if left > 0:
        worth = value(rates, line, matching.taken(lots, taken_back + back + done, left))
    else:  # returned after it was billed: owed back by the supplier, at the latest rate
        worth = value(rates, line, [matching.Lot(lots[-1].day, left)]) if lots and left \
            else ZERO
    return got, back, done, worth

