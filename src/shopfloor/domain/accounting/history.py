"""Whether a database's history still needs its journal: asked on every open, so it
maps no table and reads one row of each of two (by name: mapping the journal's tables
cost every open, a CLI call or an MCP server's first call, a few milliseconds for tables
a read never touches)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, column, select, table

_ENTRIES: Select[Any] = select(column("id")).select_from(table("journal_entries")).limit(1)
_MOVEMENTS: Select[Any] = select(column("id")).select_from(table("stock_movements")).limit(1)


def needed(session: Any) -> bool:
    """A database with movements and no journal (one from before the journal, or migrated
    down and up again) is given its history's entries once.

    Asked through the tables, not the mapped classes: an ORM select configures every
    mapper first (100-160 ms on a CLI call that otherwise never configures them)."""
    if session.scalar(_ENTRIES) is not None:
        return False
    return session.scalar(_MOVEMENTS) is not None
