"""Remember the version of every row a transaction reads.

A preview token carries a fingerprint of these versions; the apply recomputes it by
running the same operation, so "anything the preview read has changed" is checked
exactly, with no list of dependencies kept by hand in each tool.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from shopfloor.store.tables.core import Base  # (the base, not every table: see tables/)

ReadSet = dict[tuple[str, str], int | None]


def start_tracking(session: Session) -> ReadSet:
    reads: ReadSet = {}
    session.info["reads"] = reads
    return reads


def fingerprint(reads: ReadSet) -> str:
    h = hashlib.sha256()
    for (table, ident), version in sorted(reads.items()):
        h.update(f"{table}:{ident}:{version};".encode())
    return h.hexdigest()[:32]


@event.listens_for(Base, "load", propagate=True)
def _on_load(target: Any, context: Any) -> None:
    reads: ReadSet | None = context.session.info.get("reads")
    if reads is None:
        return
    state = inspect(target)
    key = (state.mapper.local_table.name, ",".join(map(str, state.identity or ())))
    reads.setdefault(key, getattr(target, "version", None))


def reads_of(session: Session) -> ReadSet | None:
    """The read set being kept (None: not tracking), for a loop that remembers many rows:
    looked up once, then `remember` per row."""
    reads: ReadSet | None = session.info.get("reads")
    return reads


def remember(reads: ReadSet | None, table: str, ident: str, version: int | None) -> None:
    """Remember a row's version in `reads`, exactly as a loaded entity would be."""
    if reads is not None:
        reads.setdefault((table, ident), version)


def saw_row(session: Session, table: str, ident: str, version: int | None) -> None:
    """A row read outside the ORM (the batched write path reads plain rows)."""
    remember(reads_of(session), table, ident, version)
