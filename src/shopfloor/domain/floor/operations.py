"""Time on an order's operations and what it costs.

The floor reports minutes (and optionally units) against an operation, and whether it is
finished. An operation's cost is its logged minutes, or its planned minutes while none
are logged, at its work centre's hourly cost; completing an order charges its output
with that share of the operations' cost the completed units are of the order, and shows
each operation's labour variance beside the material variances.

Statuses follow the floor: the first time logged moves a planned order to in progress, and
the completion that finishes an order finishes its operations (one nobody logged is done
at its planned minutes, unless the completion says it was skipped: then it costs nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.floor import bounds, routings
from shopfloor.domain.floor.scheduling import operations_of
from shopfloor.domain.stock.counted import exact
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.statuses import MO, OPEN_MO, Step, said
from shopfloor.store.tables import ManufacturingOrder, OrderOperation


def used_minutes(o: OrderOperation) -> Decimal:
    if o.status == Step.skipped:
        return ZERO
    return o.logged_minutes if o.logged_minutes > 0 else o.planned_minutes


def planned_cost(ops: Sequence[OrderOperation]) -> Decimal:
    return sum((routings.minutes_cost(o.planned_minutes, o.work_centre.hourly_cost)
                for o in ops), ZERO)


def record(op: Op, number: str, sequence: int, minutes: Decimal, quantity: Decimal | None,
           finished: bool) -> tuple[ManufacturingOrder, OrderOperation]:
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status not in OPEN_MO:
        raise Conflict(f"manufacturing order {mo.number} is {said(mo.status)}; time can no "
                       "longer be logged on it", field="number")
    found = next((o for o in operations_of(op, [mo.id]).get(mo.id, [])
                  if o.sequence == sequence), None)
    if found is None:
        raise NotFound(f"{mo.number} has no operation {sequence}", field="sequence")
    key = f"{mo.number}/{sequence}"
    op.change("operation", key, "logged_minutes", found.logged_minutes,
              found.logged_minutes + minutes)
    found.logged_minutes += minutes
    if quantity is not None:
        exact(quantity, mo.item, "quantity")
        bounds.logged_quantity(op, mo.number, mo.quantity, found.logged_quantity, quantity)
        op.change("operation", key, "logged_quantity", found.logged_quantity,
                  found.logged_quantity + quantity)
        found.logged_quantity += quantity
    status = Step.done if finished else Step.in_progress
    if found.status != status and not (found.status == Step.done and not finished):
        op.change("operation", key, "status", found.status, status)
        found.status = status
    if mo.status == MO.planned:  # the floor has started on it
        op.change("manufacturing_order", mo.number, "status", mo.status, MO.in_progress)
        mo.status = MO.in_progress
    op.session.flush()
    return mo, found


def started(op: Op, mo: ManufacturingOrder) -> bool:
    """Has the floor logged time on the order: then it is in progress, whatever it made."""
    return any(o.logged_minutes > 0 for o in operations_of(op, [mo.id]).get(mo.id, []))


def finish(op: Op, mo: ManufacturingOrder, skipped: Sequence[int], *, all_done: bool) -> None:
    """A completion's word on the operations, before its labour is costed: the ones it
    says were skipped (never one with time logged), and, when it finishes the order, every
    other one done, at its planned minutes where none were logged."""
    ops = operations_of(op, [mo.id]).get(mo.id, [])
    by_sequence = {o.sequence: o for o in ops}
    for sequence in skipped:
        o = by_sequence.get(sequence)
        if o is None:
            raise ValidationFailed(f"{mo.number} has no operation {sequence}",
                                   field="skipped")
        if o.logged_minutes > 0 or o.status == Step.done:
            raise ValidationFailed(f"operation {sequence} ({o.name}) has "
                                   f"{fmt(o.logged_minutes)} min logged and is "
                                   f"{said(o.status)}: it was not skipped", field="skipped")
    for o in ops:
        key = f"{mo.number}/{o.sequence}"
        if o.sequence in skipped:
            status = Step.skipped
        elif all_done and o.status != Step.skipped:
            status = Step.done
            if o.logged_minutes == 0:
                op.change("operation", key, "logged_minutes", o.logged_minutes,
                          o.planned_minutes)
                o.logged_minutes = o.planned_minutes
        else:
            continue
        if o.status != status:
            op.change("operation", key, "status", o.status, status)
            o.status = status


def restore(op: Op, mo: ManufacturingOrder, changes: Sequence[dict[str, object]]) -> None:
    """A completion reverted: its operations' statuses and minutes as they were."""
    ops = {f"{mo.number}/{o.sequence}": o
           for o in operations_of(op, [mo.id]).get(mo.id, [])}
    for c in changes:
        o = ops.get(str(c["key"]))
        if o is None or c["field"] not in ("status", "logged_minutes"):
            continue
        if c["field"] == "status":
            status = Step(str(c["before"]))
            op.change("operation", str(c["key"]), "status", o.status, status)
            o.status = status
        else:
            minutes = Decimal(str(c["before"]))
            op.change("operation", str(c["key"]), "logged_minutes", o.logged_minutes, minutes)
            o.logged_minutes = minutes


@dataclass(frozen=True)
class Labour:
    name: str
    planned: Decimal
    used: Decimal
    hourly_cost: Decimal


def labour(op: Op, mo: ManufacturingOrder, made: Decimal) -> tuple[Decimal, list[Labour]]:
    """The operations' cost a completion of `made` units (good and scrapped) carries, and
    each operation's minutes against plan."""
    ops = operations_of(op, [mo.id]).get(mo.id, [])
    share = made / mo.quantity if mo.quantity else ZERO
    total = sum((routings.minutes_cost(used_minutes(o), o.work_centre.hourly_cost)
                 for o in ops), ZERO)
    return cost(total * share), [Labour(f"{o.sequence} {o.name}", o.planned_minutes,
                                        used_minutes(o), o.work_centre.hourly_cost)
                                 for o in ops]


def show(op: Op, number: str, rows: Sequence[Labour]) -> None:
    """The labour variance a person confirming a completion sees, beside the materials'."""
    for r in rows:
        if r.used == r.planned:
            continue
        delta = r.used - r.planned
        sign = "+" if delta > 0 else ""
        op.warn("variance", f"{r.name}: {fmt(r.used)} min logged against {fmt(r.planned)} "
                f"planned ({sign}{fmt(delta)} min, "
                f"{sign}{fmt(routings.minutes_cost(delta, r.hourly_cost))} "
                "at cost)")
        op.change("manufacturing_order", number, f"{r.name} minutes", r.planned, r.used)

