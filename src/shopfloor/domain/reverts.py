"""Undoing an applied operation by writing its opposite, never by editing history.

`revert(op, operation_id)` reads the operation from the log and its ledger rows, and
writes one reversing row per row (see revert_ledger: incoming leaves at the cost it came
in with, outgoing comes back at the cost it left with). Documents go back to the state
the operation found them in (received and shipped quantities, statuses, committed
stock). Each tool's document side is one small reverser in `REVERSERS`, the one place
that says what can be undone.

Nothing is undone that something later depends on: stock that came in and has been
shipped, consumed or moved out since (it may have left at a cost that included it), an
order that moved on (closed, returned against, received since it was created). Every
such blocker is listed in one `conflict`. The revert claims its row in `reverts` first,
unique per reverted operation: of racing reverts of one operation exactly one commits,
the others are refused.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from shopfloor.domain import (
    closing,
    completion,
    lookup,
    orders,
    production,
    returns,
    revert_bulk,
    revert_kinds,
    stock,
)
from shopfloor.domain.catalog import OPEN_MO, touch
from shopfloor.domain.context import Op
from shopfloor.domain.numbers import ZERO, fmt, said
from shopfloor.domain.revert_ledger import Original, Reverser, reverse_moves
from shopfloor.registry.errors import Conflict, NotFound
from shopfloor.store.corrections_tables import Revert
from shopfloor.store.tables import OperationLog, StockMovement, table

REVERTS = table(Revert)
_CLAIM = insert(REVERTS)


# -- the document side, one reverser per tool -------------------------------------------
def _po_receipt(op: Op, o: Original) -> None:
    po = lookup.purchase_order(op, o.result["number"], lock=True)
    if po.status in ("closed", "cancelled"):
        o.blockers.append(f"purchase order {po.number} is {said(po.status)} since; reopen it first")
    for ln in po.lines:
        qty = o.moved(ln.item_id)
        if qty == 0:
            continue
        after = ln.received_quantity - qty
        if after < ln.returned_quantity:
            o.blockers.append(f"{ln.item.sku}: {fmt(ln.returned_quantity)} of it was returned "
                              f"to the supplier since")
        op.change("purchase_order", po.number, f"line {ln.item.sku} received",
                  ln.received_quantity, after)
        ln.received_quantity = after
    status = "open" if all(ln.received_quantity == 0 for ln in po.lines) else \
        "partially_received"
    if po.status not in ("closed", "cancelled"):
        op.change("purchase_order", po.number, "status", po.status, status)
        po.status = status
    touch(po)
    reverse_moves(op, o)


def _so_shipment(op: Op, o: Original) -> None:
    so = lookup.sales_order(op, o.result["number"], lock=True)
    if so.status in ("closed", "cancelled"):
        o.blockers.append(f"sales order {so.number} is {said(so.status)} since; reopen it first")
    stock.prefetch(op, [ln.item for ln in so.lines], so.location)
    for ln in so.lines:
        qty = -o.moved(ln.item_id)
        if qty == 0:
            continue
        after = ln.fulfilled_quantity - qty
        if after < ln.returned_quantity:
            o.blockers.append(f"{ln.item.sku}: {fmt(ln.returned_quantity)} of it came back "
                              "from the customer since")
        op.change("sales_order", so.number, f"line {ln.item.sku} shipped",
                  ln.fulfilled_quantity, after)
        ln.fulfilled_quantity = after
        stock.commit(op, ln.item, so.location, qty)
    status = "open" if all(ln.fulfilled_quantity == 0 for ln in so.lines) else \
        "partially_fulfilled"
    if so.status not in ("closed", "cancelled"):
        op.change("sales_order", so.number, "status", so.status, status)
        so.status = status
    touch(so)
    reverse_moves(op, o)


def _scrapped(o: Original, number: str) -> Decimal:
    """What a completion scrapped: logged as the order's new scrapped quantity, or (before
    the order counted it) as `scrapped`."""
    for c in o.changes("manufacturing_order"):
        if c["key"] == number and c["field"] == "scrapped_quantity":
            return Decimal(c["after"]) - Decimal(c["before"] or 0)
        if c["key"] == number and c["field"] == "scrapped":
            return Decimal(c["after"])
    return ZERO


def _mo_completion(op: Op, o: Original) -> None:
    mo = lookup.manufacturing_order(op, o.result["number"], lock=True)
    if mo.status in ("cancelled", "closed"):
        o.blockers.append(f"manufacturing order {mo.number} is {said(mo.status)} since"
                          + ("; reopen it first" if mo.status == "closed" else ""))
    made = o.moved(mo.item_id)
    was = completion.outstanding(mo)
    after = mo.completed_quantity - made
    op.change("manufacturing_order", mo.number, "completed_quantity", mo.completed_quantity,
              after)
    mo.completed_quantity = after
    scrapped = mo.scrapped_quantity - _scrapped(o, mo.number)
    op.change("manufacturing_order", mo.number, "scrapped_quantity", mo.scrapped_quantity,
              scrapped)
    mo.scrapped_quantity = scrapped
    production.commit(op, mo, completion.outstanding(mo) - was)
    status = "done" if completion.outstanding(mo) == 0 else "in_progress" if (
        after > 0 or scrapped > 0) else (
        o.before("manufacturing_order", mo.number, "status") or "planned")
    op.change("manufacturing_order", mo.number, "status", mo.status, status)
    mo.status = status
    touch(mo)
    reverse_moves(op, o)


def _created_order(op: Op, o: Original) -> None:
    number = o.result["number"]
    try:
        if o.tool == "create_purchase_order":
            po = lookup.purchase_order(op, number, lock=True)
            if any(ln.received_quantity > 0 for ln in po.lines):
                o.blockers.append(f"purchase order {number} has been received since")
                return
            orders.cancel_purchase_order(op, number)
        elif o.tool == "create_sales_order":
            so = lookup.sales_order(op, number, lock=True)
            if any(ln.fulfilled_quantity > 0 for ln in so.lines):
                o.blockers.append(f"sales order {number} has shipped since")
                return
            orders.cancel_sales_order(op, number)
        else:
            mo = lookup.manufacturing_order(op, number, lock=True)
            if mo.completed_quantity > 0:
                o.blockers.append(f"manufacturing order {number} has produced since")
                return
            production.cancel(op, number)
    except Conflict as exc:
        o.blockers.append(exc.message)


def _close(op: Op, o: Original) -> None:
    number = o.result["number"]
    kind = o.tool.removeprefix("close_")
    status = o.before(kind, number, "status") or "open"
    reopen = {"purchase_order": closing.reopen_purchase_order,
              "sales_order": closing.reopen_sales_order,
              "manufacturing_order": closing.reopen_manufacturing_order}[kind]
    o.blockers.extend(reopen(op, number, status))


def _cancelled(op: Op, o: Original) -> None:
    """A cancel undone: back to the status it had, its stock committed again."""
    number = o.result["number"]
    if o.tool == "delete_purchase_order":
        doc: Any = lookup.purchase_order(op, number, lock=True)
        kind = "purchase_order"
    elif o.tool == "delete_sales_order":
        doc, kind = lookup.sales_order(op, number, lock=True), "sales_order"
    else:
        doc, kind = lookup.manufacturing_order(op, number, lock=True), "manufacturing_order"
    if doc.status != "cancelled":
        o.blockers.append(f"{kind.replace('_', ' ')} {number} is {said(doc.status)} now")
        return
    status = o.before(kind, number, "status") or "open"
    op.change(kind, number, "status", doc.status, status)
    doc.status = status
    if kind == "sales_order":
        stock.prefetch(op, [ln.item for ln in doc.lines], doc.location)
        for ln in doc.lines:
            if ln.quantity > ln.fulfilled_quantity:
                stock.commit(op, ln.item, doc.location, ln.quantity - ln.fulfilled_quantity)
    elif kind == "manufacturing_order" and status in OPEN_MO:
        production.commit(op, doc, completion.outstanding(doc))
    touch(doc)


def _return(op: Op, o: Original) -> None:
    kind = "customer" if o.tool == "create_customer_return" else "supplier"
    blockers, _ = returns.undo(op, kind, o.result["number"])
    o.blockers.extend(blockers)
    reverse_moves(op, o)


REVERSERS: dict[str, Reverser] = {
    "receive_purchase_order": _po_receipt,
    "fulfill_order": _so_shipment,
    "complete_manufacturing_order": _mo_completion,
    "create_stock_adjustment": reverse_moves,
    "create_stock_transfer": reverse_moves,
    "create_purchase_order": _created_order,
    "create_sales_order": _created_order,
    "create_manufacturing_order": _created_order,
    "close_purchase_order": _close,
    "close_sales_order": _close,
    "close_manufacturing_order": _close,
    "delete_purchase_order": _cancelled,
    "delete_sales_order": _cancelled,
    "delete_manufacturing_order": _cancelled,
    "create_customer_return": _return,
    "create_supplier_return": _return,
    "correct_purchase_receipt": revert_kinds.correction,
    "correct_shipment": revert_kinds.correction,
    "correct_manufacturing_order": revert_kinds.correction,
    "update_stock_adjustment": revert_kinds.adjustment_update,
    "hold_lot": revert_kinds.lot_hold,
    "release_lot": revert_kinds.lot_hold,
    "apply_mrp_plan": revert_bulk.mrp_plan,
    "import_items": revert_bulk.item_fields,
    "modify_item": revert_bulk.item_fields,
    "update_recipe": revert_bulk.recipes,
    "batch_update_recipes": revert_bulk.recipes,
}
"""Tools whose applies can be reverted. Others are refused with what to do instead."""

INSTEAD = {
    "revert_operation": "apply the original operation again",
    "rebuild_balances": "it set each balance to what its ledger rows add up to, so the "
                        "figures it replaced disagreed with the ledger; if a figure is still "
                        "wrong, post a create_stock_adjustment",
    "cancel_job": "start the job again",
}


def register(tool: str, reverser: Reverser) -> None:
    """For document kinds that live in their own module (returns, corrections)."""
    REVERSERS[tool] = reverser


def load(op: Op, operation_id: str) -> Original:
    row = op.session.scalars(select(OperationLog).where(
        OperationLog.operation_id == operation_id)).one_or_none()
    if row is None:
        raise NotFound(f"no applied operation {operation_id!r}", field="operation_id")
    moves = list(op.session.scalars(select(StockMovement).where(
        StockMovement.operation_id == operation_id).order_by(StockMovement.id)).unique())
    return Original(operation_id, row.tool, row.arguments, row.result, moves, op.session)


def claim(op: Op, o: Original) -> None:
    """The revert's row, first: a second revert of the same operation waits here for the
    first to commit, then fails on the unique index (or sees the row and stops)."""
    done = op.session.execute(select(Revert.operation_id).where(
        Revert.reverted_operation_id == o.operation_id)).scalar_one_or_none()
    if done is not None:
        raise Conflict(f"operation {o.operation_id} was already reverted by {done}",
                       field="operation_id", details={"reverted_by": done})
    try:
        op.session.connection().execute(_CLAIM, {
            "reverted_operation_id": o.operation_id, "operation_id": op.operation_id or "",
            "tool": o.tool, "actor": op.actor, "created_at": op.now})
    except IntegrityError:
        raise Conflict(f"operation {o.operation_id} was already reverted by another request",
                       field="operation_id") from None


def revert(op: Op, operation_id: str) -> Original:
    o = load(op, operation_id)
    reverser = REVERSERS.get(o.tool)
    if reverser is None:
        hint = INSTEAD.get(o.tool, "it moved no stock and changed no document a revert can "
                                   "restore; change it with its own tools")
        raise Conflict(f"{o.tool} cannot be reverted: {hint}", field="operation_id")
    claim(op, o)
    reverser(op, o)
    if o.blockers:
        raise Conflict(f"cannot revert {o.tool} {operation_id}: " + "; ".join(o.blockers),
                       field="operation_id", details={"blockers": o.blockers})
    op.change("operation", operation_id, "reverted", None, o.tool)
    return o

