"""Dating manufacturing orders through their operations and the work centres' calendars.

An order made from an item with a routing copies it into its own operations and is
placed with infinite capacity: forward from a start, else backward from the end of its
due date, each operation starting when the one before it finishes. Finite scheduling
(`finite`) re-places open orders in due-date order (then number) where a unit of each
work centre is free, a unit being taken too by the open orders not asked to move (they
stay where they are); `place_finite` is that rule over plain values, without a database.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import cast

from sqlalchemy import Table, bindparam, select, update

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import LIMIT
from shopfloor.domain.floor import calendar as cal
from shopfloor.domain.floor import routings, work_centres
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.kernel.numbers import HUNDRED, cost, fmt
from shopfloor.kernel.statuses import OPEN_MO, OPEN_STEP, Step
from shopfloor.store.tables import (
    ManufacturingOrder,
    OrderOperation,
    RoutingOperation,
    WorkCentre,
)


def operations_of(op: Op, order_ids: Sequence[int]) -> dict[int, list[OrderOperation]]:
    """The operations of many orders in one read per thousand, each in sequence order."""
    out: dict[int, list[OrderOperation]] = {}
    ids = list(order_ids)
    for chunk in range(0, len(ids), 1000):
        for r in op.session.scalars(
                select(OrderOperation)
                .where(OrderOperation.order_id.in_(ids[chunk:chunk + 1000]))
                .order_by(OrderOperation.order_id, OrderOperation.sequence)).unique():
            out.setdefault(r.order_id, []).append(r)
    return out


def steps(op: Op, ops: Sequence[OrderOperation]) -> list[cal.Step]:
    return [cal.Step(work_centres.calendar_of(op, o.work_centre), o.planned_minutes)
            for o in ops]


def dated(op: Op, ops: Sequence[OrderOperation], start: datetime | None,
          due: date | None) -> list[cal.Interval]:
    """Infinite-capacity dates of an order's operations: forward from `start`, else
    backward from the end of `due` (the last centre's closing time that day), else
    forward from now."""
    chain = steps(op, ops)
    if start is None and due is not None:
        end = work_centres.calendar_of(op, ops[-1].work_centre).end_of(due)
        return cal.chain_backward(chain, end)
    return cal.chain_forward(chain, start or op.now)


def route(op: Op, mo: ManufacturingOrder, start: datetime | None) -> list[OrderOperation]:
    """Copy the item's routing into a new order and date it; nothing for an item without
    a routing (its order is dated and costed as before)."""
    key = ("floor.routing", mo.item_id)  # a plan applied makes many orders of one item
    rows = op.cache.get(key)
    if rows is None:
        rows = op.cache[key] = routings.of_items(op, [mo.item_id]).get(mo.item_id, [])
    if not rows:
        return []
    ops = [OrderOperation(
        order_id=mo.id, sequence=r.sequence, name=r.name, work_centre_id=r.work_centre_id,
        work_centre=r.work_centre, setup_minutes=r.setup_minutes, run_minutes=r.run_minutes,
        planned_minutes=routings.planned_minutes(r.setup_minutes, r.run_minutes, mo.quantity,
                                                 r.work_centre.efficiency_percent),
        logged_minutes=Decimal(0), logged_quantity=Decimal(0), status=Step.planned)
        for r in rows]
    for o in ops:
        if not cal.fits(work_centres.calendar_of(op, o.work_centre), o.planned_minutes):
            raise ValidationFailed(
                f"operation {o.sequence} ({o.name}) takes {fmt(o.planned_minutes)} minutes for "
                f"{fmt(mo.quantity)}: more than ten years of working time", field="quantity")
    for o, (s, f) in zip(ops, dated(op, ops, start, mo.due_date), strict=True):
        o.planned_start, o.planned_finish = s, f
        op.change("operation", f"{mo.number}/{o.sequence}", "planned",
                  None, f"{o.name} on {o.work_centre.code}: {_at(s)} -> {_at(f)}")
    op.session.add_all(ops)
    op.change("manufacturing_order", mo.number, "planned_start", None, _at(ops[0].planned_start))
    op.change("manufacturing_order", mo.number, "planned_finish", None,
              _at(ops[-1].planned_finish))
    op.session.flush()
    return ops


def _at(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="minutes") if moment is not None else None


# -- finite capacity ---------------------------------------------------------------------

@dataclass
class Job:
    """One order to place: its key, due date, and its operations as (centre, minutes)."""

    key: str
    due: date | None
    operations: list[tuple[int, Decimal]]


FOREVER = datetime.max.replace(tzinfo=UTC)


class _Unit:
    """One unit of a centre as its idle gaps: sorted parallel lists of each gap's start,
    end and working time. A gap too short for the shortest operation to place is
    forgotten, so slivers between operations cost nothing to skip."""

    __slots__ = ("calendar", "ends", "shortest", "starts", "work")

    def __init__(self, calendar: cal.Calendar, start: datetime, shortest: timedelta,
                 busy: Sequence[cal.Interval] = ()) -> None:
        """Idle from `start` on but for `busy`, what already holds the unit and stays."""
        self.calendar, self.shortest = calendar, shortest
        self.starts: list[datetime] = []
        self.ends: list[datetime] = []
        self.work: list[timedelta] = []
        cursor = start
        for a, b in sorted(busy):
            if a > cursor:
                self._gap(cursor, a)
            cursor = max(cursor, b)
        self._gap(cursor, FOREVER)

    def _gap(self, a: datetime, b: datetime) -> None:
        w = FOREVER - a if b == FOREVER else cal.working(self.calendar, a, b)
        if w >= self.shortest and w > timedelta(0):
            self.starts.append(a)
            self.ends.append(b)
            self.work.append(w)

    def fit(self, ready: datetime, minutes: Decimal) -> tuple[datetime, datetime, int]:
        """The earliest place from `ready` in one of the unit's gaps: (start, finish, the
        gap it is in). The last gap never ends, so there always is one."""
        if not cal.fits(self.calendar, minutes):
            raise ValidationFailed(f"an operation of {fmt(minutes)} minutes does not fit in "
                                   "ten years of working time", field="orders")
        need = cal.duration(minutes)
        i = bisect_right(self.ends, ready)
        while True:
            if self.work[i] >= need:
                began, finished = cal.forward(self.calendar, max(ready, self.starts[i]),
                                              minutes)
                if finished <= self.ends[i]:
                    return began, finished, i
            i += 1

    def take(self, began: datetime, finished: datetime, i: int) -> None:
        start, end = self.starts[i], self.ends[i]
        del self.starts[i], self.ends[i], self.work[i]
        for a, b in ((finished, end), (start, began)):  # inserted at i: the later one first
            w = FOREVER - a if b == FOREVER else cal.working(self.calendar, a, b)
            if w >= self.shortest and w > timedelta(0):
                self.starts.insert(i, a)
                self.ends.insert(i, b)
                self.work.insert(i, w)


def _lanes(busy: Sequence[cal.Interval], units: int) -> list[list[cal.Interval]]:
    """What already holds a centre, shared over its units so that no unit holds two
    things at once while the centre has no more at a moment than units (an overloaded
    centre's excess goes to the unit free soonest)."""
    lanes: list[list[cal.Interval]] = [[] for _ in range(units)]
    free = [datetime.min.replace(tzinfo=UTC)] * units
    for a, b in sorted(busy):
        idle = [i for i in range(units) if free[i] <= a]
        i = max(idle, key=free.__getitem__) if idle else min(range(units),
                                                             key=free.__getitem__)
        lanes[i].append((a, b))
        free[i] = max(free[i], b)
    return lanes


def place_finite(jobs: Sequence[Job], calendars: dict[int, cal.Calendar],
                 capacity: dict[int, int], start: datetime,
                 busy: Mapping[int, Sequence[cal.Interval]] | None = None
                 ) -> dict[str, list[cal.Interval]]:
    """Each job in turn (due date, then key), each operation after the one before it, on
    the unit of its centre where it finishes first, in an idle gap if it fits in one. A
    unit runs one operation at a time, so no moment has more operations on a centre than
    it has units. `busy` is what stays where it is (orders not being placed): it holds
    its units, and the jobs go around it."""
    shortest = min((cal.duration(m) for j in jobs for _, m in j.operations),
                   default=timedelta(0))
    held = {c: [(max(a, start), b) for a, b in (busy or {}).get(c, ()) if b > start]
            for c in capacity}
    units = {c: [_Unit(calendars[c], start, shortest, lane)
                 for lane in _lanes(held[c], max(1, n))]
             for c, n in capacity.items()}
    out: dict[str, list[cal.Interval]] = {}
    for job in sorted(jobs, key=lambda j: (j.due or date.max, j.key)):
        ready = start
        placed: list[cal.Interval] = []
        for centre, minutes in job.operations:
            best: tuple[datetime, datetime, int] | None = None
            chosen = units[centre][0]
            for unit in units[centre]:
                fit = unit.fit(ready, minutes)
                if best is None or fit[1] < best[1]:
                    best, chosen = fit, unit
            assert best is not None
            chosen.take(*best)
            placed.append((best[0], best[1]))
            ready = best[1]
        out[job.key] = placed
    return out


@dataclass
class Placed:
    number: str
    due: date | None
    start: datetime | None
    finish: datetime | None
    late: bool


def open_orders(op: Op, numbers: Sequence[str] | None) -> dict[int, tuple[str, date | None]]:
    """Open orders by id (number, due date): all, or these, each missing one named."""
    mo = ManufacturingOrder.__table__
    stmt = select(mo.c.id, mo.c.number, mo.c.due_date).where(mo.c.status.in_(OPEN_MO))
    if numbers is not None:
        stmt = stmt.where(mo.c.number.in_(list(numbers)))
    orders = {i: (n, d) for i, n, d in op.session.execute(stmt)}
    if numbers is not None:
        found = {n for n, _ in orders.values()}
        for i, n in enumerate(numbers):
            if n not in found:
                raise NotFound(f"no open manufacturing order {n!r}", field=f"orders[{i}]")
    return orders


@dataclass
class Outcome:
    placed: list[Placed]
    unscheduled: list[str]
    """Orders named that have no operations: nothing to place (said, not dropped)."""


def _held(op: Op, start: datetime, placing: Mapping[int, object]
          ) -> dict[int, list[cal.Interval]]:
    """Where the open orders not being placed already run, per centre: their unfinished
    operations stay and hold their units."""
    oo, mo = cast(Table, OrderOperation.__table__), cast(Table, ManufacturingOrder.__table__)
    out: dict[int, list[cal.Interval]] = {}
    for order_id, centre, s, f in op.session.execute(
            select(oo.c.order_id, oo.c.work_centre_id, oo.c.planned_start, oo.c.planned_finish)
            .join(mo, mo.c.id == oo.c.order_id)
            .where(mo.c.status.in_(OPEN_MO), oo.c.status.in_(OPEN_STEP))):
        if order_id not in placing and s is not None and f is not None and f > start:
            out.setdefault(centre, []).append((s, f))
    return out


def finite(op: Op, start: datetime, numbers: Sequence[str] | None) -> Outcome:
    """Re-place open orders' unfinished operations with finite capacity from `start`.
    Finished operations keep their dates and take no unit; the open orders outside
    `numbers` keep theirs, and their units are taken while they run. Read and written as
    plain rows (one read per table, one executemany): the apply runs as a job that
    decides everything again, so there is no preview's row versions to keep."""
    oo = cast(Table, OrderOperation.__table__)
    orders = open_orders(op, numbers)
    ids = list(orders)
    rows: dict[int, list[tuple[int, int, Decimal, datetime | None, datetime | None, str]]] = {}
    for chunk in range(0, len(ids), 1000):
        for r in op.session.execute(
                select(oo.c.order_id, oo.c.id, oo.c.work_centre_id, oo.c.planned_minutes,
                       oo.c.planned_start, oo.c.planned_finish, oo.c.status)
                .where(oo.c.order_id.in_(ids[chunk:chunk + 1000]))
                .order_by(oo.c.order_id, oo.c.sequence)):
            rows.setdefault(r[0], []).append((r[1], r[2], r[3], r[4], r[5], r[6]))
    centres = {c.id: c for c in op.session.scalars(select(WorkCentre))}
    calendars = {i: work_centres.calendar_of(op, c) for i, c in centres.items()}
    jobs = [Job(orders[oid][0], orders[oid][1],
                [(c, m) for _, c, m, _, _, st in ops if st in OPEN_STEP])
            for oid, ops in rows.items()]
    placed = place_finite(jobs, calendars, {i: c.capacity for i, c in centres.items()}, start,
                          None if numbers is None else _held(op, start, orders))
    out: list[Placed] = []
    moved: list[dict[str, object]] = []
    for oid in sorted(rows, key=lambda o: (orders[o][1] or date.max, orders[o][0])):
        number, due = orders[oid]
        ops, todo = rows[oid], iter(placed[number])
        dates = []
        for row_id, _, _, s0, f0, st in ops:
            s, f = (s0, f0) if st not in OPEN_STEP else next(todo)
            if st in OPEN_STEP and (s0, f0) != (s, f):
                moved.append({"row": row_id, "s": s, "f": f})
            dates.append((s, f))
        first, finish = dates[0][0], dates[-1][1]
        if finish != ops[-1][4]:
            op.change("manufacturing_order", number, "planned_finish", _at(ops[-1][4]),
                      _at(finish))
        late = (due is not None and finish is not None
                and calendars[ops[-1][1]].local_date(finish) > due)
        out.append(Placed(number, due, first, finish, late))
        if len(out) % 250 == 0:
            op.progress(len(out) / max(1, len(rows)), f"placed {len(out)} orders")
    if moved:
        op.session.execute(update(oo).where(oo.c.id == bindparam("row")).values(
            planned_start=bindparam("s"), planned_finish=bindparam("f"),
            version=oo.c.version + 1), moved)
    nothing = [] if numbers is None else [orders[o][0] for o in sorted(
        (o for o in orders if o not in rows), key=lambda o: (orders[o][1] or date.max,
                                                             orders[o][0]))]
    return Outcome(out, nothing)


# -- planning ----------------------------------------------------------------------------

def _worked(minutes: Decimal) -> Decimal:
    """Minutes as an operation keeps them (to a millionth); a figure too big for that is
    left whole, for the calendar to refuse as more than it can hold."""
    return cost(minutes) if minutes < LIMIT else minutes


class Dater:
    """Every routing, read once, dating planned orders through the calendars with infinite
    capacity (as MRP does; finite scheduling is a separate step). An item without a
    routing is not here: its lead time in days still dates it.

    Consecutive operations on centres that keep the same hours are one stretch of working
    time (one after the other, nothing between them), so each such run is dated in one
    step: most routings on a shop with one calendar are one backward walk, not five."""

    def __init__(self, op: Op) -> None:
        centres = {c.id: c for c in op.session.scalars(select(WorkCentre))}
        same: dict[tuple[str, str, str], cal.Calendar] = {}
        calendars = {i: same.setdefault((repr(c.calendar), repr(c.closed_dates), c.time_zone),
                                        work_centres.calendar_of(op, c))
                     for i, c in centres.items()}
        self._routes: dict[int, list[tuple[cal.Calendar, Decimal, Decimal]]] = {}
        rows = op.session.execute(select(
            RoutingOperation.item_id, RoutingOperation.work_centre_id,
            RoutingOperation.setup_minutes, RoutingOperation.run_minutes)
            .order_by(RoutingOperation.item_id, RoutingOperation.sequence))
        for item_id, centre, setup, run in rows:
            runs = self._routes.setdefault(item_id, [])
            rate = run * HUNDRED / centres[centre].efficiency_percent
            if runs and runs[-1][0] is calendars[centre]:
                runs[-1] = (runs[-1][0], runs[-1][1] + setup, runs[-1][2] + rate)
            else:
                runs.append((calendars[centre], setup, rate))

    def routed(self, item_id: int) -> bool:
        return item_id in self._routes

    def start(self, item_id: int, quantity: Decimal, due: date) -> date:
        """The day an order must start to finish by the end of `due`."""
        runs = self._routes[item_id]
        cursor = runs[-1][0].end_of(due)
        for calendar, setup, rate in reversed(runs):
            cursor = cal.backward(calendar, cursor, _worked(setup + rate * quantity))[0]
        return runs[0][0].local_date(cursor)

    def finish(self, item_id: int, quantity: Decimal, start: date) -> date:
        """The day an order started on `start` finishes."""
        runs = self._routes[item_id]
        cursor = datetime.combine(start, time(0), runs[0][0].zone)
        for calendar, setup, rate in runs:
            cursor = cal.forward(calendar, cursor, _worked(setup + rate * quantity))[1]
        return runs[-1][0].local_date(cursor)
