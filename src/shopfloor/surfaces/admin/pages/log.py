"""The operation log: every write, filterable, and one entry's page with its revert."""

from __future__ import annotations

from functools import partial
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    g = admin.guarded
    return [Route("/log", g(partial(log, admin))),
            Route("/log/{operation_id}", g(partial(entry, admin)))]


async def log(a: Admin, request: Request, actor: Actor) -> Response:
    q = request.query_params
    args = listing(request, "tool", "actor", "since")
    result = await a.call(actor, "get_operation_log", args)
    writes = sorted((t for t in a.registry.tools() if t.facts.writes), key=lambda t: t.title)
    return a.render(request, "log.html", actor, result=result, q=q, writes=writes,
                    can_revert=a.may(actor, "revert_operation"),
                    **pages(request, result.get("next_cursor")))


async def entry(a: Admin, request: Request, actor: Actor) -> Response:
    op = request.path_params["operation_id"]
    result = await a.call(actor, "get_operation_log", {"operation_id": op})
    entries = result.get("entries", [])
    if not entries:
        return a.render(request, "problem.html", actor, status=404,
                        error={"message": "No such operation."})
    revert = (prefilled("revert_operation", {"operation_id": op})
              if a.may(actor, "revert_operation") else None)
    return a.render(request, "entry.html", actor, entry=entries[0], revert=revert,
                    quote=quote)
