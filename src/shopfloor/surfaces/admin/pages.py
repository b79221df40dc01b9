"""The admin's pages for the daily loop: home, items, orders, MRP, jobs, the log.

Each page reads through registry tools as the signed-in actor, and each action is a link
to the tool's own form, pre-filled (receive these lines, ship that order): the form,
preview and Confirm are the generic ones, so an action never has its own write path.
A view whose tool is missing from the catalogue (lots, revert) simply leaves it out.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.kernel.statuses import JOB_ACTIVE, PO, SO, JobState
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin import forms
from shopfloor.surfaces.admin import session as sessions
from shopfloor.surfaces.admin.core import HEADERS, Admin
from shopfloor.surfaces.admin.forms import PAGE, pages, prefilled
from shopfloor.surfaces.admin.kinds import MRP_KINDS, ORDERS, OrderKind


def outstanding(order: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    for line in order.get("lines") or []:
        left = Decimal(str(line.get("quantity", 0))) - Decimal(str(line.get("done_quantity", 0)))
        if left > 0:
            rows.append({"sku": line["sku"], "quantity": format(left.normalize(), "f")})
    return rows


def actions(kind: OrderKind, order: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, tool, url) of what can be done to this order now."""
    status, number = order.get("status"), order.get("number")
    out: list[tuple[str, str, str]] = []
    if kind.slug == "purchase-orders":
        if status in kind.open_statuses:
            out.append(("Receive", "receive_purchase_order", prefilled(
                "receive_purchase_order", {"number": number, "lines": outstanding(order)})))
            out.append(("Edit", "modify_purchase_order",
                        prefilled("modify_purchase_order", {"number": number})))
            out.append(("Cancel order", "delete_purchase_order",
                        prefilled("delete_purchase_order", {"number": number})))
    elif kind.slug == "sales-orders":
        if status in kind.open_statuses:
            out.append(("Ship", "fulfill_order", prefilled(
                "fulfill_order", {"number": number, "lines": outstanding(order)})))
            out.append(("Edit", "modify_sales_order",
                        prefilled("modify_sales_order", {"number": number})))
            out.append(("Cancel order", "delete_sales_order",
                        prefilled("delete_sales_order", {"number": number})))
    elif status in kind.open_statuses:
        left = Decimal(str(order.get("quantity", 0))) - Decimal(
            str(order.get("completed_quantity", 0))) - Decimal(
            str(order.get("scrapped_quantity", 0)))
        out.append(("Complete", "complete_manufacturing_order", prefilled(
            "complete_manufacturing_order",
            {"number": number, "quantity": format(left.normalize(), "f")})))
        out.append(("Cancel order", "delete_manufacturing_order",
                    prefilled("delete_manufacturing_order", {"number": number})))
    # Corrections and returns (issue 12's tools), offered where the order has moved goods.
    done_lines = [{"sku": line["sku"], "quantity": line.get("done_quantity")}
                  for line in order.get("lines") or [] if _positive(line.get("done_quantity"))]
    follow = {
        "purchase-orders": [
            ("Close short", "close_purchase_order", {"number": number},
             status == PO.partially_received),
            ("Correct a receipt", "correct_purchase_receipt", {"number": number},
             bool(done_lines)),
            ("Return to supplier", "create_supplier_return",
             {"number": number, "lines": done_lines}, bool(done_lines))],
        "sales-orders": [
            ("Close short", "close_sales_order", {"number": number},
             status == SO.partially_fulfilled),
            ("Correct a shipment", "correct_shipment", {"number": number}, bool(done_lines)),
            ("Customer return", "create_customer_return",
             {"number": number, "lines": done_lines}, bool(done_lines))],
        "manufacturing-orders": [
            ("Correct quantity made", "correct_manufacturing_order", {"number": number},
             _positive(order.get("completed_quantity")))],
    }
    out += [(text, tool, prefilled(tool, args))
            for text, tool, args, when in follow[kind.slug] if when]
    return out


def _positive(value: Any) -> bool:
    try:
        return Decimal(str(value)) > 0
    except ArithmeticError:
        return False


