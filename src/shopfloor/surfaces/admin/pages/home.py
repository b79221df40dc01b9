"""The home page: what needs attention today (short stock, late orders, running jobs,
lots about to expire)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel.statuses import JOB_ACTIVE
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.kinds import ORDERS


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/", home)]


async def home(a: Admin, request: Request, actor: Actor) -> Response:
    read = a.read
    low = (await read(actor, "list_low_stock", {"limit": 50})).get("items", [])
    short = [r for r in low if r.get("to_order")]  # the tool's one rule, as the overview
    today = a.today().isoformat()
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
    if a.has("list_expiring"):
        got = await read(actor, "list_expiring", {"days": 30})
        expiring = next((v for v in got.values() if isinstance(v, list)), [])
    return a.render(request, "home.html", actor, low=low, short=short, late=late,
                    jobs=jobs, expiring=expiring, today=today)
