"""The pick lists: suggestions for a form field that names a record (an item, a location,
a supplier, a customer), for what has been typed so far."""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.surfaces.admin import forms
from shopfloor.surfaces.admin import session as sessions
from shopfloor.surfaces.admin.core import HEADERS, Admin


def routes(admin: Admin) -> list[BaseRoute]:
    return [Route("/picks/{pick}", partial(pick_options, admin), methods=["GET"])]


async def pick_options(a: Admin, request: Request) -> Response:
    """Asked as the person types (and when the field gets focus), so the pick list
    holds the best few of a catalogue of any size. An ended session answers an empty
    list rather than a redirect: a suggestion never takes the person off their form."""
    pick = request.path_params["pick"]
    rows: list[tuple[Any, str]] = []
    try:
        actor = await sessions.current_actor(request, a.auth)
    except sessions.SignInNeeded:
        actor = None
    if actor is not None and pick in forms.PICK_SOURCES:
        typed = [v for k, v in request.query_params.multi_items() if k != "pick"]
        text = (typed[-1] if typed else "").strip()[:200]
        tool, key, value, shown = forms.PICK_SOURCES[pick]
        args: dict[str, Any] = {"query": text} if text else {}
        if tool == "search_items":
            args["limit"] = forms.PICK_LIMIT
        found = (await a.read(actor, tool, args)).get(key, [])
        rows = [(r.get(value), r.get(shown) or "") for r in found][:forms.PICK_LIMIT]
    html = a.env.get_template("_picks.html").render(rows=rows)
    return HTMLResponse(html, headers=HEADERS)
