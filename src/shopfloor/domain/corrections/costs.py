"""Re-costing stock as if a document had been right, and the lots a document moved.

When the value a document brought in was wrong (a receipt's price, a completion's
consumption), its goods are re-priced wherever they are now and the shares that already
left are expensed naming the documents that took them (`revaluation.py`): quantity-0
revaluation rows in the ledger, variances outside it. The ledger rows of the past stay
as they were read.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import revaluation
from shopfloor.domain.stock.standing import revalued, unreverted
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import Batch, StockMovement


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
        StockMovement.document_type == document_type, StockMovement.quantity != 0,
        StockMovement.document_number == number, StockMovement.item_id == item_id,
        unreverted())).all()
    qty = sum((q for q, _ in rows), ZERO)
    if not qty:
        return ZERO
    return cost(sum((q * c for q, c in rows), ZERO) / qty
                + revalued(op.session, document_type, number, item_id))


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


def recost(op: Op, item: Any, location: Any, document_type: str, number: str,
           quantity: Decimal, old_unit: Decimal, new_unit: Decimal, fld: str) -> None:
    """Re-cost what a document brought in as if it had come at `new_unit`: its goods
    re-priced wherever they are now, the shares that left expensed (revaluation.py)."""
    total = revaluation.revalue(op, item, document_type, number, new_unit - old_unit, fld).total
    op.change(document_type, number, f"{item.sku} re-priced by", None, fmt(total))
