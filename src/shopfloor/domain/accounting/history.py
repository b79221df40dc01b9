"""Whether a database's history still needs its journal: asked on every open, so it
imports nothing but two tables and reads one row of each."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from shopfloor.store.tables import JournalEntry, StockMovement

_ENTRIES = select(JournalEntry.__table__.c.id).limit(1)
_MOVEMENTS = select(StockMovement.__table__.c.id).limit(1)


def needed(session: Any) -> bool:
    """A database with movements and no journal (one from before the journal, or migrated
    down and up again) is given its history's entries once.

    Asked through the tables, not the mapped classes: an ORM select configures every
    mapper first (100-160 ms on a CLI call that otherwise never configures them)."""
    if session.scalar(_ENTRIES) is not None:
        return False
    return session.scalar(_MOVEMENTS) is not None
