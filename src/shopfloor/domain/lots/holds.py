"""Holding a lot (quarantine, recall) and releasing it.

A held lot stays where it is and keeps its stock; picking skips it and naming it for a
shipment or consumption is refused. A recall holds a lot and every lot made from it in one
write, and its preview says who has already received any of them: the list a quality
manager calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import bindparam, select, update

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import ITEMS
from shopfloor.domain.lots import trace
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.domain.stock.lot_ledger import BATCHES
from shopfloor.kernel.statuses import OPEN_MO, OPEN_SO
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.tables import (
    ManufacturingComponent,
    ManufacturingOrder,
    SalesOrder,
    SalesOrderLine,
)
from shopfloor.store.tracking import saw_row

_HOLD = (update(BATCHES)
         .where(BATCHES.c.id == bindparam("b_id"), BATCHES.c.version == bindparam("b_version"))
         .values(held=bindparam("b_held"), hold_reason=bindparam("b_reason"),
                 version=bindparam("b_next")))


@dataclass(frozen=True)
class OpenOrder:
    document_type: str
    number: str
    sku: str
    quantity: Decimal


@dataclass
class Hold:
    lots: list[trace.TracedLot] = field(default_factory=list)
    stock: list[trace.Remaining] = field(default_factory=list)
    open_orders: list[OpenOrder] = field(default_factory=list)
    shipped: list[trace.Party] = field(default_factory=list)


def set_hold(op: Op, sku: str, lot: str, held: bool, reason: str | None,
             downstream: bool) -> Hold:
    """Hold (or release) a lot, and with `downstream` every lot made from it."""
    found = trace.trace(op, sku, lot, "forward") if downstream else None
    start = trace.find_lot(op, sku, lot)
    if found is None:
        lots = [trace.TracedLot(sku, lot, start.expiry, start.held, 0, None, start.id)]
    else:
        lots = found.lots
    rows = {(r.sku, r.lot_number): r for r in op.session.execute(
        select(BATCHES.c.id, BATCHES.c.lot_number, BATCHES.c.held, BATCHES.c.hold_reason,
               BATCHES.c.version, ITEMS.c.sku)
        .join(ITEMS, ITEMS.c.id == BATCHES.c.item_id)
        .where(BATCHES.c.id.in_([t.batch_id for t in lots])))}
    params = []
    for t in lots:
        r = rows[(t.sku, t.lot)]
        saw_row(op.session, "batches", str(r.id), r.version)
        if r.held == held and (not held or r.hold_reason == reason):
            op.warn("no_change", f"lot {t.lot} of {t.sku} is already "
                    f"{'on hold' if held else 'released'}")
            continue
        op.change("lot", f"{t.sku}/{t.lot}", "held", r.held, held)
        if held or r.hold_reason is not None:  # a release logs the reason it clears
            op.change("lot", f"{t.sku}/{t.lot}", "hold_reason", r.hold_reason,
                      reason if held else None)
        params.append({"b_id": r.id, "b_version": r.version, "b_held": held,
                       "b_reason": reason if held else None, "b_next": r.version + 1})
    if params:
        result = op.session.connection().execute(_HOLD, params)
        if result.rowcount not in (-1, len(params)):
            raise RetryTransaction
    out = Hold(lots=[trace.TracedLot(t.sku, t.lot, t.expiry, held, t.level, t.via, t.batch_id)
                     for t in lots])
    out.stock = trace.remaining(op, {t.batch_id for t in lots})
    out.shipped = found.parties if found is not None else _shipped(op, sku, lot)
    out.open_orders = _open_orders(op, sorted({t.sku for t in lots}))
    return out


def _shipped(op: Op, sku: str, lot: str) -> list[trace.Party]:
    moves = [trace.TracedMove(m.created_at, m.sku, m.lot_number, m.code, m.quantity, m.reason,
                              m.document_type, m.document_number)
             for m in trace.moves_where(op, BATCHES.c.lot_number == lot, ITEMS.c.sku == sku,
                                   MOVEMENTS.c.reason == "shipment")]
    return trace.parties(op, moves, "forward")


def _open_orders(op: Op, skus: list[str]) -> list[OpenOrder]:
    """Open sales orders that may ship these items and open manufacturing orders that may
    consume them: the work a hold can stop."""
    items = ITEMS
    so = op.session.execute(
        select(SalesOrder.number, items.c.sku, SalesOrderLine.quantity,
               SalesOrderLine.fulfilled_quantity)
        .join(SalesOrderLine, SalesOrderLine.order_id == SalesOrder.id)
        .join(items, items.c.id == SalesOrderLine.item_id)
        .where(items.c.sku.in_(skus), SalesOrder.status.in_(OPEN_SO)))
    mo = op.session.execute(
        select(ManufacturingOrder.number, items.c.sku, ManufacturingComponent.quantity_per_unit,
               ManufacturingOrder.quantity, ManufacturingOrder.completed_quantity,
               ManufacturingOrder.scrapped_quantity)
        .join(ManufacturingComponent, ManufacturingComponent.order_id == ManufacturingOrder.id)
        .join(items, items.c.id == ManufacturingComponent.item_id)
        .where(items.c.sku.in_(skus), ManufacturingOrder.status.in_(OPEN_MO)))
    out = [OpenOrder("sales_order", r.number, r.sku, r.quantity - r.fulfilled_quantity)
           for r in so if r.quantity > r.fulfilled_quantity]
    out += [OpenOrder("manufacturing_order", r.number, r.sku,
                      r.quantity_per_unit * (r.quantity - r.completed_quantity
                                             - r.scrapped_quantity)) for r in mo]
    return out
