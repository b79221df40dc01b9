"""Planning: the MRP page, where a run is started, the last plan's orders are listed by
item name to be applied in parts (checked ones now, the rest later from the same plan),
and the last runs are listed."""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from shopfloor.kernel.statuses import JobState
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.kinds import MRP_KINDS


def routes(admin: Admin) -> list[BaseRoute]:
    return [Route("/mrp", admin.guarded(partial(mrp, admin)))]


async def mrp(a: Admin, request: Request, actor: Actor) -> Response:
    jobs = (await a.read(actor, "list_jobs", {"limit": 50})).get("jobs", [])
    runs = [j for j in jobs if j.get("kind") in MRP_KINDS][:10]
    last = next((j for j in runs if j.get("status") == JobState.succeeded), None)
    plan: dict[str, Any] = {}
    if last is not None:
        plan = (await a.read(actor, "get_job", {"job_id": last["job_id"]})).get("result") or {}
    rows = await planned(a, actor, plan)
    return a.render(request, "mrp.html", actor, runs=runs, last=last, planned=rows,
                    waiting=[r for r in rows if not r["applied"]],
                    locations=(await a.read(actor, "list_locations", {})
                               ).get("locations", []))


async def planned(a: Admin, actor: Actor, plan: dict[str, Any]) -> list[dict[str, Any]]:
    """A plan's orders, one row each, by item name, marked when already applied."""
    applied = set(plan.get("applied") or ())
    rows: list[dict[str, Any]] = [
        {"sku": m["sku"], "what": "Make", "quantity": m["quantity"], "date": m.get("due_date"),
         "supplier": None, "late": bool(m.get("late")), "needed_by": m.get("needed_by")}
        for m in plan.get("manufacturing_orders") or []]
    # a purchase in the chosen supplier's terms: its unit, its price in its currency, and
    # why that supplier (the cheapest in time, the preferred, the fastest but late)
    rows += [{"sku": ln["sku"], "what": "Buy", "quantity": ln["quantity"],
              "unit": ln.get("unit"), "unit_price": ln.get("unit_price"),
              "currency": g.get("currency"), "why": ln.get("why"),
              "late": bool(ln.get("late")), "needed_by": ln.get("needed_by"),
              "date": ln.get("need_date"), "supplier": g.get("supplier")}
             for g in plan.get("purchase_orders") or [] for ln in g.get("lines") or []]
    skus = list(dict.fromkeys(str(r["sku"]) for r in rows))
    names: dict[str, str] = {}
    if skus and a.may(actor, "search_items"):
        got = await a.read(actor, "search_items", {"skus": skus[:500], "limit": 500})
        names = {i["sku"]: i["name"] for i in got.get("items", [])}
    for r in rows:
        r["name"] = names.get(r["sku"], r["sku"])
        r["applied"] = r["sku"] in applied
    rows.sort(key=lambda r: (r["applied"], str(r["name"]).lower(), str(r["date"] or "")))
    return rows
