"""Load: the minutes open orders' operations put on each work centre, per day or week,
beside the minutes it has (its shifts x its units; efficiency is already in the planned
minutes, so it is not applied again here).

An operation counts on the days it works, as its calendar splits it: one that runs from
Monday 11:50 to Tuesday 09:05 on an eight-to-four centre loads 250 minutes on Monday and
65 on Tuesday. Finished operations and orders no longer open count nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.floor import calendar as cal
from shopfloor.domain.floor import work_centres
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.statuses import OPEN_MO, OPEN_STEP
from shopfloor.store.tables import ManufacturingOrder, OrderOperation, WorkCentre

PERCENT = Decimal("0.01")


@dataclass(frozen=True)
class Row:
    work_centre: str
    period: date
    available_minutes: Decimal
    planned_minutes: Decimal

    @property
    def load_percent(self) -> Decimal | None:
        if not self.available_minutes:
            return None
        return (self.planned_minutes * 100 / self.available_minutes).quantize(PERCENT)


def planned_by_day(op: Op, centres: Sequence[WorkCentre], first: date, last: date
                   ) -> dict[tuple[int, date], Decimal]:
    """Planned minutes per (centre id, local day) between two days, inclusive: one read."""
    out: dict[tuple[int, date], Decimal] = defaultdict(Decimal)
    if not centres:
        return out
    by_id = {c.id: c for c in centres}
    lo = datetime.combine(first - timedelta(days=1), time(0), UTC)
    hi = datetime.combine(last + timedelta(days=2), time(0), UTC)
    rows = op.session.execute(
        select(OrderOperation.work_centre_id, OrderOperation.planned_start,
               OrderOperation.planned_finish)
        .join(ManufacturingOrder, ManufacturingOrder.id == OrderOperation.order_id)
        .where(OrderOperation.work_centre_id.in_(list(by_id)),
               ManufacturingOrder.status.in_(OPEN_MO), OrderOperation.status.in_(OPEN_STEP),
               OrderOperation.planned_start < hi, OrderOperation.planned_finish > lo))
    for centre_id, start, finish in rows:
        if start is None or finish is None:
            continue
        calendar = work_centres.calendar_of(op, by_id[centre_id])
        for d, m in cal.minutes_by_day(calendar, start, finish).items():
            if first <= d <= last:
                out[(centre_id, d)] += m
    return out


def rows(op: Op, centres: Sequence[WorkCentre], first: date, last: date,
         bucket: str) -> list[Row]:
    planned = planned_by_day(op, centres, first, last)
    out: list[Row] = []
    for c in centres:
        calendar = work_centres.calendar_of(op, c)
        buckets: dict[date, list[Decimal]] = {}
        d = first
        while d <= last:
            period = d - timedelta(days=d.weekday()) if bucket == "week" else d
            got = buckets.setdefault(period, [Decimal(0), Decimal(0)])
            got[0] += calendar.available_minutes(d) * c.capacity
            got[1] += planned.get((c.id, d), Decimal(0))
            d += timedelta(days=1)
        out += [Row(c.code, p, a, m) for p, (a, m) in buckets.items()]
    return out


def warn_overload(op: Op, ops: Sequence[OrderOperation]) -> None:
    """A warning (not a refusal) on each day these operations put a centre past what it
    has: the order can still be made, later or with overtime, and a person should know."""
    touched: set[tuple[str, date]] = set()
    centres: dict[int, WorkCentre] = {}
    for o in ops:
        if o.planned_start is None or o.planned_finish is None:
            continue
        centres[o.work_centre_id] = o.work_centre
        calendar = work_centres.calendar_of(op, o.work_centre)
        touched |= {(o.work_centre.code, d)
                    for d in cal.minutes_by_day(calendar, o.planned_start, o.planned_finish)}
    if not touched:
        return
    days = [d for _, d in touched]
    for r in rows(op, list(centres.values()), min(days), max(days), "day"):
        if (r.work_centre, r.period) in touched and r.load_percent is not None \
                and r.load_percent > 100:
            op.warn("overload", f"{r.work_centre} on {r.period.isoformat()}: "
                    f"{fmt(r.planned_minutes)} of {fmt(r.available_minutes)} min planned "
                    f"({fmt(r.load_percent)}%)")