class Views:
    def __init__(self, admin: Admin) -> None:
        self.a = admin

    def routes(self) -> list[BaseRoute]:
        g = self.a.guarded
        return [
            Route("/", g(self.home)),
            Route("/items", g(self.items)),
            Route("/items/{sku:path}", g(self.item)),
            Route("/mrp", g(self.mrp)),
            Route("/jobs", g(self.jobs)),
            Route("/jobs/{job_id}", g(self.job)),
            Route("/log", g(self.log)),
            Route("/log/{operation_id}", g(self.entry)),
            *[r for slug in ORDERS for r in (
                Route(f"/{slug}", g(self.orders), name=f"{slug}"),
                Route(f"/{slug}/{{number:path}}", g(self.order), name=f"{slug}-one"))],
        ]

    async def pick_options(self, request: Request) -> Response:
        """Suggestions for a field that names a record, for what has been typed so far.

        Asked as the person types (and when the field gets focus), so the pick list
        holds the best few of a catalogue of any size. An ended session answers an empty
        list rather than a redirect: a suggestion never takes the person off their form."""
        pick = request.path_params["pick"]
        rows: list[tuple[Any, str]] = []
        try:
            actor = await sessions.current_actor(request, self.a.auth)
        except sessions.SignInNeeded:
            actor = None
        if actor is not None and pick in forms.PICK_SOURCES:
            typed = [v for k, v in request.query_params.multi_items() if k != "pick"]
            text = (typed[-1] if typed else "").strip()[:200]
            tool, key, value, shown = forms.PICK_SOURCES[pick]
            args: dict[str, Any] = {"query": text} if text else {}
            if tool == "search_items":
                args["limit"] = forms.PICK_LIMIT
            found = (await self.a.read(actor, tool, args)).get(key, [])
            rows = [(r.get(value), r.get(shown) or "") for r in found][:forms.PICK_LIMIT]
        html = self.a.env.get_template("_picks.html").render(rows=rows)
        return HTMLResponse(html, headers=HEADERS)

    async def home(self, request: Request, actor: Actor) -> Response:
        read = self.a.read
        low = (await read(actor, "list_low_stock", {"limit": 50})).get("items", [])
        short = [r for r in low if Decimal(str(r.get("available", 0))) + Decimal(
            str(r.get("on_order", 0))) < Decimal(str(r.get("reorder_point", 0)))]
        today = date.today().isoformat()
        late: list[dict[str, Any]] = []
        for kind in ORDERS.values():
            for status in kind.open_statuses:
                rows = (await read(actor, kind.list_tool,
                                   {"status": status, "limit": 200})).get("orders", [])
                late += [{**o, "kind": kind.slug, "what": kind.title[:-1]} for o in rows
                         if o.get("due_date") and o["due_date"] < today]
        late.sort(key=lambda o: o["due_date"])
        jobs = [j for j in (await read(actor, "list_jobs", {"limit": 50})).get("jobs", [])
                if j.get("status") in JOB_ACTIVE]
        expiring = None
        if self.a.has("list_expiring"):
            got = await read(actor, "list_expiring", {"days": 30})
            expiring = next((v for v in got.values() if isinstance(v, list)), [])
        return self.a.render(request, "home.html", actor, low=low, short=short, late=late,
                             jobs=jobs, expiring=expiring, today=today)

    async def items(self, request: Request, actor: Actor) -> Response:
        q = request.query_params
        args: dict[str, Any] = {"limit": PAGE}
        for key in ("query", "kind", "cursor"):
            if q.get(key):
                args[key] = q[key]
        result = await self.a.call(actor, "search_items", args)
        return self.a.render(request, "items.html", actor, result=result, q=q,
                             **pages(request, result.get("next_cursor")))

    async def item(self, request: Request, actor: Actor) -> Response:
        sku = request.path_params["sku"]
        item = await self.a.call(actor, "get_item", {"sku": sku})
        q = request.query_params
        args: dict[str, Any] = {"sku": sku, "limit": PAGE}
        if q.get("cursor"):
            args["cursor"] = q["cursor"]
        moves = await self.a.read(actor, "list_stock_movements", args)
        acts = [(label, tool, prefilled(tool, a)) for label, tool, a in (
            ("Edit item", "modify_item", {"sku": sku}),
            ("Adjust stock", "create_stock_adjustment", {"lines": [{"sku": sku}]}),
            ("Move stock", "create_stock_transfer", {"lines": [{"sku": sku}]}),
            ("Order from supplier", "create_purchase_order",
             {"supplier": item.get("default_supplier"),
              "lines": [{"sku": sku, "quantity": item.get("reorder_quantity") or "1"}]}),
            ("Make", "create_manufacturing_order", {"sku": sku}),
            ("Edit recipe", "update_recipe", {"sku": sku}),
        ) if self.a.may(actor, tool)]
        return self.a.render(request, "item.html", actor, item=item, moves=moves, actions=acts,
                             **pages(request, moves.get("next_cursor")))

    async def orders(self, request: Request, actor: Actor) -> Response:
        kind = ORDERS[request.url.path.strip("/").split("/")[0]]
        q = request.query_params
        args: dict[str, Any] = {"limit": PAGE}
        for key in ("status", "cursor"):
            if q.get(key):
                args[key] = q[key]
        result = await self.a.call(actor, kind.list_tool, args)
        new_tool = kind.get_tool.replace("get_", "create_")
        return self.a.render(request, "orders.html", actor, kind=kind, result=result, q=q,
                             new_tool=new_tool, **pages(request, result.get("next_cursor")))

    async def order(self, request: Request, actor: Actor) -> Response:
        kind = ORDERS[request.url.path.strip("/").split("/")[0]]
        order = await self.a.call(actor, kind.get_tool, {"number": request.path_params["number"]})
        acts = [a for a in actions(kind, order) if self.a.may(actor, a[1])]
        log = await self.a.read(actor, "get_operation_log", {"limit": 200})
        number = order.get("number")
        history = [e for e in log.get("entries", [])
                   if number and number in (e.get("summary") or "")]
        return self.a.render(request, "order.html", actor, kind=kind, order=order,
                             actions=acts, history=history)

    async def mrp(self, request: Request, actor: Actor) -> Response:
        jobs = (await self.a.read(actor, "list_jobs", {"limit": 50})).get("jobs", [])
        runs = [j for j in jobs if j.get("kind") in MRP_KINDS][:10]
        return self.a.render(request, "mrp.html", actor, runs=runs,
                             locations=(await self.a.read(actor, "list_locations", {})
                                        ).get("locations", []))

    async def jobs(self, request: Request, actor: Actor) -> Response:
        args: dict[str, Any] = {"limit": 100}
        if request.query_params.get("status"):
            args["status"] = request.query_params["status"]
        result = await self.a.call(actor, "list_jobs", args)
        return self.a.render(request, "jobs.html", actor, result=result,
                             q=request.query_params)

    async def job(self, request: Request, actor: Actor) -> Response:
        job = await self.a.call(actor, "get_job", {"job_id": request.path_params["job_id"]})
        template = "_job.html" if request.headers.get("hx-request") else "job.html"
        apply_url, empty_plan = None, False
        result = job.get("result")
        if job.get("kind") in MRP_KINDS and job.get("status") == JobState.succeeded and \
                isinstance(result, dict):
            # one state for "nothing to do", as the cards say it: no apply offered
            empty_plan = not any(v for k, v in result.items() if k.endswith("orders"))
            if not empty_plan:
                apply_url = prefilled("apply_mrp_plan", {"job_id": job.get("job_id")})
        return self.a.render(request, template, actor, job=job, apply_url=apply_url,
                             empty_plan=empty_plan)

    async def log(self, request: Request, actor: Actor) -> Response:
        q = request.query_params
        args: dict[str, Any] = {"limit": PAGE}
        for key in ("tool", "actor", "since", "cursor"):
            if q.get(key):
                args[key] = q[key]
        result = await self.a.call(actor, "get_operation_log", args)
        writes = sorted((t for t in self.a.registry.tools() if t.facts.writes),
                        key=lambda t: t.title)
        return self.a.render(request, "log.html", actor, result=result, q=q, writes=writes,
                             can_revert=self.a.may(actor, "revert_operation"),
                             **pages(request, result.get("next_cursor")))

    async def entry(self, request: Request, actor: Actor) -> Response:
        op = request.path_params["operation_id"]
        result = await self.a.call(actor, "get_operation_log", {"operation_id": op})
        entries = result.get("entries", [])
        if not entries:
            return self.a.render(request, "problem.html", actor, status=404,
                                 error={"message": "No such operation."})
        revert = (prefilled("revert_operation", {"operation_id": op})
                  if self.a.may(actor, "revert_operation") else None)
        return self.a.render(request, "entry.html", actor, entry=entries[0], revert=revert,
                             quote=quote)
