"""Re-costing stock as if a document had been right, and the lots a document moved.

When the value a document brought in was wrong (a receipt's price, a completion's
consumption), the difference travels through every later movement of that balance:
each outgoing row takes its share (quantity / stock on hand then). The share still here
re-costs the balance; the shares that already left (shipped, consumed, moved away) at
the wrong cost are written as cost adjustments naming those documents, since their
ledger rows are history. The ledger shows the fix as a pair of value rows outside any
lot: the quantity out at the old unit cost and back in at the new one.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import Batch, StockMovement, table
from shopfloor.store.tables.corrections import CostAdjustment

_ADJUST = insert(table(CostAdjustment))


def document_lots(op: Op, document_type: str, number: str, item_id: int,
                  location_id: int) -> dict[int | None, Decimal]:
    """What a document holds of an item per lot (net of its corrections and reverts),
    by batch id; None is stock outside any lot."""
    out: dict[int | None, Decimal] = defaultdict(lambda: ZERO)
    for b, q in op.session.execute(select(StockMovement.batch_id, StockMovement.quantity).where(
            StockMovement.document_type == document_type,
            StockMovement.document_number == number, StockMovement.item_id == item_id,
            StockMovement.location_id == location_id)):
        out[b] += q
    return {b: q for b, q in out.items() if q != 0}


def document_unit(op: Op, document_type: str, number: str, item_id: int) -> Decimal:
    """The unit cost of what a document holds of an item now: its rows' value over their
    quantity (a re-costing's value pair included)."""
    rows = op.session.execute(select(StockMovement.quantity, StockMovement.unit_cost).where(
        StockMovement.document_type == document_type,
        StockMovement.document_number == number, StockMovement.item_id == item_id)).all()
    qty = sum((q for q, _ in rows), ZERO)
    return cost(sum((q * c for q, c in rows), ZERO) / qty) if qty else ZERO


def lot_names(op: Op, ids: Any) -> str:
    wanted = sorted(i for i in ids if i is not None)
    found = op.session.scalars(select(Batch.lot_number).where(Batch.id.in_(wanted))).all()
    return ", ".join(found)


def only_lot(op: Op, held: dict[int | None, Decimal], sku: str, number: str) -> int | None:
    """The one lot a document moved of an item, when the caller named none."""
    lots = [b for b in held if b is not None]
    if len(lots) == 1:
        return lots[0]
    if not lots:
        raise ValidationFailed(f"{sku} is tracked and {number} moved none of it in a lot: name "
                               "the lot", field="lot")
    raise ValidationFailed(f"{sku} moved on {number} as several lots ({lot_names(op, lots)}): "
                           "name the one to correct", field="lot")


def spread(op: Op, item: Any, location: Any, document_type: str, number: str,
           unit_diff: Decimal, source: str) -> Decimal:
    """Walk the balance's rows from the document's first incoming row on, carrying the
    value the wrong unit cost left out; returns what is still on hand of it, after
    writing the shares that left with other documents as cost adjustments."""
    rows = list(op.session.scalars(
        select(StockMovement).where(StockMovement.item_id == item.id,
                                    StockMovement.location_id == location.id)
        .order_by(StockMovement.id)).unique())
    first = next((i for i, m in enumerate(rows) if m.document_type == document_type
                  and m.document_number == number and m.quantity > 0), None)
    if first is None:
        return ZERO
    rows = rows[first:]
    on_hand = stock.balance(op, item, location).on_hand
    held = on_hand - sum((m.quantity for m in rows), ZERO)
    extra = ZERO
    for m in rows:
        if m.document_type == document_type and m.document_number == number:
            extra += m.quantity * unit_diff
        elif m.quantity < 0 and held > 0:
            share = extra * (-m.quantity) / held
            extra -= share
            if cost(share) != 0:
                where = f"{m.document_type or 'movement'} {m.document_number or m.id}"
                op.change("cost_adjustment", where, f"{item.sku} left at the old cost",
                          None, fmt(cost(share)))
                op.session.connection().execute(_ADJUST, {
                    "operation_id": op.operation_id or "", "item_id": item.id,
                    "location_id": location.id, "source_document": source,
                    "document_type": m.document_type, "document_number": m.document_number,
                    "amount": cost(share), "created_at": op.now})
        held += m.quantity
    return extra


def recost(op: Op, item: Any, location: Any, document_type: str, number: str,
           quantity: Decimal, old_unit: Decimal, new_unit: Decimal, fld: str) -> None:
    """Re-cost what a document brought in (`quantity` at `old_unit`) as if it had come at
    `new_unit`: the value pair in the ledger, the balance re-averaged with what remains
    of the difference, the rest documented as cost adjustments."""
    kept = spread(op, item, location, document_type, number, new_unit - old_unit, number)
    if stock.balance(op, item, location).on_hand > 0:
        stock.revalue(op, item, location, cost(kept), document_type, number, fld=fld)
