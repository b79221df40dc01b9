"""Planning: an item's time-phased record (get_projected_stock), and MRP as a background
job and applying its plan (all its orders in one transaction)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from pydantic import Field
from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import bulk as revert_bulk
from shopfloor.domain.planning import mrp, pegging, projection
from shopfloor.domain.production import manufacturing as production
from shopfloor.domain.purchasing import orders
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.statuses import PO, JobState
from shopfloor.registry.facts import Undo
from shopfloor.registry.jobs import JobContext
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store import queue
from shopfloor.store.tables import Location, ManufacturingOrder
from shopfloor.tools.fields import Amount, Day, JobId, Key, Out, ResultDay
from shopfloor.tools.jobs import MRP_KIND, job_row
from shopfloor.tools.refs import SkuOrId, sku_of

tools = Toolset("planning")


class ProjectedQuery(SkuOrId, Request):
    location: Key | None = None
    until: Day | None = None
    include_planned: bool = Field(False, description="the last unapplied MRP plan's orders")
    today: Day | None = None


class ProjectedRow(Out):
    date: date
    kind: str
    document: str | None
    incoming: Amount
    outgoing: Amount
    balance: Amount
    document_date: ResultDay | None = Field(None, description="its own date, if past")
    for_sku: str | None = None


class ProjectedOut(Out):
    sku: str
    location: str | None
    today: date
    on_hand: Amount
    safety_stock: Amount
    lead_time_days: int
    rows: list[ProjectedRow]
    end_balance: Amount
    first_short: date | None
    below_safety: date | None
    plan_job: str | None = None


@tools.read("get_projected_stock", title="Projected stock",
            description="An item's time-phased record: on hand, then each open order's "
                        "dated supply and demand, with the balance after each.",
            response=ProjectedOut)
def get_projected_stock(op: Op, req: ProjectedQuery) -> ProjectedOut:
    today = req.today or op.now.date()
    rec = projection.record(op, sku_of(op, req), today=today, location=req.location,
                            until=req.until, planned=req.include_planned)
    rows = [ProjectedRow(date=r.date, kind=r.kind, document=r.document, incoming=r.incoming,
                         outgoing=r.outgoing, balance=r.balance, document_date=r.due,
                         for_sku=r.sku) for r in rec.rows]
    balances = [(today, rec.on_hand), *((r.date, r.balance) for r in rec.rows)]
    safety = rec.item.safety
    return ProjectedOut(
        sku=rec.item.sku, location=req.location, today=today, on_hand=rec.on_hand,
        safety_stock=safety, lead_time_days=rec.item.lead, rows=rows, end_balance=rec.end,
        first_short=next((d for d, b in balances if b < 0), None),
        below_safety=next((d for d, b in balances if b < safety), None) if safety else None,
        plan_job=rec.plan)


class Started(Out):
    job_id: str
    status: str
    kind: str
    summary: str


class RunMrp(Request):
    location: Key | None = Field(None, description="where planned orders go (default: first)")
    today: Day | None = Field(None, description="plan as of this date (default: today)")


def plan_in_background(ctx: JobContext) -> dict[str, Any]:
    """MRP as a job: reads the whole company in one snapshot and returns the plan."""
    today = date.fromisoformat(ctx.arguments["today"]) if ctx.arguments.get("today") \
        else date.today()
    with ctx.store.reading() as session:
        op = Op(session, ctx.actor, datetime.now(UTC), dialect=ctx.store.dialect)
        result = mrp.plan(op, today=today, location=ctx.arguments.get("location"),
                               progress=ctx.progress)
    mos, pos = result["manufacturing_orders"], result["purchase_orders"]
    lines = sum(len(p["lines"]) for p in pos)
    result["summary"] = (f"MRP: {len(mos)} manufacturing orders and {lines} purchase lines "
                         f"from {len(pos)} suppliers suggested")
    return result


@tools.job("run_mrp", everyday=True,
           title="Run MRP", response=Started, runs=(MRP_KIND, plan_in_background),
           description="Plan purchases and production from open demand, reorder points, "
                       "recipes and lead times. Starts a job; its result is the plan.")
def run_mrp(op: Op, req: RunMrp) -> Started:
    if req.location:
        lookup.location(op, req.location)
    args = {"location": req.location, "today": req.today.isoformat() if req.today else None}
    job = queue.enqueue(op.session, MRP_KIND, args, op.actor)
    return Started(job_id=job.id, status=job.status, kind=job.kind,
                   summary=f"MRP queued as job {job.id}")


class ApplyMrpPlan(WriteRequest):
    job_id: JobId = Field(description="a finished MRP run")
    refs: list[Key] | None = Field(None, max_length=5000,
                                   description="only these planned orders, by their ref in "
                                               "the plan (P1, P2 ...)")
    only: list[Key] | None = Field(None, max_length=5000,
                                   description="only these SKUs (all their planned orders)")
    location: Key | None = Field(None, description="default: the plan's, else the first")


class PlanApplied(Out):
    purchase_orders: list[str]
    manufacturing_orders: list[str]


def _planned(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [*plan.get("manufacturing_orders", []),
            *(ln for g in plan.get("purchase_orders", []) for ln in g["lines"])]


def _is_applied(plan: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
    """Which orders of a plan an earlier part applied: by ref (`made`), or by SKU
    (`applied`, every order of the item: what a plan applied before refs says)."""
    made, skus = plan.get("made") or {}, set(plan.get("applied") or ())
    return lambda o: o.get("ref") in made or o["sku"] in skus


def _one_line_per_item(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A supplier's planned lines as orders: one order, and another for an item planned
    again for a later date (an order holds one line per item); by need date."""
    batches: list[list[dict[str, Any]]] = []
    seen: dict[str, int] = {}
    for ln in sorted(lines, key=lambda ln: ln["need_date"]):
        k = seen.get(ln["sku"], 0)
        seen[ln["sku"]] = k + 1
        if k == len(batches):
            batches.append([])
        batches[k].append(ln)
    return batches


