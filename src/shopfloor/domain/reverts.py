"""Undoing an applied operation by writing its opposite, never by editing history.

`revert(op, operation_id)` reads the operation from the log and its ledger rows, and
writes one reversing row per row (newest first, same item, location and lot, or outside
any lot as the row was): stock that
came in leaves at the cost it came in with (the rest re-averaged), stock that left comes
back at the cost it left with. Documents go back to the state the operation found them
in (received and shipped quantities, statuses, committed stock). Each tool's document
side is one small reverser in `REVERSERS`, the one place that says what can be undone.

Nothing is undone that something later depends on: stock that came in and has been
shipped, consumed or moved out since (it may have left at a cost that included it), an
order that moved on (closed, returned against, received since it was created). Every
such blocker is listed in one `conflict`. The revert claims its row in `reverts` first,
unique per reverted operation: of racing reverts of one operation exactly one commits,
the others are refused.

Average cost: when nothing else has moved the balance since (or everything that did has
been reverted too), the balance gets back the exact average the operation found, from
its logged before-value; otherwise the reversing rows re-average it, which is what
moving average means.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from shopfloor.domain import closing, lookup, orders, production, returns, stock
from shopfloor.domain.catalog import OPEN_MO, touch
from shopfloor.domain.context import Op
from shopfloor.domain.numbers import ZERO, fmt
from shopfloor.domain.stock import Posting
from shopfloor.registry.errors import Conflict, NotFound
from shopfloor.store.corrections_tables import Revert
from shopfloor.store.tables import Item, Location, OperationLog, StockMovement, table

REVERTS = table(Revert)
_CLAIM = insert(REVERTS)


@dataclass
class Original:
    """The operation being reverted, as the log and the ledger hold it."""

    operation_id: str
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    moves: list[StockMovement]
    session: Any
    blockers: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def before(self, entity: str, key: str, fld: str) -> str | None:
        for c in self.result.get("changes", []):
            if (c["entity"], c["key"], c["field"]) == (entity, key, fld):
                return c["before"]  # type: ignore[no-any-return]
        return None

    def moved(self, item_id: int) -> Decimal:
        return sum((m.quantity for m in self.moves if m.item_id == item_id), ZERO)


Reverser = Callable[[Op, Original], None]


def _unreverted() -> Any:
    """Movements that still count: not written by a reverted operation or by a revert."""
    return (StockMovement.operation_id.is_(None)
            | (~StockMovement.operation_id.in_(select(Revert.reverted_operation_id))
               & ~StockMovement.operation_id.in_(select(Revert.operation_id))))


def _later(o: Original, item_id: int, location_id: int) -> list[StockMovement]:
    """Rows at this balance after the operation's own that still count."""
    last = max(m.id for m in o.moves if (m.item_id, m.location_id) == (item_id, location_id))
    return list(o.session.scalars(select(StockMovement).where(
        StockMovement.item_id == item_id, StockMovement.location_id == location_id,
        StockMovement.id > last, _unreverted()).order_by(StockMovement.id)).unique())


