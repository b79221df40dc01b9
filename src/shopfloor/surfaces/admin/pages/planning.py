"""Planning: the MRP page, where a run is started and a plan is ticked order by order (by
its ref, so two orders of one item are told apart), previewed, applied, and left with
links to the documents made and the rest of the plan still there to apply later."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.statuses import JobState
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin import plans
from shopfloor.surfaces.admin.core import Admin, form_of
from shopfloor.surfaces.admin.kinds import MRP_KINDS


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/mrp", mrp, methods=["GET"]),
            admin.page("/mrp/preview", preview, write=True, methods=["POST"]),
            admin.page("/mrp/apply", apply, write=True, methods=["POST"])]


async def mrp(a: Admin, request: Request, actor: Actor, **outcome: Any) -> Response:
    """The page; `outcome` is what a preview or an apply adds to it."""
    jobs = (await a.read(actor, "list_jobs", {"limit": 50})).get("jobs", [])
    runs = [j for j in jobs if j.get("kind") in MRP_KINDS][:10]
    wanted = outcome.pop("job_id", None) or request.query_params.get("job")
    last = next((j for j in runs if j.get("status") == JobState.succeeded), None)
    plan: dict[str, Any] = {}
    if wanted:  # a run named by its page's link, or the one being applied
        found = await a.read(actor, "get_job", {"job_id": wanted})
        if found.get("kind") in MRP_KINDS and found.get("status") == JobState.succeeded:
            last, plan = found, found.get("result") or {}
    elif last is not None:
        plan = (await a.read(actor, "get_job", {"job_id": last["job_id"]})).get("result") or {}
    drawn = await a.plan_drawn(request, actor, plan)
    made = documents(plan, request.query_params.get("made"))
    return a.render(request, "mrp.html", actor, status=outcome.pop("status", 200),
                    runs=runs, last=last, **drawn,
                    locations=(await a.read(actor, "list_locations", {})
                               ).get("locations", []), documents=made, **outcome)


def _chosen(form: dict[str, list[str]]) -> tuple[str, list[str]]:
    return form.get("job_id", [""])[-1], [r for r in form.get("refs", []) if r]


async def preview(a: Admin, request: Request, actor: Actor) -> Response:
    """The ticked orders previewed: what applying them will make, and Confirm."""
    job_id, refs = _chosen(await form_of(request))
    try:
        if not refs:
            raise ShopfloorError("tick at least one planned order to apply", field="refs")
        shown = await a.call(actor, "apply_mrp_plan", {"job_id": job_id, "refs": refs,
                                                       "preview": True})
    except ShopfloorError as exc:
        return await mrp(a, request, actor, job_id=job_id, error=exc, ticked=refs,
                         status=403 if exc.code == "forbidden" else 422)
    return await mrp(a, request, actor, job_id=job_id, shown=shown, ticked=refs,
                     idempotency_key=f"admin-{secrets.token_hex(16)}")


async def apply(a: Admin, request: Request, actor: Actor) -> Response:
    """Confirm: the previewed orders made; the page lists them and keeps the rest."""
    form = await form_of(request)
    job_id, refs = _chosen(form)
    try:
        done = await a.call(actor, "apply_mrp_plan", {
            "job_id": job_id, "refs": refs, "preview": False,
            "preview_token": form.get("preview_token", [""])[-1],
            "idempotency_key": form.get("idempotency_key", [""])[-1]
            or f"admin-{secrets.token_hex(16)}"})
    except ShopfloorError as exc:
        return await mrp(a, request, actor, job_id=job_id, error=exc, ticked=refs,
                         status=403 if exc.code == "forbidden" else 409)
    # back to a page that can be reloaded and returned to: the plan, naming what was made
    made = [*done.get("manufacturing_orders", []), *done.get("purchase_orders", [])]
    target = "/mrp?" + urlencode({"job": job_id, "made": ",".join(made)})
    return RedirectResponse(target, status_code=303)


def documents(plan: dict[str, Any], named: str | None) -> list[tuple[str, str]]:
    """The documents an apply made, as links: the numbers named that this plan made."""
    ours = plans.made(plan)
    return [(n, ours[n]) for n in dict.fromkeys((named or "").split(",")) if n in ours]
