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

from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from shopfloor.domain import lookup, production, stock
from shopfloor.domain.catalog import touch
from shopfloor.domain.context import Op
from shopfloor.domain.numbers import ZERO, cost, fmt
from shopfloor.domain.returns import moved_cost
from shopfloor.domain.stock import Posting
from shopfloor.registry.errors import Conflict, ValidationFailed
from shopfloor.store.corrections_tables import CostAdjustment
from shopfloor.store.tables import (
    ManufacturingOrder,
    PurchaseOrder,
    SalesOrder,
    StockMovement,
    table,
)

_ADJUST = insert(table(CostAdjustment))


def _line(lines: Any, sku: str, number: str) -> Any:
    for ln in lines:
        if ln.item.sku == sku:
            return ln
    raise ValidationFailed(f"{sku} is not on {number}", field="sku")


def _spread(op: Op, po: PurchaseOrder, line: Any, new_price: Decimal) -> Decimal:
    """Walk the balance's rows from the line's first receipt on, carrying the value the
    wrong price left out; returns what is still on hand of it, after writing the shares
    that left with other documents as cost adjustments."""
    rows = list(op.session.scalars(
        select(StockMovement).where(StockMovement.item_id == line.item_id,
                                    StockMovement.location_id == po.location_id)
        .order_by(StockMovement.id)).unique())
    first = next((i for i, m in enumerate(rows) if m.document_type == "purchase_order"
                  and m.document_number == po.number and m.quantity > 0), None)
    if first is None:
        return ZERO
    rows = rows[first:]
    on_hand = stock.balance(op, line.item, po.location).on_hand
    held = on_hand - sum((m.quantity for m in rows), ZERO)
    extra, diff = ZERO, new_price - line.unit_price
    for m in rows:
        if m.document_type == "purchase_order" and m.document_number == po.number:
            extra += m.quantity * diff
        elif m.quantity < 0 and held > 0:
            share = extra * (-m.quantity) / held
            extra -= share
            if cost(share) != 0:
                where = f"{m.document_type or 'movement'} {m.document_number or m.id}"
                op.change("cost_adjustment", where, f"{line.item.sku} left at the old cost",
                          None, fmt(cost(share)))
                op.session.connection().execute(_ADJUST, {
                    "operation_id": op.operation_id or "", "item_id": line.item_id,
                    "location_id": po.location_id, "source_document": f"{po.number}",
                    "document_type": m.document_type, "document_number": m.document_number,
                    "amount": cost(share), "created_at": op.now})
        held += m.quantity
    return extra


def correct_purchase_receipt(op: Op, number: str, sku: str, quantity: Decimal | None,
                             unit_price: Decimal | None) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, lock=True)
    line = _line(po.lines, sku, number)
    if line.received_quantity == 0:
        raise Conflict(f"{sku} on {number} has not been received; modify the order instead",
                       field="sku")
    new_qty = line.received_quantity if quantity is None else quantity
    new_price = line.unit_price if unit_price is None else unit_price
    if new_qty > line.quantity:
        raise ValidationFailed(f"{sku}: {fmt(new_qty)} is more than the {fmt(line.quantity)} "
                               "ordered", field="quantity")
    if new_qty < line.returned_quantity:
        raise ValidationFailed(f"{sku}: {fmt(line.returned_quantity)} already went back to "
                               "the supplier", field="quantity")
    if (new_qty, new_price) == (line.received_quantity, line.unit_price):
        raise ValidationFailed("nothing to correct: give a different quantity or unit_price",
                               field="quantity" if quantity is not None else "unit_price")
    stock.prefetch(op, [line.item], po.location)
    if new_price != line.unit_price:
        bal = stock.balance(op, line.item, po.location)
        start_avg = bal.average_cost
        kept = _spread(op, po, line, new_price)
        held = line.received_quantity
        stock.post(op, Posting(line.item, po.location, held, "correction", "purchase_order",
                               number, unit_cost=new_price, field="unit_price"))
        stock.post(op, Posting(line.item, po.location, -held, "correction", "purchase_order",
                               number, exit_cost=line.unit_price, field="unit_price"))
        stock.revalue(op, line.item, po.location,
                      start_avg + kept / bal.on_hand if bal.on_hand > 0 else start_avg)
        op.change("purchase_order", number, f"line {sku} price", line.unit_price, new_price)
        line.unit_price = new_price
    delta = new_qty - line.received_quantity
    if delta > 0:
        stock.post(op, Posting(line.item, po.location, delta, "correction", "purchase_order",
                               number, unit_cost=new_price, field="quantity"))
    elif delta < 0:
        stock.post(op, Posting(line.item, po.location, delta, "correction", "purchase_order",
                               number, exit_cost=new_price, field="quantity"))
    if delta:
        op.change("purchase_order", number, f"line {sku} received", line.received_quantity,
                  new_qty)
        line.received_quantity = new_qty
    if po.status not in ("closed", "cancelled"):
        done = all(ln.received_quantity >= ln.quantity for ln in po.lines)
        status = "received" if done else "partially_received"
        op.change("purchase_order", number, "status", po.status, status)
        po.status = status
    touch(po)
    return po