def reverse_moves(op: Op, o: Original) -> None:
    """The reversing ledger rows, after checking no later outgoing stock depends on them."""
    if not o.moves:
        return
    by_place: dict[int, tuple[Location, list[Item]]] = {}
    for m in o.moves:
        by_place.setdefault(m.location_id, (m.location, []))[1].append(m.item)
    for location, items in by_place.values():
        stock.prefetch(op, items, location)
    nets: dict[tuple[int, int], Decimal] = defaultdict(lambda: ZERO)
    for m in o.moves:
        nets[(m.item_id, m.location_id)] += m.quantity
    start: dict[tuple[int, int], tuple[Decimal, bool]] = {}
    for (item_id, loc_id), net in nets.items():
        m = next(x for x in o.moves if (x.item_id, x.location_id) == (item_id, loc_id))
        bal = stock.balance(op, m.item, m.location)
        later = _later(o, item_id, loc_id)
        start[(item_id, loc_id)] = (bal.average_cost, bool(later))
        used = [x for x in later if x.quantity < 0]
        if net > 0 and used:
            # it may have left with this stock's cost: a supplier return or a correction
            # is the way to change it now
            named = ", ".join(f"{x.reason} {fmt(-x.quantity)} on "
                              f"{x.document_type or 'no document'} {x.document_number or ''}"
                              .rstrip() for x in used)
            o.blockers.append(f"{m.item.sku} at {m.location.code}: stock that came in has "
                              f"left since ({named}); revert those first")
    if o.blockers:
        return
    for m in reversed(o.moves):
        if m.quantity > 0:
            p = Posting(m.item, m.location, -m.quantity, "revert", m.document_type,
                        m.document_number, batch_id=m.batch_id, exit_cost=m.unit_cost,
                        pool=m.batch_id is None)
        else:
            p = Posting(m.item, m.location, -m.quantity, "revert", m.document_type,
                        m.document_number, unit_cost=m.unit_cost, batch_id=m.batch_id,
                        pool=m.batch_id is None)
        moved = stock.post(op, p)
        o.rows.append({"sku": m.item.sku, "location": m.location.code,
                       "quantity": p.quantity, "unit_cost": moved, "reason": "revert",
                       "document_type": m.document_type, "document_number": m.document_number,
                       "reverses_movement": m.id})
    for (item_id, loc_id), (avg, moved_on) in start.items():
        if moved_on:
            continue  # the balance moved on since: the reversing rows re-averaged it
        m = next(x for x in o.moves if (x.item_id, x.location_id) == (item_id, loc_id))
        key = stock.key(m.item, m.location)
        was_qty, was_avg = (o.before("stock", key, "on_hand"),
                            o.before("stock", key, "average_cost"))
        if was_qty is not None and Decimal(was_qty) != stock.balance(op, m.item,
                                                                     m.location).on_hand:
            continue
        stock.revalue(op, m.item, m.location, Decimal(was_avg) if was_avg is not None else avg)


# -- the document side, one reverser per tool -------------------------------------------
def _po_receipt(op: Op, o: Original) -> None:
    po = lookup.purchase_order(op, o.result["number"], lock=True)
    if po.status in ("closed", "cancelled"):
        o.blockers.append(f"purchase order {po.number} is {po.status} since; reopen it first")
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
        o.blockers.append(f"sales order {so.number} is {so.status} since; reopen it first")
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


def _mo_completion(op: Op, o: Original) -> None:
    mo = lookup.manufacturing_order(op, o.result["number"], lock=True)
    if mo.status == "cancelled":
        o.blockers.append(f"manufacturing order {mo.number} is cancelled since")
    made = o.moved(mo.item_id)
    stock.prefetch(op, [c.item for c in mo.components], mo.location)
    for c in mo.components:
        stock.commit(op, c.item, mo.location, -o.moved(c.item_id))
    after = mo.completed_quantity - made
    op.change("manufacturing_order", mo.number, "completed_quantity", mo.completed_quantity,
              after)
    mo.completed_quantity = after
    status = "in_progress" if after > 0 else (
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
    kind = "purchase_order" if o.tool == "close_purchase_order" else "sales_order"
    status = o.before(kind, number, "status") or "open"
    reopen = closing.reopen_purchase_order if kind == "purchase_order" else \
        closing.reopen_sales_order
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
        o.blockers.append(f"{kind.replace('_', ' ')} {number} is {doc.status} now")
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
        stock.prefetch(op, [c.item for c in doc.components], doc.location)
        for c in doc.components:
            stock.commit(op, c.item, doc.location,
                         c.quantity_per_unit * (doc.quantity - doc.completed_quantity))
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
    "delete_purchase_order": _cancelled,
    "delete_sales_order": _cancelled,
    "delete_manufacturing_order": _cancelled,
    "create_customer_return": _return,
    "create_supplier_return": _return,
}
"""Tools whose applies can be reverted. Others are refused with what to do instead."""

INSTEAD = {
    "revert_operation": "apply the original operation again",
    "update_stock_adjustment": "update the adjustment again",
    "modify_item": "modify the item again", "modify_purchase_order": "modify it again",
    "modify_sales_order": "modify it again", "update_recipe": "update the recipe again",
    "correct_purchase_receipt": "correct the receipt again",
    "correct_shipment": "correct the shipment again",
    "correct_manufacturing_order": "correct the order again",
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

