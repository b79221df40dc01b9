"""The approval inbox: writes held for approval, oldest first, each with what its proposer
was shown. Approving or rejecting is the tool's own form, filled in (no write path here)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel.statuses import ProposalState
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/proposals", inbox),
            admin.page("/proposals/{proposal_id}", proposal)]


async def inbox(a: Admin, request: Request, actor: Actor) -> Response:
    status = request.query_params.get("status", ProposalState.pending)
    args: dict[str, Any] = {"limit": 200, "status": status or None}
    result = await a.call(actor, "list_proposals", args)
    return a.render(request, "proposals.html", actor, result=result, shown=status)


async def proposal(a: Admin, request: Request, actor: Actor) -> Response:
    pid = request.path_params["proposal_id"]
    found = await a.call(actor, "get_proposal", {"proposal_id": pid})
    pending = found["status"] == ProposalState.pending
    mine = found["actor"] == actor.subject
    return a.render(request, "proposal.html", actor, p=found,
                    approve_url=prefilled("approve_proposal", {"proposal_id": pid})
                    if pending and not mine else None,
                    reject_url=prefilled("reject_proposal", {"proposal_id": pid})
                    if pending else None)
