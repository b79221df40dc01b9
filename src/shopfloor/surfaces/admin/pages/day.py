"""Pages for the day: what to buy, make, ship and receive today, the late orders and the
lots about to expire. Each is its own URL (a bookmark, a link in a morning e-mail), each
row links to its record and to the action it calls for, as the tool's own form filled in.
"Today" is the deployment's date (its clock in its time zone); an order without a date
counts as due now."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel.errors import NotFound
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled
from shopfloor.surfaces.admin.kinds import ORDERS, left_to_make, outstanding

EXPIRING_DAYS = 30
ORDER_LIMIT = 200


@dataclass(frozen=True)
class Day:
    slug: str
    title: str
    lead: str


DAYS = {d.slug: d for d in (
    Day("buy", "To buy", "Items below their reorder point counting what is already on order."),
    Day("make", "To make", "Open manufacturing orders due today or earlier."),
    Day("ship", "To ship", "Open sales orders due today or earlier."),
    Day("receive", "To receive", "Open purchase orders expected today or earlier."),
    Day("late", "Late orders", "Every open order past its date, oldest first."),
    Day("expiring", "Expiring lots",
        f"Lots with stock that expire within {EXPIRING_DAYS} days, expired ones first."),
)}


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/today", today),
            admin.page("/today/{what}", one_day)]


async def today(a: Admin, request: Request, actor: Actor) -> Response:
    seen: dict[str, list[dict[str, Any]]] = {}  # each order list read once for all six
    counts = {slug: len(await rows_for(a, actor, slug, seen)) for slug in DAYS}
    waiting = await a.read(actor, "list_proposals", {"status": "pending", "limit": 200})
    centres = await a.read(actor, "list_work_centres", {})
    return a.render(request, "day.html", actor, days=DAYS, counts=counts, day=None, rows=[],
                    waiting=len(waiting.get("proposals") or []),
                    centres=centres.get("work_centres") or [])


async def one_day(a: Admin, request: Request, actor: Actor) -> Response:
    what = request.path_params["what"]
    if what not in DAYS:
        raise NotFound(f"no day page called {what}", field="what")
    return a.render(request, "day.html", actor, days=DAYS, day=DAYS[what], counts={},
                    rows=await rows_for(a, actor, what))


async def rows_for(a: Admin, actor: Actor, what: str,
                   seen: dict[str, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """Rows of one day page: each with `links`, (text, href) pairs, the first its record."""
    now = a.today().isoformat()
    if what == "buy":
        return await to_buy(a, actor)
    if what == "expiring":
        return await expiring(a, actor)
    slug = {"make": "manufacturing-orders", "ship": "sales-orders",
            "receive": "purchase-orders"}.get(what)
    rows: list[dict[str, Any]] = []
    for kind in ORDERS.values():
        if slug is not None and kind.slug != slug:
            continue
        for o in await open_orders(a, actor, kind.slug, seen if seen is not None else {}):
            due = o.get("due_date")
            if (what == "late" and due and due < now) or (
                    what != "late" and (not due or due <= now)):
                rows.append(order_row(a, actor, kind.slug, o))
    rows.sort(key=lambda r: (r["due"] or "", r["number"]))
    return rows


async def open_orders(a: Admin, actor: Actor, slug: str,
                      seen: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    if slug not in seen:
        kind = ORDERS[slug]
        seen[slug] = [o for status in kind.open_statuses for o in (await a.read(
            actor, kind.list_tool, {"status": status, "limit": ORDER_LIMIT})).get("orders", [])]
    return seen[slug]


def order_row(a: Admin, actor: Actor, slug: str, o: dict[str, Any]) -> dict[str, Any]:
    number = o["number"]
    links = [(f"Open {number}", f"/{slug}/{number}")]
    tool, args, text = {
        "purchase-orders": ("receive_purchase_order",
                            {"number": number, "lines": outstanding(o)}, "Receive"),
        "sales-orders": ("fulfill_order", {"number": number, "lines": outstanding(o)}, "Ship"),
        "manufacturing-orders": ("complete_manufacturing_order",
                                 {"number": number, "quantity": left_to_make(o)}, "Complete"),
    }[slug]
    if a.may(actor, tool):
        links.append((text, prefilled(tool, args)))
    what = o.get("partner") or o.get("sku") or ""
    return {"number": number, "kind": ORDERS[slug].title[:-1], "for": what,
            "due": o.get("due_date"), "status": o.get("status"), "links": links}


async def to_buy(a: Admin, actor: Actor) -> list[dict[str, Any]]:
    low = (await a.read(actor, "list_low_stock", {"limit": ORDER_LIMIT})).get("items", [])
    rows = []
    for r in low:
        if Decimal(str(r.get("available", 0))) + Decimal(str(r.get("on_order", 0))) >= \
                Decimal(str(r.get("reorder_point", 0))):
            continue  # what is low is already on order
        links = [(f"Open {r['sku']}", f"/items/{r['sku']}")]
        if a.may(actor, "create_purchase_order"):
            links.append(("Order", prefilled("create_purchase_order", {
                "supplier": r.get("default_supplier"),
                "lines": [{"sku": r["sku"], "quantity": r.get("suggested_quantity") or "1"}]})))
        rows.append({"sku": r["sku"], "name": r["name"], "available": r.get("available"),
                     "on_order": r.get("on_order"), "reorder_point": r.get("reorder_point"),
                     "suggested_quantity": r.get("suggested_quantity"),
                     "supplier": r.get("default_supplier"), "links": links})
    return rows


async def expiring(a: Admin, actor: Actor) -> list[dict[str, Any]]:
    got = (await a.read(actor, "list_expiring", {"days": EXPIRING_DAYS})).get("lots", [])
    rows = []
    for lot in got:
        links = [(f"Open {lot['sku']}", f"/items/{lot['sku']}")]
        if not lot.get("held") and a.may(actor, "hold_lot"):
            links.append(("Hold", prefilled("hold_lot", {"sku": lot["sku"], "lot": lot["lot"],
                                                         "reason": "expiring"})))
        if a.may(actor, "trace_lot"):
            links.append(("Trace", prefilled("trace_lot", {"sku": lot["sku"],
                                                           "lot": lot["lot"]})))
        rows.append({"sku": lot["sku"], "lot": lot["lot"], "location": lot.get("location"),
                     "on_hand": lot.get("on_hand"), "expiry": lot.get("expiry"),
                     "held": lot.get("held"), "links": links})
    return rows
