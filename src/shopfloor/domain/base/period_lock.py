"""The period lock as every write reads it: the last day of the books that is closed.

It sits at the bottom of the domain because rules on every row must honour it: a count's
`counted_at` (stock) is refused before the lock as surely as the journal's own entries
(accounting). Days are UTC, as the journal's dates and the trial balance's periods are: a
lock on the 30th closes everything posted before the 1st, 00:00 UTC.

The lock is read outside the ORM, so it is not among the rows a preview's token
fingerprints: setting it does not stale every preview in flight, and an apply checks it
again all the same (it runs the whole operation again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import PeriodLocked
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import JournalEntry, PeriodLock, table

LOCKS = table(PeriodLock)
ENTRIES = table(JournalEntry)
_KEY = "period_lock"
_CONFIRM = "period_lock.confirm"
_LOCK = Prepared(select(LOCKS.c.lock_date).order_by(LOCKS.c.id.desc()).limit(1))
"""Read by every valued write: built once (a statement made per call is keyed again)."""


def lock_date(op: Op) -> date | None:
    """The lock in force (the newest setting), read once per operation."""
    if _KEY not in op.cache:
        row = _LOCK.first(op.session.connection(), {})
        op.cache[_KEY] = row[0] if row else None
    found: date | None = op.cache[_KEY]
    return found


def remember(op: Op, day: date | None, confirm: Callable[[], None] | None = None) -> None:
    """The lock as a read of this operation found it alongside other rows (the journal's
    chart), unless the operation already holds one. `confirm`: the lock was kept from an
    earlier read, and this confirms it is still the database's (or raises) before it
    refuses or warns of anything."""
    if _KEY not in op.cache:
        op.cache[_KEY] = day
        if confirm is not None:
            op.cache[_CONFIRM] = confirm


def _sure(op: Op) -> None:
    """Before the lock refuses or warns: a kept lock confirmed."""
    confirm = op.cache.pop(_CONFIRM, None)
    if confirm is not None:
        confirm()


def forget(op: Op) -> None:
    """After the lock is set within this operation."""
    op.cache.pop(_KEY, None)
    op.cache.pop(_CONFIRM, None)


def opens_at(day: date) -> datetime:
    """The first moment after a locked day: 00:00 UTC the day after."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC)


def is_locked(op: Op, moment: datetime) -> bool:
    day = lock_date(op)
    if day is None or _utc(moment) >= opens_at(day):
        return False
    _sure(op)
    return True


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def locked(field: str | None, moment: datetime | date, day: date) -> PeriodLocked:
    """`field`: the argument that dated it, or None where the books dated it themselves."""
    said = moment.isoformat()
    what = f"{field} {said}" if field else f"an entry dated {said}"
    return PeriodLocked(
        f"{what} is on or before the lock date {day.isoformat()}: the books are closed up "
        f"to the end of that day (UTC); date it after, or have an admin lower the lock",
        field=field, details={"lock_date": day.isoformat(), "dated": said})


def refuse_dated(op: Op, moment: datetime | date | None, field: str) -> None:
    """A date a person gave that dates a write (a count's `counted_at`, a bill's date):
    refused, naming the field and the lock, if it falls on or before the lock date. A
    preview shows it as a blocking warning."""
    if moment is None:
        return
    day = lock_date(op)
    if day is None:
        return
    on = _utc(moment).astimezone(UTC).date() if isinstance(moment, datetime) else moment
    if on <= day:
        _sure(op)
        op.refuse(locked(field, moment, day))


def guard(op: Op, moments: Iterable[datetime]) -> None:
    """The books' own backstop, where the journal dates its entries: whatever wrote them,
    no entry is posted dated on or before the lock."""
    day = lock_date(op)
    if day is None:
        return
    first = min((_utc(m) for m in moments), default=None)
    if first is not None and first < opens_at(day):
        _sure(op)
        raise locked(None, first, day)


def note_after(op: Op, moment: datetime, what: str) -> None:
    """Undoing or correcting something the closed period holds is allowed: its effect
    posts dated now, in the open period, and the preview says so."""
    day = lock_date(op)
    if day is not None and _utc(moment) < opens_at(day):
        _sure(op)
        op.warn("period_locked", f"{what} is dated {_utc(moment).date().isoformat()}, in the "
                f"period locked up to {day.isoformat()}: this posts its effect in the open "
                f"period, dated {op.now.date().isoformat()}")


def note_reverting(op: Op, operation_id: str, what: str) -> None:
    """A revert of an operation whose entries the closed period holds: allowed, and said."""
    if lock_date(op) is None:
        return
    first = op.session.connection().execute(
        select(func.min(ENTRIES.c.posted_at)).where(ENTRIES.c.operation_id == operation_id)
    ).scalar()
    if first is not None:
        note_after(op, first, what)
