"""Counts as of the moment they were taken.

A count taken at 09:00 and applied at 15:00 must not erase the day: the receipt at 14:00
is real stock the counter never saw. So a counted line posts
`counted - (on hand at counted_at)`, where on hand at a moment is today's balance minus
the ledger rows written after it. The ledger is append-only, so that figure is exact;
one grouped query per counting moment reads it for every line of the document.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, bindparam, func, select

from shopfloor.domain.base import period_lock
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import ITEMS, keyed, values
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO

CLOCK_SKEW = timedelta(minutes=5)
"""A hand-held scanner's clock may run a little ahead of the server's; beyond this, a
count 'in the future' is a typo, refused rather than read as now."""
SKEW_SAID = "5 minutes"


@functools.cache
def _first(n: int) -> Select[Any]:
    """Each item's first ledger row (by the item's ledger index), one query for them all."""
    first = (select(MOVEMENTS.c.created_at).where(MOVEMENTS.c.item_id == ITEMS.c.id)
             .order_by(MOVEMENTS.c.id).limit(1).scalar_subquery())
    return select(ITEMS.c.id, first).where(keyed(ITEMS.c.id, n))


def _first_recorded(op: Op, item_ids: Sequence[int]) -> dict[int, datetime]:
    out: dict[int, datetime] = {}
    conn = op.session.connection()
    for start in range(0, len(item_ids), 500):
        chunk = item_ids[start:start + 500]
        for item_id, at in conn.execute(_first(len(chunk)), values(ITEMS.c.id, chunk)):
            if at is not None:
                out[item_id] = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return out


@functools.cache
def _after(n: int) -> Select[Any]:
    return (select(MOVEMENTS.c.item_id, func.sum(MOVEMENTS.c.quantity))
            .where(MOVEMENTS.c.location_id == bindparam("location_id"),
                   keyed(MOVEMENTS.c.item_id, n), MOVEMENTS.c.created_at > bindparam("at"))
            .group_by(MOVEMENTS.c.item_id))


def _moved_after(op: Op, location_id: int, item_ids: Sequence[int], at: datetime
                 ) -> dict[int, Decimal]:
    rows = op.session.connection().execute(
        _after(len(item_ids)),
        {"location_id": location_id, "at": at, **values(MOVEMENTS.c.item_id, item_ids)})
    return {item_id: Decimal(total) for item_id, total in rows}


def moved_since(op: Op, location_id: int,
                counts: Iterable[tuple[int, int, datetime | None]]) -> dict[int, Decimal]:
    """For each counted line (position, item id, counted_at): the net quantity the ledger
    moved at this location after the count, to be taken off today's on hand. Lines counted
    'now' (None) have moved nothing since."""
    by_moment: dict[datetime, list[tuple[int, int]]] = defaultdict(list)
    for position, item_id, at in counts:
        if at is None:
            continue
        if at > op.now + CLOCK_SKEW:
            raise ValidationFailed(f"counted_at {at.isoformat()} is in the future (more than "
                                   f"{SKEW_SAID} ahead of {op.now.isoformat()})",
                                   field=f"lines[{position}].counted_at")
        period_lock.refuse_dated(op, at, f"lines[{position}].counted_at")
        if at < op.now:
            by_moment[at].append((position, item_id))
    _not_before_records(op, by_moment)
    out: dict[int, Decimal] = {}
    for at, lines in by_moment.items():
        ids = sorted({item_id for _, item_id in lines})
        moved: dict[int, Decimal] = {}
        for start in range(0, len(ids), 500):
            moved.update(_moved_after(op, location_id, ids[start:start + 500], at))
        for position, item_id in lines:
            out[position] = moved.get(item_id, ZERO)
    return out


def _not_before_records(op: Op, by_moment: dict[datetime, list[tuple[int, int]]]) -> None:
    """Before an item's first ledger row the books hold none of it: a count dated then
    would be set against nothing while every later row is kept, booking the counted
    stock a second time (10 counted as of 1970 against 10 on hand: +10)."""
    ids = sorted({item_id for lines in by_moment.values() for _, item_id in lines})
    first = _first_recorded(op, ids) if ids else {}
    for position, item_id, at in sorted((p, i, at) for at, lines in by_moment.items()
                                        for p, i in lines):
        began = first.get(item_id)
        if began is not None and at < began:
            raise ValidationFailed(
                f"counted_at {at.isoformat()} is before the item's first stock movement "
                f"({began.isoformat()}); the books cannot say what was on hand then",
                field=f"lines[{position}].counted_at")
