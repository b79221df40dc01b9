"""Which ledger rows still count: every concept that reads history (returns, corrections,
trace) must skip the rows a revert undid, and the revert's own rows, the same way."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from shopfloor.store.tables import Revert, StockMovement

SHARES = ("price_correction", "landed_cost")
"""The variance kinds of re-pricing shares that left with other documents' goods."""
SHARE_BACK = "share_returned"
"""A share that came back with goods a customer returned (negative: off the expense)."""


def unreverted() -> Any:
    """Movements that still count: not written by a reverted operation or by a revert."""
    return (StockMovement.operation_id.is_(None)
            | (~StockMovement.operation_id.in_(select(Revert.reverted_operation_id))
               & ~StockMovement.operation_id.in_(select(Revert.operation_id))))


def revalued(session: Session, document_type: str, number: str, item_id: int) -> Decimal:
    """What a document's goods were re-priced by per unit since they came (its price
    corrections that still count): a revaluation row's unit cost is that change, the same
    on every balance one correction wrote."""
    rows = session.execute(select(StockMovement.operation_id, StockMovement.unit_cost).where(
        StockMovement.document_type == document_type, StockMovement.document_number == number,
        StockMovement.item_id == item_id, StockMovement.reason == "revaluation",
        StockMovement.quantity == 0, unreverted())).all()
    return sum(dict(rows).values(), Decimal(0))
