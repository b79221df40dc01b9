"""What the accountant reads from the journal: the trial balance and the entries.

Both are sums and pages over `journal_lines`, read from its (account, posted_at) index: a
trial balance is one grouped scan however long the history, never a walk of the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.accounting.chart import chart
from shopfloor.domain.base.context import Op
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import Item, JournalEntry, JournalLine, Location


@dataclass(frozen=True)
class Period:
    """[start, end): `start` None is the beginning of the books, `end` None is now."""

    start: datetime | None
    end: datetime | None


def _sums(op: Op, low: datetime | None, high: datetime | None
          ) -> dict[str, tuple[Decimal, Decimal]]:
    """Debits and credits per account over [low, high): one grouped range scan of the
    (account, posted_at, debit, credit) index, no expression per line."""
    line = JournalLine
    stmt = select(line.account, func.sum(line.debit), func.sum(line.credit)) \
        .group_by(line.account)
    if low is not None:
        stmt = stmt.where(line.posted_at >= low)
    if high is not None:
        stmt = stmt.where(line.posted_at < high)
    return {a: (Decimal(d or ZERO), Decimal(c or ZERO)) for a, d, c in op.session.execute(stmt)}


def trial_balance(op: Op, period: Period) -> list[dict[str, Any]]:
    """Per account: what it held before the period, what the period debited and
    credited, and what it held at its end: two grouped range scans (before the period,
    within it), each a plain sum (a CASE per line cost a period twice the whole
    history's time over a million lines)."""
    before = _sums(op, None, period.start) if period.start is not None else {}
    within = _sums(op, period.start, period.end)
    names = chart(op).names()
    out = []
    for account in sorted(before.keys() | within.keys()):
        bd, bc = before.get(account, (ZERO, ZERO))
        d, c = within.get(account, (ZERO, ZERO))
        o = bd - bc
        known = names.get(account)
        out.append({"account": account, "name": known.name if known else account,
                    "kind": known.kind if known else None, "opening": o, "debit": d,
                    "credit": c, "closing": o + d - c})
    return out


def entries(op: Op, period: Period, *, account: str | None, document: str | None,
            after: int | None, limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """A page of entries, oldest first, each with its lines; the cursor is the last
    entry's id."""
    e = JournalEntry
    stmt = select(e).order_by(e.id).limit(limit + 1)
    if period.start is not None:
        stmt = stmt.where(e.posted_at >= period.start)
    if period.end is not None:
        stmt = stmt.where(e.posted_at < period.end)
    if document is not None:
        stmt = stmt.where(e.document_number == document)
    if account is not None:
        stmt = stmt.where(e.id.in_(select(JournalLine.entry_id).where(
            JournalLine.account == account)))
    if after is not None:
        stmt = stmt.where(e.id > after)
    found = list(op.session.scalars(stmt))
    more = len(found) > limit
    found = found[:limit]
    ids = [x.id for x in found]
    lines: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    names = chart(op).names()
    if ids:
        rows = op.session.execute(
            select(JournalLine.entry_id, JournalLine.account, JournalLine.debit,
                   JournalLine.credit, Item.sku, Location.code)
            .outerjoin(Item, Item.id == JournalLine.item_id)
            .outerjoin(Location, Location.id == JournalLine.location_id)
            .where(JournalLine.entry_id.in_(ids)).order_by(JournalLine.id))
        for entry_id, acc, debit, credit, sku, loc in rows:
            known = names.get(acc)
            lines[entry_id].append({"account": acc, "name": known.name if known else acc,
                                    "debit": debit, "credit": credit, "sku": sku,
                                    "location": loc})
    out = [{"id": x.id, "posted_at": x.posted_at, "document_type": x.document_type,
            "document_number": x.document_number, "memo": x.memo,
            "operation_id": x.operation_id, "reverses": x.reverses,
            "lines": lines[x.id]} for x in found]
    return out, (ids[-1] if more and ids else None)
