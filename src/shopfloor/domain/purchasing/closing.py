"""Closing an order short: it keeps what it received or shipped and expects no more.

A closed purchase order no longer counts as on order (planning and low stock read only
open statuses), and a closed sales order releases the stock it still committed (a
manufacturing order closes in production/closing.py). Nothing
already moved is touched; the outstanding quantities are shown in the preview so the
person closing sees what is given up. A close can be reverted (reopen), as long as the
order has not moved on since.
"""

from __future__ import annotations

from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import Conflict
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import CLOSABLE_PO, CLOSABLE_SO, PO, SO, said
from shopfloor.store.tables import PurchaseOrder, SalesOrder


def _closable(number: str, kind: str, status: str, allowed: tuple[str, ...],
              instead: str) -> None:
    if status == "closed":  # every kind that closes short calls it that
        raise Conflict(f"{kind} {number} is already closed", field="number")
    if status not in allowed:
        raise Conflict(f"{kind} {number} is {status}; only an open or partly done order "
                       f"closes short{instead}", field="number")


def close_purchase_order(op: Op, number: str, reason: str | None) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, lock=True)
    _closable(number, "purchase order", po.status, CLOSABLE_PO,
              " (cancel a draft instead)" if po.status == PO.draft else "")
    for ln in po.lines:
        short = ln.quantity - ln.received_quantity
        if short > 0:
            op.change("purchase_order", number, f"line {ln.item.sku} on order", short, ZERO)
    if not any(ln.received_quantity > 0 for ln in po.lines):
        op.warn("nothing_received", f"{number} has received nothing; closing it is "
                "the same as cancelling it")
    op.change("purchase_order", number, "status", po.status, PO.closed)
    po.status = PO.closed
    if reason:
        po.notes = f"{po.notes}\n{reason}" if po.notes else reason
    touch(po)
    return po


def close_sales_order(op: Op, number: str, reason: str | None) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    _closable(number, "sales order", so.status, CLOSABLE_SO, "")
    stock.prefetch(op, [ln.item for ln in so.lines], so.location)
    for ln in so.lines:
        short = ln.quantity - ln.fulfilled_quantity
        if short > 0:
            op.change("sales_order", number, f"line {ln.item.sku} outstanding", short, ZERO)
            stock.reserve(op, ln.item, so.location, -short)
    op.change("sales_order", number, "status", so.status, SO.closed)
    so.status = SO.closed
    if reason:
        so.notes = f"{so.notes}\n{reason}" if so.notes else reason
    touch(so)
    return so


def reopen_purchase_order(op: Op, number: str, status: str) -> list[str]:
    """Undo a close: back to the status it had, on order again. Blockers, if any."""
    po = lookup.purchase_order(op, number, lock=True)
    if po.status != PO.closed:
        return [f"purchase order {number} is {said(po.status)} now, not closed"]
    op.change("purchase_order", number, "status", po.status, status)
    po.status = status
    touch(po)
    return []


def reopen_sales_order(op: Op, number: str, status: str) -> list[str]:
    """Undo a close: back to the status it had, its outstanding committed again."""
    so = lookup.sales_order(op, number, lock=True)
    if so.status != SO.closed:
        return [f"sales order {number} is {said(so.status)} now, not closed"]
    stock.prefetch(op, [ln.item for ln in so.lines], so.location)
    for ln in so.lines:
        short: Decimal = ln.quantity - ln.fulfilled_quantity
        if short > 0:
            stock.reserve(op, ln.item, so.location, short)
    op.change("sales_order", number, "status", so.status, status)
    so.status = status
    touch(so)
    return []


def describe(kind: str, number: str, lines: int) -> str:
    return f"Close {kind} {number} short: {lines} line{'s' * (lines != 1)} outstanding dropped"

