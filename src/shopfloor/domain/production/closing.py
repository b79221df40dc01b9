"""Closing a manufacturing order short: it keeps what it made (and scrapped) and makes no
more, so the components of the units it no longer makes are released from committed
stock. A close can be reverted (reopen) while the order has not moved on since."""

from __future__ import annotations

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.production import completion, manufacturing
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import Conflict
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import CLOSABLE_MO, MO, said
from shopfloor.store.tables import ManufacturingOrder


def close(op: Op, number: str, reason: str | None) -> ManufacturingOrder:
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status == MO.closed:
        raise Conflict(f"manufacturing order {number} is already closed", field="number")
    if mo.status not in CLOSABLE_MO:
        raise Conflict(f"manufacturing order {number} is {said(mo.status)}; only a planned "
                       "or started order closes short", field="number")
    short = completion.outstanding(mo)
    op.change("manufacturing_order", number, "outstanding", short, ZERO)
    manufacturing.reserve(op, mo, -short)
    if mo.completed_quantity == 0 and mo.scrapped_quantity == 0:
        op.warn("nothing_made", f"{number} has made nothing; closing it is the same as "
                "cancelling it")
    op.change("manufacturing_order", number, "status", mo.status, MO.closed)
    mo.status = MO.closed
    if reason:
        op.change("manufacturing_order", number, "reason", None, reason)
    touch(mo)
    return mo


def reopen(op: Op, number: str, status: str) -> list[str]:
    """Undo a close: back to the status it had, its outstanding units' components
    committed again."""
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status != MO.closed:
        return [f"manufacturing order {number} is {said(mo.status)} now, not closed"]
    manufacturing.reserve(op, mo, completion.outstanding(mo))
    op.change("manufacturing_order", number, "status", mo.status, status)
    mo.status = status
    touch(mo)
    return []


def short_of(mo: ManufacturingOrder) -> str:
    return (f"Close {mo.number} short: {fmt(mo.completed_quantity)} of {fmt(mo.quantity)} "
            f"{mo.item.sku} made, {fmt(mo.scrapped_quantity)} scrapped")
