"""Planning reads: an item's time-phased record (get_projected_stock), and the pegs shown
on orders an MRP plan created."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from shopfloor.domain.context import Op
from shopfloor.domain.planning import pegging, projection
from shopfloor.registry.tool import Request, Toolset
from shopfloor.tools.fields import Amount, Day, Key, Out
from shopfloor.tools.refs import SkuOrId, sku_of
from shopfloor.tools.views import PegOut

tools = Toolset()


def pegs_out(op: Op, *, po: int | None = None, mo: int | None = None) -> list[PegOut]:
    rows = pegging.of_order(op, purchase_order_id=po, manufacturing_order_id=mo)
    return [PegOut(sku=r.sku, need=r.kind, document=r.document, date=r.date,
                   quantity=r.quantity) for r in rows]


class ProjectedQuery(SkuOrId, Request):
    location: Key | None = Field(None, description="one location (default: all as one pool)")
    until: date | None = Field(None, description="last date to show (default: every event)")
    include_planned: bool = Field(False, description="add the last MRP plan's planned "
                                  "orders (if it was not applied)")
    today: date | None = Field(None, description="as of this date (default: today)")


class ProjectedRow(Out):
    date: date
    kind: str = Field(description="purchase_order, manufacturing_order, sales_order, "
                                  "planned_order")
    document: str | None
    incoming: Amount
    outgoing: Amount
    balance: Amount = Field(description="projected on hand after this row")
    document_date: Day | None = Field(None, description="the document's own date when "
                                       "it is past (counted today)")
    for_sku: str | None = Field(None, description="component demand: the item being made")


class ProjectedOut(Out):
    sku: str
    location: str | None
    today: date
    on_hand: Amount
    safety_stock: Amount
    lead_time_days: int
    rows: list[ProjectedRow]
    end_balance: Amount
    first_short: date | None = Field(description="first day the balance goes below zero")
    below_safety: date | None = Field(description="first day it goes below safety stock")
    plan_job: str | None = Field(None, description="the MRP job whose planned orders are in")


@tools.read("get_projected_stock", title="Projected stock",
            description="An item's time-phased record: stock on hand, then every open "
                        "order's dated supply and demand with the projected balance after "
                        "each (and, if asked, the last MRP plan's planned orders).",
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
