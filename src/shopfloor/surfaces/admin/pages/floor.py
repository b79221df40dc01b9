"""The shop floor: the work centres, and one centre's page with its shifts and its load
per day as a bar chart drawn on the server (SVG: no script, readable at a glance, with
the same figures in a table beneath it for a screen reader)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel import dates
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled

HEIGHT, BAR, GAP = 160, 28, 10


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/work-centres", centres),
            admin.page("/work-centres/{code:path}", centre)]


async def centres(a: Admin, request: Request, actor: Actor) -> Response:
    found = await a.call(actor, "list_work_centres",
                         {"query": request.query_params.get("query") or None})
    return a.render(request, "work_centres.html", actor, centres=found["work_centres"],
                    q=request.query_params)


def _number(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return Decimal(0)


def bars(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each day's bar: the available minutes as the frame, the planned as the fill (over
    the frame when overloaded), in pixels of one scale."""
    top = max([_number(r["available_minutes"]) for r in rows]
              + [_number(r["planned_minutes"]) for r in rows] + [Decimal(1)])
    out = []
    for i, r in enumerate(rows):
        available, planned = _number(r["available_minutes"]), _number(r["planned_minutes"])
        out.append({"x": GAP + i * (BAR + GAP), "day": date.fromisoformat(r["period"]),
                    "available": int(available * HEIGHT / top),
                    "planned": int(planned * HEIGHT / top),
                    "over": planned > available, "row": r})
    return out


async def centre(a: Admin, request: Request, actor: Actor) -> Response:
    code = request.path_params["code"]
    listed = await a.call(actor, "list_work_centres", {"query": code})
    found = next((c for c in listed["work_centres"] if c["code"] == code), None)
    if found is None:
        return a.render(request, "problem.html", actor, status=404,
                        error={"message": f"No work centre {code}."})
    try:
        start = date.fromisoformat(request.query_params.get("start", ""))
    except ValueError:
        start = a.today()
    problem = dates.day_problem(start)  # the page reckons a fortnight either side of it
    if problem is not None:
        raise ValidationFailed(f"start: {problem}", field="start")
    end = start + timedelta(days=13)
    load = await a.read(actor, "get_work_centre_load",
                        {"work_centre": code, "start": start.isoformat(),
                         "end": end.isoformat(), "bucket": "day"})
    rows = load.get("rows") or []
    acts = [(text, prefilled(tool, args)) for text, tool, args in (
        ("Edit work centre", "modify_work_centre", {"code": code}),
        ("Schedule orders", "schedule_manufacturing_orders", {}),
    ) if a.may(actor, tool)]
    drawn = bars(rows)
    return a.render(request, "work_centre.html", actor, centre=found, rows=rows, bars=drawn,
                    width=GAP + len(drawn) * (BAR + GAP), height=HEIGHT, bar=BAR,
                    actions=acts, start=start, earlier=start - timedelta(days=14),
                    later=start + timedelta(days=14))
