"""The shop floor: work centres, routings, time on operations, load, finite scheduling."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints
from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.floor import load, routings, scheduling, work_centres
from shopfloor.domain.floor import operations as time_costs
from shopfloor.domain.floor.calendar import parse_minutes
from shopfloor.domain.floor.routings import Operation
from shopfloor.domain.floor.work_centres import Centre
from shopfloor.domain.production import planned
from shopfloor.domain.stock import imports
from shopfloor.kernel import keys
from shopfloor.kernel.digits import whole
from shopfloor.kernel.errors import ShopfloorError, ValidationFailed
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import (
    Item,
    ManufacturingOrder,
    OrderOperation,
    WorkCentre,
)
from shopfloor.tools.fields import (
    Amount,
    Day,
    Key,
    Moment,
    Money,
    Name,
    NonNegative,
    Out,
    Quantity,
    SearchText,
)
from shopfloor.tools.refs import NumberOrId, SkuOrId, number_of, sku_of
from shopfloor.tools.views import OperationOut, PlannedCost

tools = Toolset("floor")

MOST_SEQUENCE = 100_000
"""An operation's sequence, typed or imported: room for steps of 10 across any routing,
and far inside the column's 32 bits."""

Clock = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5)]
DayName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=12)]


class Shift(Out):
    days: list[DayName] = Field(max_length=7, description="mon ... sun")
    start: Clock = Field(description="HH:MM")
    end: Clock


class CentreFields(WriteRequest):
    name: Name | None = None
    hourly_cost: Money | None = None
    capacity: Annotated[int, Field(ge=1, le=10000)] | None = None
    efficiency_percent: Quantity | None = None
    calendar: list[Shift] | None = Field(None, max_length=50)
    closed_dates: list[Day] | None = Field(None, max_length=1000)
    time_zone: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        None, description="IANA, default UTC")

    def spec(self) -> Centre:
        return Centre(self.name, self.hourly_cost, self.capacity, self.efficiency_percent,
                      [s.model_dump() for s in self.calendar] if self.calendar is not None
                      else None, self.closed_dates, self.time_zone)


class WorkCentreOut(Out):
    code: str
    name: str
    hourly_cost: Amount
    capacity: int
    efficiency_percent: Amount
    calendar: list[Shift]
    closed_dates: list[date]
    time_zone: str


def centre_out(c: WorkCentre) -> WorkCentreOut:
    return WorkCentreOut(code=c.code, name=c.name, hourly_cost=c.hourly_cost,
                         capacity=c.capacity, efficiency_percent=c.efficiency_percent,
                         calendar=[Shift(**s) for s in c.calendar],
                         closed_dates=[date.fromisoformat(d) for d in c.closed_dates],
                         time_zone=c.time_zone)


class CreateWorkCentre(CentreFields):
    code: Key
    name: Name


@tools.write("create_work_centre", title="Create work centre", response=WorkCentreOut,
             role=Role.admin, description="A machine, line or team; default mon-fri 08-16.",
             destructive=False,
             undo=Undo.refused("change it with modify_work_centre"))
def create_work_centre(op: Op, req: CreateWorkCentre) -> Done[WorkCentreOut]:
    c = work_centres.create(op, req.code, req.spec())
    return Done(f"Create work centre {c.code} ({c.name})", centre_out(c))


class ModifyWorkCentre(CentreFields):
    code: Key


@tools.write("modify_work_centre", title="Modify work centre", response=WorkCentreOut,
             role=Role.admin, description="Change the fields given.",
             destructive=True,
             undo=Undo.refused("modify it back"))
def modify_work_centre(op: Op, req: ModifyWorkCentre) -> Done[WorkCentreOut]:
    c = work_centres.modify(op, req.code, req.spec())
    fields = ", ".join(ch.field for ch in op.changes) or "nothing"
    return Done(f"Modify work centre {c.code}: {fields}", centre_out(c))


class ListWorkCentres(Request):
    query: SearchText | None = None


class WorkCentres(Out):
    work_centres: list[WorkCentreOut]


@tools.read("list_work_centres", title="List work centres", response=WorkCentres,
            description="Work centres by code.")
def list_work_centres(op: Op, req: ListWorkCentres) -> WorkCentres:
    return WorkCentres(work_centres=[centre_out(c)
                                     for c in work_centres.listing(op, req.query)])


class GetWorkCentre(Request):
    code: Key


@tools.read("get_work_centre", title="Get work centre", response=WorkCentreOut,
            description="One work centre by code.")
def get_work_centre(op: Op, req: GetWorkCentre) -> WorkCentreOut:
    return centre_out(work_centres.get(op, req.code, fld="code"))


Minutes = NonNegative


