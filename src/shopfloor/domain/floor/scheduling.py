"""Dating manufacturing orders through their operations and the work centres' calendars.

An order made from an item with a routing copies it into its own operations and is
placed with infinite capacity: forward from a start, else backward from the end of its
due date, each operation starting when the one before it finishes. Finite scheduling
(`finite`) re-places open orders in due-date order (then number) where a unit of each
work centre is free; `place_finite` is that rule over plain values, without a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.floor import calendar as cal
from shopfloor.domain.floor import routings, work_centres
from shopfloor.kernel.errors import NotFound
from shopfloor.kernel.statuses import OPEN_MO, Step
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
    rows = routings.of_items(op, [mo.item_id]).get(mo.item_id, [])
    if not rows:
        return []
    ops = [OrderOperation(
        order_id=mo.id, sequence=r.sequence, name=r.name, work_centre_id=r.work_centre_id,
        work_centre=r.work_centre, setup_minutes=r.setup_minutes, run_minutes=r.run_minutes,
        planned_minutes=routings.planned_minutes(r.setup_minutes, r.run_minutes, mo.quantity,
                                                 r.work_centre.efficiency_percent),
        logged_minutes=Decimal(0), logged_quantity=Decimal(0), status=Step.planned)
        for r in rows]
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


def place_finite(jobs: Sequence[Job], calendars: dict[int, cal.Calendar],
                 capacity: dict[int, int], start: datetime
                 ) -> dict[str, list[cal.Interval]]:
    """Each job in turn (due date, then key), each operation after the one before it, on
    the unit of its centre that frees first. A unit runs one operation at a time, so no
    moment has more operations on a centre than it has units."""
    free: dict[int, list[datetime]] = {c: [start] * max(1, n) for c, n in capacity.items()}
    out: dict[str, list[cal.Interval]] = {}
    for job in sorted(jobs, key=lambda j: (j.due or date.max, j.key)):
        ready = start
        placed: list[cal.Interval] = []
        for centre, minutes in job.operations:
            units = free[centre]
            unit = min(range(len(units)), key=units.__getitem__)
            began, ready = cal.forward(calendars[centre], max(ready, units[unit]), minutes)
            units[unit] = ready
            placed.append((began, ready))
        out[job.key] = placed
    return out


@dataclass
class Placed:
    number: str
    due: date | None
    start: datetime | None
    finish: datetime | None
    late: bool


def finite(op: Op, start: datetime, numbers: Sequence[str] | None) -> list[Placed]:
    """Re-place open orders' unfinished operations with finite capacity from `start`.
    Finished operations keep their dates and take no unit; orders outside `numbers` are
    neither moved nor counted."""
    stmt = select(ManufacturingOrder).where(ManufacturingOrder.status.in_(OPEN_MO))
    if numbers is not None:
        stmt = stmt.where(ManufacturingOrder.number.in_(list(numbers)))
    orders = {mo.id: mo for mo in op.session.scalars(stmt).unique()}
    if numbers is not None:
        found = {mo.number for mo in orders.values()}
        for i, n in enumerate(numbers):
            if n not in found:
                raise NotFound(f"no open manufacturing order {n!r}", field=f"orders[{i}]")
    ops = operations_of(op, list(orders))
    centres = {c.id: c for c in op.session.scalars(select(WorkCentre))}
    calendars = {i: work_centres.calendar_of(op, c) for i, c in centres.items()}
    jobs = [Job(orders[oid].number, orders[oid].due_date,
                [(o.work_centre_id, o.planned_minutes) for o in rows if o.status != Step.done])
            for oid, rows in ops.items()]
    placed = place_finite(jobs, calendars, {i: c.capacity for i, c in centres.items()}, start)
    out: list[Placed] = []
    for oid, rows in sorted(ops.items(), key=lambda kv: (orders[kv[0]].due_date or date.max,
                                                          orders[kv[0]].number)):
        mo = orders[oid]
        todo = iter(placed[mo.number])
        before = rows[-1].planned_finish
        for o in rows:
            if o.status == Step.done:
                continue
            s, f = next(todo)
            if (o.planned_start, o.planned_finish) != (s, f):
                o.planned_start, o.planned_finish = s, f
        finish = rows[-1].planned_finish
        if finish != before:
            op.change("manufacturing_order", mo.number, "planned_finish", _at(before),
                      _at(finish))
        late = (mo.due_date is not None and finish is not None
                and work_centres.calendar_of(op, rows[-1].work_centre).local_date(finish)
                > mo.due_date)
        out.append(Placed(mo.number, mo.due_date, rows[0].planned_start, finish, late))
        if len(out) % 250 == 0:
            op.progress(len(out) / max(1, len(ops)), f"placed {len(out)} orders")
    op.session.flush()
    return out


# -- planning ----------------------------------------------------------------------------

class Dater:
    """Every routing, read once, dating planned orders through the calendars with infinite
    capacity (as MRP does; finite scheduling is a separate step). An item without a
    routing is not here: its lead time in days still dates it."""

    def __init__(self, op: Op) -> None:
        self._op = op
        centres = {c.id: c for c in op.session.scalars(select(WorkCentre))}
        self._calendars = {i: work_centres.calendar_of(op, c) for i, c in centres.items()}
        self._routes: dict[int, list[tuple[int, Decimal, Decimal, Decimal]]] = {}
        rows = op.session.execute(select(
            RoutingOperation.item_id, RoutingOperation.work_centre_id,
            RoutingOperation.setup_minutes, RoutingOperation.run_minutes)
            .order_by(RoutingOperation.item_id, RoutingOperation.sequence))
        for item_id, centre, setup, run in rows:
            self._routes.setdefault(item_id, []).append(
                (centre, setup, run, centres[centre].efficiency_percent))

    def routed(self, item_id: int) -> bool:
        return item_id in self._routes

    def _steps(self, item_id: int, quantity: Decimal) -> list[cal.Step]:
        return [cal.Step(self._calendars[c], routings.planned_minutes(s, r, quantity, e))
                for c, s, r, e in self._routes[item_id]]

    def start(self, item_id: int, quantity: Decimal, due: date) -> date:
        """The day an order must start to finish by the end of `due`."""
        steps = self._steps(item_id, quantity)
        first, last = steps[0].calendar, steps[-1].calendar
        return first.local_date(cal.chain_backward(steps, last.end_of(due))[0][0])

    def finish(self, item_id: int, quantity: Decimal, start: date) -> date:
        """The day an order started on `start` finishes."""
        steps = self._steps(item_id, quantity)
        begin = datetime.combine(start, time(0), steps[0].calendar.zone)
        return steps[-1].calendar.local_date(cal.chain_forward(steps, begin)[-1][1])
