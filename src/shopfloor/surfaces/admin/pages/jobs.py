"""The jobs: the list, and one job's page, which follows it live and offers to apply a
finished MRP run's plan."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel.statuses import JobState
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.kinds import MRP_KINDS


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/jobs", jobs),
            admin.page("/jobs/{job_id}", job)]


async def jobs(a: Admin, request: Request, actor: Actor) -> Response:
    args: dict[str, Any] = {"limit": 100}
    if request.query_params.get("status"):
        args["status"] = request.query_params["status"]
    result = await a.call(actor, "list_jobs", args)
    return a.render(request, "jobs.html", actor, result=result, q=request.query_params)


async def job(a: Admin, request: Request, actor: Actor) -> Response:
    found = await a.call(actor, "get_job", {"job_id": request.path_params["job_id"]})
    template = "_job.html" if request.headers.get("hx-request") else "job.html"
    apply_url, empty_plan, drawn = None, False, {}
    result = found.get("result")
    if found.get("kind") in MRP_KINDS and found.get("status") == JobState.succeeded and \
            isinstance(result, dict):
        # one state for "nothing to do", as the cards say it: no apply offered
        empty_plan = not any(v for k, v in result.items() if k.endswith("orders"))
        drawn = await a.plan_drawn(request, actor, result)
        if not empty_plan:  # ticked and applied order by order on the MRP page
            apply_url = "/mrp?job=" + quote(str(found.get("job_id")), safe="")
    return a.render(request, template, actor, job=found, apply_url=apply_url,
                    empty_plan=empty_plan, plan=drawn)
