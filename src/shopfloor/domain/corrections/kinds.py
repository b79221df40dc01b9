"""Reverting the writes that fix other writes: corrections, an adjustment's update, a
lot's hold or release.

A correction is undone like any write: its reversing ledger rows, its document fields
and committed stock back to what it found (each field only if it still holds what the
correction wrote, else a blocker). A correction that re-costed stock (a receipt price, a
completion's consumption) cannot be re-averaged back once the balance has moved on: it
is refused then (correct again instead); otherwise the balance gets its exact average
back and its documented cost adjustments are answered by opposite ones.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import delete, insert, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections.ledger import Original, moved_since, reverse_moves
from shopfloor.domain.purchasing import units as purchase_units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import (
    Batch,
    CostAdjustment,
    Item,
    OperationLog,
    StockAdjustmentLine,
    StockMovement,
    StockReturn,
    table,
)

_ADJUST = insert(table(CostAdjustment))
_LINES = table(StockAdjustmentLine)


def _num(text: str | None) -> Decimal:
    return Decimal(_stock_figure(text)) if text is not None else ZERO


def _stock_figure(text: str) -> str:
    return purchase_units.stock_figure(text)


def restore(op: Op, o: Original, kind: str, number: str, doc: Any,
            fields: dict[str, Any]) -> None:
    """Put back each logged field of `doc` (`fields` maps a change's field name to the
    object and attribute it is), if it still holds what the operation wrote."""
    for c in o.changes(kind):
        if c["key"] != number or c["field"] not in fields:
            continue
        target, attr = fields[c["field"]]
        now = getattr(target, attr)
        shown = fmt(now) if isinstance(now, Decimal) else str(now)
        if shown != (c["after"] if attr == "status" else _stock_figure(str(c["after"]))):
            o.blockers.append(f"{kind.replace('_', ' ')} {number} {c['field']} is {shown} now, "
                              f"not {c['after']}: it changed since")
            continue
        value: Any = c["before"] if attr == "status" else _num(c["before"])
        op.change(kind, number, c["field"], now, value)
        setattr(target, attr, value)
    touch(doc)


def commitments(op: Op, o: Original) -> None:
    """Committed stock back to what the operation found, by the difference it made."""
    for c in o.changes("stock"):
        if c["field"] != "committed":
            continue
        sku, code = c["key"].rsplit("@", 1)
        item = lookup.item(op, sku, include_archived=True)
        location = lookup.location(op, code)
        stock.reserve(op, item, location, _num(c["before"]) - _num(c["after"]))


def _recosted(o: Original) -> bool:
    return any(c["entity"] == "cost_adjustment" or c["field"].endswith((" price", "unit cost"))
               for c in o.result.get("changes", []))


def _corrected(op: Op, o: Original, restore_document: Callable[[Op, Original, str], None]
               ) -> None:
    number = o.result["number"]
    recosted = _recosted(o)
    if recosted:
        o.blockers.extend(moved_since(o))
    restore_document(op, o, number)
    commitments(op, o)
    reverse_moves(op, o)
    if recosted and not o.blockers:
        answer_adjustments(op, o)


def _moved_on(op: Op, o: Original, number: str) -> list[str]:
    """Blockers for undoing a receipt's price: goods of the order that came in, were
    corrected or went back to the supplier since did so at the corrected price, which
    putting the old price back would not give back. They are reverted first."""
    skus = [c["field"][5:-6] for c in o.changes("purchase_order")
            if c["key"] == number and c["field"].startswith("line ")
            and c["field"].endswith(" price")]
    if not skus:
        return []
    log_id = select(OperationLog.id).where(
        OperationLog.operation_id == o.operation_id).scalar_subquery()
    since = select(OperationLog.operation_id).where(OperationLog.id > log_id)
    returns = select(StockReturn.number).where(StockReturn.order_number == number,
                                               StockReturn.kind == "supplier")
    rows = op.session.scalars(select(StockMovement).join(Item).where(
        Item.sku.in_(skus), StockMovement.quantity != 0, unreverted(),
        StockMovement.operation_id.in_(since),
        ((StockMovement.document_type == "purchase_order")
         & (StockMovement.document_number == number))
        | ((StockMovement.document_type == "stock_return")
           & StockMovement.document_number.in_(returns))).order_by(StockMovement.id)).all()
    if not rows:
        return []
    what = ", ".join(f"{m.reason} {fmt(m.quantity)} of {m.item.sku} on {m.document_type} "
                     f"{m.document_number}" for m in rows)
    return [f"{number} moved goods at the corrected price since ({what}); revert those "
            "first"]


def _receipt_fields(op: Op, o: Original, number: str) -> None:
    o.blockers.extend(_moved_on(op, o, number))
    po = lookup.purchase_order(op, number, lock=True)
    fields: dict[str, Any] = {"status": (po, "status")}
    for ln in po.lines:
        fields[f"line {ln.item.sku} price"] = (ln, "unit_price")
        fields[f"line {ln.item.sku} received"] = (ln, "received_quantity")
    restore(op, o, "purchase_order", number, po, fields)
    if not o.blockers:
        for ln in po.lines:  # the figure in the line's own unit, as the log said it
            purchase_units.undo(ln, "received", o.changes("purchase_order"), number)


def _shipment_fields(op: Op, o: Original, number: str) -> None:
    so = lookup.sales_order(op, number, lock=True)
    fields: dict[str, Any] = {"status": (so, "status")}
    for sl in so.lines:
        fields[f"line {sl.item.sku} shipped"] = (sl, "fulfilled_quantity")
    restore(op, o, "sales_order", number, so, fields)


def _production_fields(op: Op, o: Original, number: str) -> None:
    mo = lookup.manufacturing_order(op, number, lock=True)
    restore(op, o, "manufacturing_order", number, mo,
            {"status": (mo, "status"), "completed_quantity": (mo, "completed_quantity")})


def receipt_correction(op: Op, o: Original) -> None:
    _corrected(op, o, _receipt_fields)


def shipment_correction(op: Op, o: Original) -> None:
    _corrected(op, o, _shipment_fields)


def production_correction(op: Op, o: Original) -> None:
    _corrected(op, o, _production_fields)


def answer_adjustments(op: Op, o: Original) -> None:
    """Cost adjustments the reverted operation wrote, answered by opposite ones."""
    rows = op.session.scalars(select(CostAdjustment).where(
        CostAdjustment.operation_id == o.operation_id).order_by(CostAdjustment.id)).all()
    for r in rows:
        op.change("cost_adjustment", f"{r.document_type} {r.document_number}",
                  "reverted", fmt(r.amount), fmt(-r.amount))
    if rows:
        op.session.connection().execute(_ADJUST, [{
            "operation_id": op.operation_id or "", "item_id": r.item_id,
            "location_id": r.location_id, "source_document": r.source_document,
            "document_type": r.document_type, "document_number": r.document_number,
            "amount": -r.amount, "created_at": op.now} for r in rows])


# -- an adjustment's update ----------------------------------------------------------------
def adjustment_update(op: Op, o: Original) -> None:
    """Back to the lines the adjustment had before the update, and their ledger effect."""
    number = o.result["number"]
    adj = lookup.stock_adjustment(op, number, lock=True)
    reason = o.before("stock_adjustment", number, "reason")
    if reason is not None:
        if adj.reason != o.result.get("reason"):
            o.blockers.append(f"stock adjustment {number} reason changed since")
        adj.reason = reason
        op.change("stock_adjustment", number, "reason", o.result.get("reason"), reason)
    if o.arguments.get("lines") is not None:
        _later_updates(op, o, number)
        previous = _previous_lines(op, o, number)
        reverse_moves(op, o)
        if not o.blockers:
            _replace_lines(op, adj, previous)
    touch(adj)


def _doc_rows(op: Op, number: str) -> list[StockMovement]:
    return list(op.session.scalars(select(StockMovement).where(
        StockMovement.document_type == "stock_adjustment",
        StockMovement.document_number == number, unreverted()).order_by(StockMovement.id)
    ).unique())


def _later_updates(op: Op, o: Original, number: str) -> None:
    last = max((m.id for m in o.moves), default=0)
    others = sorted({str(m.operation_id) for m in _doc_rows(op, number)
                     if m.id > last and m.operation_id != o.operation_id})
    for other in others:
        o.blockers.append(f"stock adjustment {number} was changed again since by operation "
                          f"{other}; revert that first")


def _previous_lines(op: Op, o: Original, number: str) -> list[dict[str, Any]]:
    """The lines as the operation before this one left them: from its logged result, the
    unit costs from its ledger rows."""
    first = min((m.id for m in o.moves), default=None)
    rows = [m for m in _doc_rows(op, number) if first is None or m.id < first]
    if not rows:
        return []
    prev_id = rows[-1].operation_id
    log = op.session.scalars(select(OperationLog).where(
        OperationLog.operation_id == prev_id)).one_or_none()
    mine = [m for m in rows if m.operation_id == prev_id]
    costs: dict[int, Decimal] = {}
    for item_id in {m.item_id for m in mine}:
        its = [m for m in mine if m.item_id == item_id]
        qty = sum((m.quantity for m in its), ZERO)
        costs[item_id] = cost(sum((m.quantity * m.unit_cost for m in its), ZERO) / qty) \
            if qty else its[0].unit_cost
    skus = {m.item.sku: m.item_id for m in mine}
    # the adjustment's own create or update logged its lines; an import did not
    lines = (log.result.get("lines") if log is not None
             and log.result.get("number") == number else None)
    if not lines:  # an import's opening stock: the net of its rows per item
        return [{"item_id": i, "quantity_delta": sum((m.quantity for m in mine
                                                      if m.item_id == i), ZERO),
                 "counted_quantity": None, "counted_at": None, "unit_cost": costs[i]}
                for i in sorted(costs)]
    out = []
    for ln in lines:
        item_id = skus.get(ln["sku"]) or lookup.item(op, ln["sku"], include_archived=True).id
        out.append({"item_id": item_id, "quantity_delta": Decimal(ln["quantity_delta"]),
                    "counted_quantity": None if ln.get("counted_quantity") is None
                    else Decimal(ln["counted_quantity"]),
                    "counted_at": datetime.fromisoformat(ln["counted_at"])
                    if ln.get("counted_at") else None,
                    "unit_cost": costs.get(item_id, ZERO)})
    return out


def _replace_lines(op: Op, adj: Any, lines: list[dict[str, Any]]) -> None:
    op.session.connection().execute(delete(_LINES).where(_LINES.c.adjustment_id == adj.id))
    op.session.expire(adj, ["lines"])
    if lines:
        op.session.connection().execute(insert(_LINES), [
            {**ln, "adjustment_id": adj.id, "position": i} for i, ln in enumerate(lines)])
    op.change("stock_adjustment", adj.number, "lines", None, f"{len(lines)} as before")


# -- lot holds and releases ----------------------------------------------------------------
def lot_hold(op: Op, o: Original) -> None:
    """Each lot back on hold (or released) as it was, if nothing changed it since."""
    held = [c for c in o.changes("lot") if c["field"] == "held"]
    reasons = {c["key"]: c["before"] for c in o.changes("lot") if c["field"] == "hold_reason"}
    for c in held:
        batch = _batch(op, c["key"])
        if batch is None or str(batch.held) != c["after"]:
            o.blockers.append(f"lot {c['key']} was held or released again since")
            continue
        batch.held = c["before"] == "True"
        # a hold logs the reason it set, a release the reason it cleared: either way the
        # reason to restore is the change's `before`
        batch.hold_reason = reasons.get(c["key"]) if batch.held else None
        op.change("lot", c["key"], "held", c["after"], c["before"])


def _batch(op: Op, key: str) -> Batch | None:
    """'SKU/LOT', either of which may hold a slash."""
    for at in range(len(key)):
        if key[at] != "/":
            continue
        found = op.session.scalars(select(Batch).join(Item, Item.id == Batch.item_id).where(
            Item.sku == key[:at], Batch.lot_number == key[at + 1:])).one_or_none()
        if found is not None:
            return found
    return None