def _chosen(plan: dict[str, Any], req: ApplyMrpPlan, left: list[dict[str, Any]]
            ) -> list[dict[str, Any]]:
    """The orders this apply makes: the refs and the SKUs named, else all left."""
    if req.refs is None and req.only is None:
        return left
    if req.refs is not None:
        known = {o.get("ref") for o in _planned(plan)}
        unknown = [r for r in req.refs if r not in known]
        if unknown:
            raise ValidationFailed(f"{', '.join(unknown[:5])}: not a planned order of job "
                                   f"{plan.get('job_id') or req.job_id}", field="refs")
    refs, skus = set(req.refs or ()), set(req.only or ())
    chosen = [o for o in left if o.get("ref") in refs or o["sku"] in skus]
    if not chosen:
        named = "refs" if req.refs else "only"
        raise ValidationFailed("nothing to apply: every order named was already applied",
                               field=named)
    return chosen


def _planned_order(op: Op, line: dict[str, Any], code: str) -> ManufacturingOrder:
    """A planned manufacturing order made; one its recipe refuses (part of a piece of a
    component) is refused naming the plan's order, which `refs` may leave out."""
    try:
        return production.create(op, line["sku"], Decimal(line["quantity"]), code, number=None,
                                 due_date=date.fromisoformat(line["due_date"]))
    except ValidationFailed as exc:
        if exc.field != "quantity":
            raise
        ref = line.get("ref") or line["sku"]
        raise ValidationFailed(f"planned order {ref}: {exc.message}; leave it out with `refs` "
                               "or change the recipe and run MRP again", field="refs",
                               details={**(exc.details or {}), "ref": ref}) from exc


@tools.write("apply_mrp_plan", everyday=True,
             title="Apply MRP plan", response=PlanApplied,
             description="Create the orders an MRP run suggested, all in one transaction.",
             destructive=False,
             undo=Undo.using(revert_bulk.mrp_plan),
             subject="the MRP plan")
