"""Closing a sales order short: it keeps what it shipped and releases the stock it still
committed. Nothing already shipped is touched; the outstanding quantities are shown in
the preview so the person closing sees what is given up. A close can be reverted
(reopen), as long as the order has not moved on since.
"""

from __future__ import annotations

from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.lines import rules
from shopfloor.domain.lines.rules import LineMoved, Moved
from shopfloor.domain.stock import ledger as stock
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import CLOSABLE_SO, SO, said
from shopfloor.store.tables import SalesOrder


def close_sales_order(op: Op, so: SalesOrder, reason: str | None) -> Moved[SalesOrder]:
    """Close `so` short; its lines are what it no longer ships. The caller found and
    locked `so`."""
    number, start = so.number, len(op.warnings)
    rules.closable(number, "sales order", so.status, CLOSABLE_SO, "")
    stock.prefetch(op, [ln.item for ln in so.lines], so.location)
    dropped: list[LineMoved] = []
    for ln in so.lines:
        short = ln.quantity - ln.fulfilled_quantity
        if short > 0:
            op.change("sales_order", number, f"line {ln.item.sku} outstanding", short, ZERO)
            stock.reserve(op, ln.item, so.location, -short)
            dropped.append(LineMoved(ln.item.sku, short))
    return rules.closed_short(op, "sales_order", so, SO.closed, reason, dropped, start)


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
    rules.reopened(op, "sales_order", so, status)
    return []
