"""Webhooks: who receives which events, and every delivery with its tries and its last
answer or error, so a receiver that keeps failing is seen here, not guessed at."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/webhooks", webhooks)]


async def webhooks(a: Admin, request: Request, actor: Actor) -> Response:
    hooks = (await a.call(actor, "list_webhooks", {})).get("webhooks", [])
    result = await a.call(actor, "list_webhook_deliveries",
                          listing(request, "webhook_id", "status"))
    deletes = {h["webhook_id"]: prefilled("delete_webhook", {"webhook_id": h["webhook_id"]})
               for h in hooks}
    return a.render(request, "webhooks.html", actor, hooks=hooks, deletes=deletes,
                    result=result, q=request.query_params,
                    **pages(request, result.get("next_cursor")))