def apply_mrp_plan(op: Op, req: ApplyMrpPlan) -> Done[PlanApplied]:
    job = job_row(op, req.job_id, lock=True)
    if job.kind != MRP_KIND or job.status != JobState.succeeded or not job.result:
        raise Conflict(f"job {job.id} is not a finished MRP run ({job.kind}, {job.status})",
                       field="job_id")
    plan: dict[str, Any] = job.result
    # A plan may be applied in parts (`refs`, `only`); what each planned order became is
    # kept on it (`made`), and `applied` lists the items every order of which is made.
    applied = _is_applied(plan)
    left = [o for o in _planned(plan) if not applied(o)]
    if job.applied_operation is not None and ("applied" not in plan or not left):
        raise Conflict(f"the plan of job {job.id} was already applied (operation "
                       f"{job.applied_operation}); run MRP again for a new plan",
                       field="job_id", details={"operation_id": job.applied_operation})
    chosen = _chosen(plan, req, left)
    picked = {id(o) for o in chosen}
    # Marked in the same transaction as the orders: a plan creates its orders once.
    job.applied_operation = op.operation_id or "preview"
    code = req.location or plan.get("location") or op.session.scalars(
        select(Location.code).order_by(Location.id)).first()
    if code is None:
        raise ValidationFailed("there is no location to plan into", field="location")
    groups = [(g["supplier"], g.get("currency"),
               [ln for ln in g["lines"] if id(ln) in picked])
              for g in plan["purchase_orders"]]
    for supplier, _, lines in groups:
        if lines and not supplier:
            raise ValidationFailed(f"{lines[0]['sku']} has no default supplier; leave it out "
                                   "with `refs` or set one", field="refs")
    # Manufacturing orders first: their numbers name the parents their components serve
    # (and the ones an earlier part made, theirs).
    refs: dict[str, str] = dict(plan.get("made") or {})
    made_now: dict[str, str] = {}
    created = []
    for line in plan["manufacturing_orders"]:
        if id(line) not in picked:
            continue
        mo = _planned_order(op, line, code)
        refs[line.get("ref") or mo.number] = made_now[line.get("ref") or mo.number] = \
            mo.number
        created.append((mo, line))
    pegs: list[dict[str, Any]] = []
    for mo, line in created:
        covers = line.get("covers", [])
        pegs += pegging.rows(covers, refs, mo.item_id, manufacturing_order_id=mo.id)
        if covers:
            op.change("manufacturing_order", mo.number, "for", None,
                      pegging.summary(covers, refs))
    bought = []
    for supplier, currency, lines in groups:
        if not lines:
            continue
        # A plan made with no rate for the supplier's currency priced its lines in the
        # company's: the order prices them in the supplier's at today's rate (or is refused
        # naming the price), never books company money as the supplier's.
        own = currencies.of(op, lookup.supplier(op, supplier).currency)
        priced = currency in (None, own)
        for batch in _one_line_per_item(lines):
            po = orders.create_purchase_order(
                op, supplier, code,
                [orders.LineSpec(ln["sku"], Decimal(ln["quantity"]),
                                 Decimal(ln["unit_price"]) if priced else None,
                                 expected_date=date.fromisoformat(ln["need_date"]),
                                 unit=ln.get("unit"))
                 for ln in batch],
                number=None, expected_date=date.fromisoformat(batch[0]["need_date"]),
                notes=f"MRP job {job.id}", status=PO.open)
            for po_line, ln in zip(po.lines, batch, strict=True):
                covers = ln.get("covers", [])
                pegs += pegging.rows(covers, refs, po_line.item_id, purchase_order_id=po.id)
                if covers:
                    op.change("purchase_order", po.number, f"line {ln['sku']} for", None,
                              pegging.summary(covers, refs))
                if ln.get("ref"):
                    made_now[ln["ref"]] = po.number
            bought.append(po.number)
    made = [mo.number for mo, _ in created]
    if not made and not bought:
        raise ValidationFailed("nothing to apply: the plan selects no orders", field="refs")
    everything = {**(plan.get("made") or {}), **made_now}
    still = {str(o["sku"]) for o in left if id(o) not in picked}
    job.result = {**plan, "made": everything, "applied": sorted(
        set(plan.get("applied") or ()) | ({o["sku"] for o in chosen} - still))}
    pegging.write(op, pegs)
    return Done(f"Apply MRP plan: {len(bought)} purchase and {len(made)} manufacturing orders",
                PlanApplied(purchase_orders=bought, manufacturing_orders=made))
