"""The cents of a back-dated posting, restated at the dates after it.

The journal posts an item's stock lines as steps of its value at its place rounded to the
cent (`entries`), in the order they are written. An operation dated before rows already in
the ledger (a clock set back, a write that waited behind a later one) changes the value
at every moment after its date, not just now: 0.004 back-dated between a 0.004 and another
0.004 makes the value at the middle date 0.008 (0.01), which its own step taken from
today's value (0.008 -> 0.012: 0.01 -> 0.01, nothing) does not show. So its step is taken
from the value as at its own date, and at each later moment a row was written at, the
difference its amount makes to that moment's rounding is posted then, between the stock
account and Rounding: the stock lines as at every date equal the ledger's value as at that
date in cents, and all of them together are the step the posting makes to today's value.

Writes dated now (all but these) cost one index probe, read in the statement that writes
their entry (`dated_after`): nothing is dated after them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, ColumnElement, bindparam, func, literal_column, select

from shopfloor.domain.base.context import Op
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import StockMovement

Place = tuple[int, int]
Later = dict[Place, list[tuple[datetime, Decimal]]]
"""Per item and location: each later moment a row was written at, and what it moved then."""


def later(op: Op, places: list[Place], at: datetime) -> Later:
    """The rows written before this operation's and dated after `at`, at `places`."""
    m = StockMovement
    if not places or op.operation_id is None or _PROBE.first(
            op.session.connection(), {"at": at}) is None:
        return {}
    first = op.session.scalar(select(func.min(m.id)).where(m.operation_id == op.operation_id))
    stmt = select(m.item_id, m.location_id, m.created_at, func.sum(m.value)).where(
        m.created_at > at, m.item_id.in_(sorted({p[0] for p in places})),
        m.location_id.in_(sorted({p[1] for p in places}))).group_by(
        m.item_id, m.location_id, m.created_at).order_by(m.created_at)
    if first is not None:  # (re-posting history: the rows the journal has seen so far)
        stmt = stmt.where(m.id < first)
    wanted = set(places)
    out: Later = defaultdict(list)
    for item, loc, when, value in op.session.execute(stmt):
        if (item, loc) in wanted and value:
            out[(item, loc)].append((when, Decimal(value)))
    return dict(out)


def steps(later_rows: list[tuple[datetime, Decimal]], before: Decimal, moved: Decimal,
          to_unit: Callable[[Decimal], Decimal]) -> list[tuple[datetime, Decimal]]:
    """(moment, amount to the stock account then): the change in the rounding of the value
    `moved` makes at each later moment, over what it made at the moment before; `before`
    is the value as at the posting's own date."""
    out = []
    value = before
    made = to_unit(before + moved) - to_unit(before)
    for when, amount in later_rows:
        value += amount
        now = to_unit(value + moved) - to_unit(value)
        if now != made:
            out.append((when, now - made))
        made = now
    return out


_PROBE = Prepared(select(StockMovement.id).where(
    StockMovement.created_at > bindparam("at")).limit(1))


def dated_after(table: str) -> ColumnElement[Any]:
    """`_PROBE` as a column of the statement that writes a row of `table` (a journal
    entry), dated by that row's `posted_at`: true where a ledger row is dated after it.
    The latest date, not a row after it: a correlated probe is planned for any date
    (PostgreSQL then scans the ledger for one), the latest is one step down the index.
    Said as SQL: SQLAlchemy correlates no subquery of a RETURNING."""
    m = StockMovement.__tablename__
    return literal_column(f"((SELECT max({m}.created_at) FROM {m}) > {table}.posted_at)",
                          Boolean)
