"""Planning reads: an item's time-phased record (get_projected_stock), and the pegs shown
on orders an MRP plan created."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import pegging, projection
from shopfloor.registry.tool import Request, Toolset
from shopfloor.tools.fields import Amount, Day, Key, Out, ResultDay
from shopfloor.tools.refs import SkuOrId, sku_of
from shopfloor.tools.views import PegOut

tools = Toolset("planning")


def pegs_out(op: Op, *, po: int | None = None, mo: int | None = None) -> list[PegOut]:
    rows = pegging.of_order(op, purchase_order_id=po, manufacturing_order_id=mo)
    return [PegOut(sku=r.sku, need=r.kind, document=r.document, date=r.date,
                   quantity=r.quantity) for r in rows]


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
