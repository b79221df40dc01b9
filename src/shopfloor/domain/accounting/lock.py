"""Closing a period: setting the lock date, reading it with its history, and the check
every write passes before its journal entries are posted.

Setting the lock is an admin's write like any other: previewed, logged, and revertible
(the revert puts back the lock it replaced). Lowering or lifting it is allowed, since an
accountant does reopen a month, but it is itself a write the log and the lock's own
history keep, and its preview says which days it reopens.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import func, insert, select

from shopfloor.domain.accounting import stamp
from shopfloor.domain.accounting.chart import chart
from shopfloor.domain.base import period_lock
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock.ledger import Ledger
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.store.tables import JournalEntry, PeriodLock, table

LOCKS = table(PeriodLock)
CORRECTING = ("correction", "revaluation")
"""Ledger reasons that change what an earlier document posted (a revert says so itself)."""
_NOTED = "period_lock.noted"


def _newest(op: Op) -> dict[str, Any] | None:
    row = op.session.connection().execute(
        select(LOCKS).order_by(LOCKS.c.id.desc()).limit(1)).mappings().first()
    return dict(row) if row is not None else None


def _said(day: date | None) -> str:
    return day.isoformat() if day is not None else "none"


def set_lock(op: Op, day: date | None, reason: str) -> dict[str, Any]:
    """A new lock date (None lifts the lock). It must be before today: a lock on today
    or later would refuse the very writes being made now."""
    today = op.now.date()
    if day is not None and day >= today:
        raise ValidationFailed(f"lock_date {day.isoformat()} is not before today "
                               f"({today.isoformat()}, UTC): only days already over can "
                               f"be closed", field="lock_date")
    previous = period_lock.lock_date(op)
    if day == previous:
        op.warn("no_change", f"the books are already locked up to {_said(day)}"
                if day else "the books are not locked", fld="lock_date")
    elif previous is not None and (day is None or day < previous):
        op.warn("reopens", f"this reopens the books from {_said(day)} to "
                f"{previous.isoformat()}: writes dated then are accepted again"
                if day else f"this lifts the lock: every day up to {previous.isoformat()} "
                f"accepts writes again", fld="lock_date")
    return _write(op, day, previous, reason)


def _write(op: Op, day: date | None, previous: date | None, reason: str) -> dict[str, Any]:
    stamp.bump(op)
    op.session.connection().execute(insert(LOCKS), {
        "lock_date": day, "previous": previous, "reason": reason, "actor": op.actor,
        "operation_id": op.operation_id, "created_at": op.now})
    op.change("period_lock", "books", "lock_date", _said(previous), _said(day))
    period_lock.forget(op)
    return {"lock_date": day, "previous": previous, "reason": reason, "set_by": op.actor,
            "set_at": op.now}


def unset(op: Op, o: Any) -> None:
    """Revert a setting: the lock it replaced comes back, unless it was set again since
    (then the newer setting is the one to change)."""
    newest = _newest(op)
    if newest is None or newest["operation_id"] != o.operation_id:
        o.blockers.append("the lock date was set again since; set it with its own tool")
        return
    back, now = newest["previous"], newest["lock_date"]
    if now is not None and (back is None or back < now):
        op.warn("reopens", f"this reopens the books from {_said(back)} to {now.isoformat()}: "
                f"writes dated then are accepted again", fld="operation_id")
    _write(op, back, now, f"revert of {o.operation_id}")


def current(op: Op, limit: int = 20) -> dict[str, Any]:
    """The lock in force and its latest settings, newest first."""
    rows = [dict(r) for r in op.session.connection().execute(
        select(LOCKS).order_by(LOCKS.c.id.desc()).limit(limit)).mappings()]
    now = rows[0] if rows else None
    return {"lock_date": now["lock_date"] if now else None,
            "set_by": now["actor"] if now else None,
            "set_at": now["created_at"] if now else None,
            "history": [{"lock_date": r["lock_date"], "previous": r["previous"],
                         "reason": r["reason"], "set_by": r["actor"],
                         "set_at": r["created_at"], "operation_id": r["operation_id"]}
                        for r in rows]}


def check(op: Op) -> None:
    """Before an operation's journal entries are posted (and in its preview, which posts
    none): no ledger row dated in the closed period, and a correction of a document the
    closed period holds says that its effect posts now."""
    book = op.session.info.get("ledger")
    if not isinstance(book, Ledger) or book.op is not op:
        return
    rows = [*book.written_moves, *book.written_variances]
    if rows:
        chart(op)  # the entry's accounts, read with the lock in one round trip
    day = period_lock.lock_date(op) if rows else None  # a write that moved nothing asks nothing
    if day is None:
        return
    first = min(r["created_at"] for r in rows)
    if period_lock.is_locked(op, first):
        op.refuse(period_lock.locked(None, first, day))
    if any(m["reason"] == "revert" for m in book.written_moves):
        return  # a revert names what it reverts itself
    noted: set[tuple[str, str]] = op.cache.setdefault(_NOTED, set())
    docs = {(r["document_type"], r["document_number"]) for r in book.written_moves
            if r["reason"] in CORRECTING and r["document_number"]}
    docs |= {(v["document_type"], v["document_number"]) for v in book.written_variances
             if v["document_number"]}
    for kind, number in sorted(docs - noted):
        noted.add((kind, number))
        oldest = op.session.connection().execute(
            select(func.min(JournalEntry.posted_at)).where(
                JournalEntry.document_number == number, JournalEntry.document_type == kind,
                JournalEntry.posted_at < period_lock.opens_at(day))).scalar()
        if oldest is not None:
            period_lock.note_after(op, oldest, f"{number}'s first entry")
