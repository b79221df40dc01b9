"""The journal's one writer: every entry, whoever builds it (the per-operation drafts of
what stock moved, a supplier's bill), is checked against the period lock, proved
balanced and written with the same prepared statements here.

One writer keeps the rules an entry must satisfy in one place: a new kind of entry cannot
skip the lock or post an unbalanced entry by writing its rows itself.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from sqlalchemy import insert

from shopfloor.domain.base import period_lock
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Internal
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.bulk import executemany
from shopfloor.store.tables import JournalEntry, JournalLine

Key = tuple[str, str, int | None, int | None]
"""A line's role, account code, item and location (the last two on stock lines only)."""


@dataclass
class Draft:
    """One entry being built: its lines summed per (role, account, item, location)."""

    posted_at: datetime
    document_type: str | None
    document_number: str | None
    memo: str
    reverses: str | None = None
    counter: str = "adjustments"
    """The role that balances the entry's variances when they name no other."""
    lines: dict[Key, Decimal] = field(default_factory=lambda: defaultdict(lambda: ZERO))

    def add(self, role: str, account: str, amount: Decimal, item_id: int | None = None,
            location_id: int | None = None) -> None:
        """`amount` signed: positive a debit, negative a credit."""
        if amount:
            self.lines[(role, account, item_id, location_id)] += amount

    def posts(self) -> bool:
        return any(self.lines.values())


def write(op: Op, drafts: list[Draft], *, history: bool = False) -> None:
    """Write `drafts` as entries (in order) of `op`. `history`: a database's past, posted
    as it happened, whatever is locked now. Refuses (PeriodLocked) an entry dated on or
    before the lock; an entry whose debits and credits differ is a bug in its builder,
    never written."""
    drafts = [d for d in drafts if d.posts()]
    if not drafts:
        return
    if not history:
        period_lock.guard(op, (d.posted_at for d in drafts))
    for d in drafts:
        off = sum(d.lines.values(), ZERO)
        if off:
            raise Internal(f"the entry {d.memo!r} for {d.document_number} is off by {off}: "
                           "not posted")
    conn = op.session.connection()
    entries = [{"posted_at": d.posted_at, "operation_id": op.operation_id,
                "document_type": d.document_type, "document_number": d.document_number,
                "memo": d.memo, "reverses": d.reverses, "created_at": op.now} for d in drafts]
    # one entry (nearly every write) is one plain INSERT; several keep their order
    made = [conn.execute(_ENTRY, entries[0]).scalar_one()] if len(entries) == 1 else \
        conn.execute(_ENTRIES, entries).scalars().all()
    lines = []
    for entry_id, d in zip(made, drafts, strict=True):
        for (role, account, item_id, location_id), amount in d.lines.items():
            if amount:
                lines.append({"entry_id": entry_id, "account": account, "role": role,
                              "debit": amount if amount > 0 else ZERO,
                              "credit": -amount if amount < 0 else ZERO,
                              "item_id": item_id, "location_id": location_id,
                              "posted_at": d.posted_at})
    executemany(conn, _LINES, lines)


# Built once: a statement made per call is compiled-cache keyed again on every apply
_ENTRY = insert(JournalEntry).returning(JournalEntry.id)
_ENTRIES = insert(JournalEntry).returning(JournalEntry.id, sort_by_parameter_order=True)
_LINES = insert(JournalLine)
