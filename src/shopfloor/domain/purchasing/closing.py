"""Closing a purchase order short: it keeps what it received and expects no more.

A closed purchase order no longer counts as on order (planning and low stock read only
open statuses; a sales order closes in sales/closing.py, a manufacturing order in
production/closing.py). Nothing already received is touched; the outstanding quantities
are shown in the preview so the person closing sees what is given up. A close can be
reverted (reopen), as long as the order has not moved on since.
"""

from __future__ import annotations

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.lines import rules
from shopfloor.domain.lines.rules import LineMoved, Moved
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import CLOSABLE_PO, PO, said
from shopfloor.store.tables import PurchaseOrder


def close_purchase_order(op: Op, po: PurchaseOrder, reason: str | None
                         ) -> Moved[PurchaseOrder]:
    """Close `po` short; its lines are what it no longer expects. The caller found and
    locked `po`."""
    number, start = po.number, len(op.warnings)
    rules.closable(number, "purchase order", po.status, CLOSABLE_PO,
                   " (cancel a draft instead)" if po.status == PO.draft else "")
    dropped: list[LineMoved] = []
    for ln in po.lines:
        short = ln.quantity - ln.received_quantity
        if short > 0:
            op.change("purchase_order", number, f"line {ln.item.sku} on order", short, ZERO)
            dropped.append(LineMoved(ln.item.sku, short))
    if not any(ln.received_quantity > 0 for ln in po.lines):
        op.warn("nothing_received", f"{number} has received nothing; closing it is "
                "the same as cancelling it")
    return rules.closed_short(op, "purchase_order", po, PO.closed, reason, dropped, start)


def reopen_purchase_order(op: Op, number: str, status: str) -> list[str]:
    """Undo a close: back to the status it had, on order again. Blockers, if any."""
    po = lookup.purchase_order(op, number, lock=True)
    if po.status != PO.closed:
        return [f"purchase order {number} is {said(po.status)} now, not closed"]
    rules.reopened(op, "purchase_order", po, status)
    return []
