"""The operation log: every write, filterable, and one entry's page with its revert."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/log", log),
            admin.page("/log/{operation_id}", entry)]


async def log(a: Admin, request: Request, actor: Actor) -> Response:
    q = request.query_params
    args = listing(request, "tool", "actor", "since")
    result = await a.call(actor, "get_operation_log", args)
    writes = sorted((t for t in a.registry.tools() if t.facts.writes), key=lambda t: t.title)
    return a.render(request, "log.html", actor, result=result, q=q, writes=writes,
                    can_revert=a.may(actor, "revert_operation"), refused=refusals(a),
                    **pages(request, result.get("next_cursor")))


def refusals(a: Admin) -> dict[str, str]:
    """Why an entry cannot be reverted, by its tool: a write whose undo is refused says
    what to do instead, and its row offers no Revert it would refuse."""
    return {t.name: t.facts.undo.instead for t in a.registry.tools()
            if t.facts.writes and t.facts.undo.reverser is None}


async def entry(a: Admin, request: Request, actor: Actor) -> Response:
    op = request.path_params["operation_id"]
    result = await a.call(actor, "get_operation_log", {"operation_id": op})
    entries = result.get("entries", [])
    if not entries:
        return a.render(request, "problem.html", actor, status=404,
                        error={"message": "No such operation."})
    refused = refusals(a).get(entries[0]["tool"])
    revert = (prefilled("revert_operation", {"operation_id": op})
              if a.may(actor, "revert_operation") and refused is None else None)
    return a.render(request, "entry.html", actor, entry=entries[0], revert=revert,
                    refused=refused if a.may(actor, "revert_operation") else None,
                    quote=quote)