class OperationIn(Out):
    sequence: Annotated[int, Field(ge=0, le=MOST_SEQUENCE)]
    name: Name
    work_centre: Key
    setup_minutes: Minutes = Decimal(0)
    run_minutes: Minutes = Field(Decimal(0), description="per unit")


class RoutingOut(Out):
    sku: str
    operations: list[OperationIn]


def routing_out(op: Op, item: Item) -> RoutingOut:
    rows = routings.of_items(op, [item.id]).get(item.id, [])
    return RoutingOut(sku=item.sku, operations=[
        OperationIn(sequence=r.sequence, name=r.name, work_centre=r.work_centre.code,
                    setup_minutes=_n(r.setup_minutes), run_minutes=_n(r.run_minutes))
        for r in rows])


def _n(d: Decimal) -> Decimal:
    """A stored decimal as typed (30, not 30.000000): shared in and out models print it."""
    return Decimal(fmt(d))


class UpdateRouting(SkuOrId, WriteRequest):
    operations: list[OperationIn] = Field(max_length=100)


@tools.write("update_routing", title="Update routing", response=RoutingOut, role=Role.admin,
             description="Replace an item's routing (empty: remove it).",
             destructive=True,
             undo=Undo.refused("update it back"))
def update_routing(op: Op, req: UpdateRouting) -> Done[RoutingOut]:
    item = routings.update(op, sku_of(op, req), [
        Operation(o.sequence, o.name, o.work_centre, o.setup_minutes, o.run_minutes)
        for o in req.operations])
    # answered from the request, as stored: reading the new rows back would remember their
    # ids as read, and PostgreSQL gives the apply other ids than the preview (stale)
    return Done(f"Set routing of {item.sku}: {len(req.operations)} operations", RoutingOut(
        sku=item.sku, operations=[
            OperationIn(sequence=o.sequence, name=o.name, work_centre=o.work_centre,
                        setup_minutes=_n(o.setup_minutes), run_minutes=_n(o.run_minutes))
            for o in sorted(req.operations, key=lambda o: o.sequence)]))


class GetRouting(SkuOrId, Request):
    pass


@tools.read("get_routing", title="Get routing", response=RoutingOut,
            description="An item's operations in sequence.")
def get_routing(op: Op, req: GetRouting) -> RoutingOut:
    return routing_out(op, lookup.item(op, sku_of(op, req)))


def operation_out(o: OrderOperation) -> OperationOut:
    return OperationOut(sequence=o.sequence, name=o.name, work_centre=o.work_centre.code,
                        planned_minutes=o.planned_minutes, planned_start=o.planned_start,
                        planned_finish=o.planned_finish, logged_minutes=o.logged_minutes,
                        status=o.status)


def order_floor(op: Op, mo: ManufacturingOrder) -> dict[str, Any]:
    """What get_manufacturing_order adds: the operations, their dates and the planned cost
    (the figure its creation showed, `planned.cost_of`)."""
    ops = scheduling.operations_of(op, [mo.id]).get(mo.id, [])
    plan = planned.cost_of(mo, planned.average_costs(op, mo), ops)
    return {"planned_start": ops[0].planned_start if ops else None,
            "planned_finish": ops[-1].planned_finish if ops else None,
            "operations": [operation_out(o) for o in ops],
            "planned_cost": PlannedCost(materials=plan.materials, operations=plan.operations,
                                        by_products=plan.by_products, total=plan.total)}


class RecordOperationTime(NumberOrId, WriteRequest):
    sequence: Annotated[int, Field(ge=0, le=MOST_SEQUENCE)]
    minutes: Minutes
    quantity: NonNegative | None = None
    finished: bool = False


@tools.write("record_operation_time", title="Record operation time",
             response=OperationOut, description="Log minutes on an order's operation.",
             destructive=False,
             undo=Undo.refused("logged time is what the floor reported; it stays"))
def record_operation_time(op: Op, req: RecordOperationTime) -> Done[OperationOut]:
    mo, o = time_costs.record(op, number_of(op, ManufacturingOrder, req, "manufacturing order"),
                              req.sequence, req.minutes, req.quantity, req.finished)
    return Done(f"Log {fmt(req.minutes)} min on {mo.number} operation {o.sequence} ({o.name})",
                operation_out(o))


class GetWorkCentreLoad(Request):
    work_centre: Key | None = None
    start: Day | None = None
    end: Day | None = None
    bucket: Literal["day", "week"] = "day"


class LoadRow(Out):
    work_centre: str
    period: date
    available_minutes: Amount
    planned_minutes: Amount
    load_percent: Amount | None


class Load(Out):
    rows: list[LoadRow]


@tools.read("get_work_centre_load", title="Get work centre load", response=Load,
            description="Planned against available minutes per centre and day or week.")
