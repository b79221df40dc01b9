"""Planning: the MRP page, where a run is started and the last runs are listed."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.kinds import MRP_KINDS


def routes(admin: Admin) -> list[BaseRoute]:
    return [Route("/mrp", admin.guarded(partial(mrp, admin)))]


async def mrp(a: Admin, request: Request, actor: Actor) -> Response:
    jobs = (await a.read(actor, "list_jobs", {"limit": 50})).get("jobs", [])
    runs = [j for j in jobs if j.get("kind") in MRP_KINDS][:10]
    return a.render(request, "mrp.html", actor, runs=runs,
                    locations=(await a.read(actor, "list_locations", {})
                               ).get("locations", []))
