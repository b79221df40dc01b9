"""Whether a database's history still needs its journal: asked on every open, so it
imports nothing but two tables and reads one row of each."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from shopfloor.store.tables import JournalEntry, StockMovement


def needed(session: Any) -> bool:
    """A database with movements and no journal (one from before the journal, or migrated
    down and up again) is given its history's entries once."""
    if session.scalar(select(JournalEntry.id).limit(1)) is not None:
        return False
    return session.scalar(select(StockMovement.id).limit(1)) is not None
