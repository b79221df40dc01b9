"""Undoing an applied operation by writing its opposite, never by editing history.

`revert(op, operation_id)` reads the operation from the log and its ledger rows, and
writes one reversing row per row (see revert_ledger: incoming leaves at the cost it came
in with, outgoing comes back at the cost it left with). Documents go back to the state
the operation found them in (received and shipped quantities, statuses, committed
stock). Each document kind's side is one small reverser here (or in revert_kinds,
revert_bulk); a tool names its reverser on its own declaration (`undo=`), and the
revert tool hands `revert` the lookup, so nothing here knows a tool by name.

Nothing is undone that something later depends on: stock that came in and has been
shipped, consumed or moved out since (it may have left at a cost that included it), an
order that moved on (closed, returned against, received since it was created). Every
such blocker is listed in one `conflict`. The revert claims its row in `reverts` first,
unique per reverted operation: of racing reverts of one operation exactly one commits,
the others are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from shopfloor.domain.base import lookup, period_lock
from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections.ledger import (
    Original,
    Reverser,
    answer_variances,
    reverse_moves,
)
from shopfloor.domain.floor import operations as floor_time
from shopfloor.domain.lines.rules import move_status
from shopfloor.domain.orders import billed, returns
from shopfloor.domain.production import closing as mo_closing
from shopfloor.domain.production import completion
from shopfloor.domain.production import manufacturing as production
from shopfloor.domain.purchasing import closing as po_closing
from shopfloor.domain.purchasing import orders as purchases
from shopfloor.domain.purchasing import units as purchase_units
from shopfloor.domain.sales import closing as so_closing
from shopfloor.domain.sales import orders as sales
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import Conflict, NotFound
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import FINISHED_PO, FINISHED_SO, MO, OPEN_MO, PO, SO, said
from shopfloor.store.tables import (
    OperationLog,
    PurchaseOrder,
    Revert,
    SalesOrder,
    StockMovement,
    table,
)

REVERTS = table(Revert)
_CLAIM = insert(REVERTS)


# -- the document side, one reverser per kind of operation ------------------------------
def po_receipt(op: Op, o: Original) -> None:
    po = lookup.purchase_order(op, o.result["number"], lock=True)
    _reopen_first(o, "purchase order", po, FINISHED_PO)
    for ln in po.lines:
        qty = o.moved(ln.item_id)
        if qty == 0:
            continue
        after = ln.received_quantity - qty
        if after < ln.returned_quantity:
            o.blockers.append(f"{ln.item.sku}: {fmt(ln.returned_quantity)} of it was returned "
                              f"to the supplier since")
        elif after - ln.returned_quantity < (owed := billed.of(op, ln.id)):
            o.blockers.append(f"{ln.item.sku}: {fmt(owed)} of it is billed; revert the "
                              "supplier's bill first")
        was = (ln.received_quantity, ln.unit_received)
        purchase_units.undo(ln, "received", o.changes("purchase_order"), po.number)
        op.change("purchase_order", po.number, f"line {ln.item.sku} received",
                  purchase_units.said(was[0], ln, was[1]),
                  purchase_units.said(after, ln, ln.unit_received))
        ln.received_quantity = after
    _moved_back(op, o, "purchase_order", po, FINISHED_PO,
                PO.open if all(ln.received_quantity == 0 for ln in po.lines)
                else PO.partially_received)


def so_shipment(op: Op, o: Original) -> None:
    so = lookup.sales_order(op, o.result["number"], lock=True)
    _reopen_first(o, "sales order", so, FINISHED_SO)
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
        stock.reserve(op, ln.item, so.location, qty)
    _moved_back(op, o, "sales_order", so, FINISHED_SO,
                SO.open if all(ln.fulfilled_quantity == 0 for ln in so.lines)
                else SO.partially_fulfilled)


def _reopen_first(o: Original, kind: str, doc: PurchaseOrder | SalesOrder,
                  finished: tuple[str, ...]) -> None:
    """A receipt or a shipment of an order closed or cancelled since stays: undoing it
    would move a document that has ended."""
    if doc.status in finished:
        o.blockers.append(f"{kind} {doc.number} is {said(doc.status)} since; reopen it first")


def _moved_back(op: Op, o: Original, kind: str, doc: PurchaseOrder | SalesOrder,
                finished: tuple[str, ...], status: str) -> None:
    """The end of an undone receipt or shipment: the order's `status` as its lines now
    stand (an ended one keeps its own, a blocker already), then its ledger rows reversed."""
    if doc.status not in finished:
        move_status(op, kind, doc, status)
    touch(doc)
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


def mo_completion(op: Op, o: Original) -> None:
    mo = lookup.manufacturing_order(op, o.result["number"], lock=True)
    if mo.status in (MO.cancelled, MO.closed):
        o.blockers.append(f"manufacturing order {mo.number} is {said(mo.status)} since"
                          + ("; reopen it first" if mo.status == MO.closed else ""))
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
    production.reserve(op, mo, completion.outstanding(mo) - was)
    status = MO.done if completion.outstanding(mo) == 0 else MO.in_progress if (
        after > 0 or scrapped > 0) else (
        o.before("manufacturing_order", mo.number, "status") or MO.planned)
    op.change("manufacturing_order", mo.number, "status", mo.status, status)
    mo.status = status
    floor_time.restore(op, mo, o.changes("operation"))
    touch(mo)
    reverse_moves(op, o)


def _created(kind: str, op: Op, o: Original) -> None:
    """An order's creation undone: cancelled, if nothing has moved against it since."""
    number = o.result["number"]
    cancel: Callable[[], object]
    try:
        if kind == "purchase_order":
            po = lookup.purchase_order(op, number, lock=True)
            since = "has been received" if any(ln.received_quantity > 0 for ln in po.lines) else ""
            cancel = partial(purchases.cancel_purchase_order, op, po)
        elif kind == "sales_order":
            so = lookup.sales_order(op, number, lock=True)
            since = "has shipped" if any(ln.fulfilled_quantity > 0 for ln in so.lines) else ""
            cancel = partial(sales.cancel_sales_order, op, so)
        else:
            mo = lookup.manufacturing_order(op, number, lock=True)
            since = "has produced" if mo.completed_quantity > 0 else ""
            cancel = partial(production.cancel, op, number)
        if since:
            o.blockers.append(f"{kind.replace('_', ' ')} {number} {since} since")
        else:
            cancel()
    except Conflict as exc:
        o.blockers.append(exc.message)