def correct_shipment(op: Op, number: str, sku: str, quantity: Decimal) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    line = _line(so.lines, sku, number)
    if quantity > line.quantity:
        raise ValidationFailed(f"{sku}: {fmt(quantity)} is more than the {fmt(line.quantity)} "
                               "ordered", field="quantity")
    if quantity < line.returned_quantity:
        raise ValidationFailed(f"{sku}: {fmt(line.returned_quantity)} already came back",
                               field="quantity")
    delta = quantity - line.fulfilled_quantity
    if delta == 0:
        raise ValidationFailed(f"{sku}: {fmt(quantity)} is what was shipped", field="quantity")
    open_order = so.status not in ("closed", "cancelled")
    stock.prefetch(op, [line.item], so.location)
    if delta > 0:
        stock.post(op, Posting(line.item, so.location, -delta, "correction", "sales_order",
                               number, field="quantity"))
    else:
        unit = moved_cost(op, "sales_order", number, line.item_id, "shipment")
        stock.post(op, Posting(line.item, so.location, -delta, "correction", "sales_order",
                               number, unit_cost=unit, field="quantity"))
    if open_order:
        stock.commit(op, line.item, so.location, -delta)
    op.change("sales_order", number, f"line {sku} shipped", line.fulfilled_quantity, quantity)
    line.fulfilled_quantity = quantity
    if open_order:
        done = all(ln.fulfilled_quantity >= ln.quantity for ln in so.lines)
        status = "fulfilled" if done else (
            "open" if all(ln.fulfilled_quantity == 0 for ln in so.lines)
            else "partially_fulfilled")
        op.change("sales_order", number, "status", so.status, status)
        so.status = status
    touch(so)
    return so


def correct_manufacturing_order(op: Op, number: str, completed: Decimal
                                ) -> ManufacturingOrder:
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status == "cancelled":
        raise Conflict(f"manufacturing order {number} is cancelled", field="number")
    if completed > mo.quantity:
        raise ValidationFailed(f"{fmt(completed)} is more than the {fmt(mo.quantity)} ordered",
                               field="completed_quantity")
    delta = completed - mo.completed_quantity
    if delta == 0:
        raise ValidationFailed(f"{fmt(completed)} is what was completed",
                               field="completed_quantity")
    if delta > 0:
        return production.complete(op, number, delta)
    undo = -delta
    stock.prefetch(op, [mo.item, *(c.item for c in mo.components)], mo.location)
    made = moved_cost(op, "manufacturing_order", number, mo.item_id, "production")
    stock.post(op, Posting(mo.item, mo.location, -undo, "correction", "manufacturing_order",
                           number, exit_cost=made, field="completed_quantity"))
    for c in mo.components:
        used = c.quantity_per_unit * undo
        unit = moved_cost(op, "manufacturing_order", number, c.item_id, "consumption")
        stock.post(op, Posting(c.item, mo.location, used, "correction", "manufacturing_order",
                               number, unit_cost=unit, field="completed_quantity"))
        stock.commit(op, c.item, mo.location, used)
    op.change("manufacturing_order", number, "completed_quantity", mo.completed_quantity,
              completed)
    mo.completed_quantity = completed
    status = "in_progress" if completed > 0 else "planned"
    op.change("manufacturing_order", number, "status", mo.status, status)
    mo.status = status
    touch(mo)
    return mo
