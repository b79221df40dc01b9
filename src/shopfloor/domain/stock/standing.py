"""Which ledger rows still count: every concept that reads history (returns, corrections,
trace) must skip the rows a revert undid, and the revert's own rows, the same way."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from shopfloor.store.tables import StockMovement
from shopfloor.store.tables.corrections import Revert


def unreverted() -> Any:
    """Movements that still count: not written by a reverted operation or by a revert."""
    return (StockMovement.operation_id.is_(None)
            | (~StockMovement.operation_id.in_(select(Revert.reverted_operation_id))
               & ~StockMovement.operation_id.in_(select(Revert.operation_id))))