def _closed(kind: str, op: Op, o: Original) -> None:
    number = o.result["number"]
    status = o.before(kind, number, "status") or "open"
    reopen = {"purchase_order": po_closing.reopen_purchase_order,
              "sales_order": so_closing.reopen_sales_order,
              "manufacturing_order": mo_closing.reopen}[kind]
    o.blockers.extend(reopen(op, number, status))


def _cancelled(kind: str, op: Op, o: Original) -> None:
    """A cancel undone: back to the status it had, its stock committed again."""
    number = o.result["number"]
    doc: Any
    if kind == "purchase_order":
        doc = lookup.purchase_order(op, number, lock=True)
    elif kind == "sales_order":
        doc = lookup.sales_order(op, number, lock=True)
    else:
        doc = lookup.manufacturing_order(op, number, lock=True)
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
                stock.reserve(op, ln.item, doc.location, ln.quantity - ln.fulfilled_quantity)
    elif kind == "manufacturing_order" and status in OPEN_MO:
        production.reserve(op, doc, completion.outstanding(doc))
    touch(doc)


def _returned(kind: str, op: Op, o: Original) -> None:
    blockers, _ = returns.undo(op, kind, o.result["number"], o.changes("purchase_order"))
    o.blockers.extend(blockers)
    reverse_moves(op, o)


def created(kind: str) -> Reverser:
    """Undoes the creation of a `purchase_order`, `sales_order` or `manufacturing_order`."""
    return partial(_created, kind)


def closed(kind: str) -> Reverser:
    """Undoes closing a `purchase_order`, `sales_order` or `manufacturing_order` short."""
    return partial(_closed, kind)


def cancelled(kind: str) -> Reverser:
    """Undoes cancelling (deleting) an order of this kind."""
    return partial(_cancelled, kind)


def returned(kind: str) -> Reverser:
    """Undoes a `customer` or `supplier` return."""
    return partial(_returned, kind)


moves = reverse_moves
"""Undoes an operation that only moved stock (an adjustment, a transfer)."""

Found = Reverser | str | None
"""What the revert tool's lookup answers for an operation's tool: its reverser; or why it
cannot be reverted and what to do instead; or None when the tool is unknown."""


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


def revert(op: Op, operation_id: str, undo_of: Callable[[str], Found]) -> Original:
    """`undo_of` answers, for the logged operation's tool, how to undo it."""
    o = load(op, operation_id)
    period_lock.note_reverting(op, operation_id, f"{o.tool} {operation_id}")
    reverser = undo_of(o.tool)
    if reverser is None or isinstance(reverser, str):
        hint = reverser or "no tool of that name is in the catalogue now"
        raise Conflict(f"{_said(o)} cannot be reverted: {hint}", field="operation_id")
    claim(op, o)
    reverser(op, o)
    if not o.blockers:
        answer_variances(op, o)
    if o.blockers:
        raise Conflict(f"cannot revert {_said(o)}: " + "; ".join(o.blockers),
                       field="operation_id", details={"blockers": o.blockers})
    # named as the log says it (its summary): the id is the log entry's, a link away
    op.change("operation", _said(o), "reverted", None, "yes")
    return o


def _said(o: Original) -> str:
    """The operation as a person reads it: its summary, else what it did."""
    summary = o.result.get("summary")
    return f"“{summary}”" if isinstance(summary, str) and summary else o.tool.replace("_", " ")