def get_work_centre_load(op: Op, req: GetWorkCentreLoad) -> Load:
    first = req.start or op.now.date()
    last = req.end or first + timedelta(days=13)
    if last < first or (last - first).days > 366:
        raise ValidationFailed("end: on or after start, within a year", field="end")
    centres = [work_centres.get(op, req.work_centre)] if req.work_centre \
        else work_centres.listing(op, None)
    return Load(rows=[LoadRow(work_centre=r.work_centre, period=r.period,
                              available_minutes=r.available_minutes,
                              planned_minutes=r.planned_minutes, load_percent=r.load_percent)
                      for r in load.rows(op, centres, first, last, req.bucket)])


class ScheduleOrders(WriteRequest):
    start: Moment | None = None
    orders: list[Key] | None = Field(None, max_length=10000)

    def precheck(self, op: Op) -> None:
        scheduling.open_orders(op, self.orders)


class PlacedOut(Out):
    number: str
    due_date: date | None
    planned_start: datetime | None
    planned_finish: datetime | None
    late: bool


class Schedule(Out):
    orders: list[PlacedOut]
    late: list[str]
    unscheduled: list[str] = Field(description="named, no operations to place")


@tools.write_job("schedule_manufacturing_orders", title="Schedule manufacturing orders",
                 response=Schedule, description="Finite capacity: place open orders' "
                 "operations by due date, then number, around those not named; reports "
                 "late orders. Apply is a job.",
                 destructive=True,
                 undo=Undo.refused("schedule again"), subject="the schedule")
def schedule_manufacturing_orders(op: Op, req: ScheduleOrders) -> Done[Schedule]:
    done = scheduling.finite(op, req.start or op.now, req.orders)
    placed = done.placed
    late = [p.number for p in placed if p.late]
    for number in late[:20]:
        p = next(x for x in placed if x.number == number)
        op.warn("late", f"{number} finishes {p.finish:%Y-%m-%d %H:%M}, due {p.due}")
    for number in done.unscheduled[:20]:
        op.warn("unscheduled", f"{number} has no operations to place")
    return Done(f"Schedule {len(placed)} orders: {len(late)} late"
                + (f", {len(done.unscheduled)} with nothing to place"
                   if done.unscheduled else ""),
                Schedule(orders=[PlacedOut(number=p.number, due_date=p.due,
                                           planned_start=p.start, planned_finish=p.finish,
                                           late=p.late) for p in placed], late=late,
                         unscheduled=done.unscheduled))


def _routing_cell(text: str) -> list[Operation]:
    """An import's routing cell: `seq:name:centre:setup:run` per operation, `;` between."""
    out = []
    for part in (p for p in text.split(";") if p.strip()):
        cells = [c.strip() for c in part.split(":")]
        if len(cells) != 5:
            raise ValidationFailed(f"routing: {part.strip()!r} is not seq:name:centre:setup:run",
                                   field="routing")
        seq, name, centre, setup, run = cells
        sequence = whole(seq, 6)
        if sequence is None or sequence > MOST_SEQUENCE or not name:
            raise ValidationFailed(f"routing: {part.strip()[:80]!r} needs a whole sequence "
                                   f"(0 to {MOST_SEQUENCE}) and a name", field="routing")
        out.append(Operation(sequence, name, keys.normal(centre, 64),
                             parse_minutes(setup, "routing"), parse_minutes(run, "routing")))
    return out


def routed_rows(op: Op, rows: list[imports.ImportRow | imports.Rejected]
                ) -> list[imports.ImportRow | imports.Rejected]:
    """An import's rows, a row whose routing cannot be followed rejected (naming routing)."""
    out: list[imports.ImportRow | imports.Rejected] = []
    for row in rows:
        if isinstance(row, imports.ImportRow) and row.routing:
            try:
                routings.check(op, _routing_cell(row.routing), prefix="routing")
            except ShopfloorError as exc:
                row = imports.Rejected(row.line, row.sku, exc.message, "routing")
        out.append(row)
    return out


def import_routings(op: Op, rows: list[imports.ImportRow | imports.Rejected],
                    outcomes: list[imports.Outcome]) -> None:
    """The routings of the rows the import took, replaced in one pass after it."""
    taken = {o.line for o in outcomes if o.action != "reject"}
    given = {r.sku: _routing_cell(r.routing) for r in rows
             if isinstance(r, imports.ImportRow) and r.routing and r.line in taken}
    if not given:
        return
    centres = work_centres.by_codes(op, [(o.work_centre, "routing")
                                         for ops in given.values() for o in ops])
    made = {o.sku for o in outcomes if o.action == "create"}
    ids: dict[str, int] = {sku: i for sku, i in op.session.execute(
        select(Item.sku, Item.id).where(Item.sku.in_(list(given))))}
    routings.replace(op, {ids[sku]: (sku, ops) for sku, ops in given.items()}, centres,
                     [lookup.item(op, sku) for sku in given if sku not in made])
