"""What the accountant reads from the journal: the trial balance and the entries.

Both are sums and pages over `journal_lines`, read from its (account, posted_at) index: a
trial balance is one grouped scan however long the history, never a walk of the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import case, func, literal, select, type_coerce

from shopfloor.domain.accounting.chart import chart
from shopfloor.domain.base.context import Op
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import Item, JournalEntry, JournalLine, Location
from shopfloor.store.types import Dec


@dataclass(frozen=True)
class Period:
    """[start, end): `start` None is the beginning of the books, `end` None is now."""

    start: datetime | None
    end: datetime | None


def trial_balance(op: Op, period: Period) -> list[dict[str, Any]]:
    """Per account: what it held before the period, what the period debited and
    credited, and what it held at its end (one grouped scan of the lines up to its end)."""
    line = JournalLine
    zero = literal(ZERO, Dec())
    if period.start is None:
        opening: Any = func.sum(zero)
        debit: Any = func.sum(line.debit)
        credit: Any = func.sum(line.credit)
    else:
        before = line.posted_at < period.start
        opening = func.sum(case((before, type_coerce(line.debit - line.credit, Dec())),
                                else_=zero))
        debit = func.sum(case((before, zero), else_=line.debit))
        credit = func.sum(case((before, zero), else_=line.credit))
    stmt = select(line.account, opening, debit, credit).group_by(line.account) \
        .order_by(line.account)
    if period.end is not None:
        stmt = stmt.where(line.posted_at < period.end)
    names = chart(op).names()
    out = []
    for account, o, d, c in op.session.execute(stmt):
        o, d, c = Decimal(o or ZERO), Decimal(d or ZERO), Decimal(c or ZERO)
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
