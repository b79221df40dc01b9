"""Proposals: writes held for approval, and the people who decide them.

An actor marked as needing approval (`shopfloor token create --needs-approval`, or an
account flag) never applies: its apply answers `proposed` with a `proposal_id`. Someone
else approves (the registry then applies it as its proposer, once, if nothing it read has
changed) or rejects it with a reason the proposer reads here. A proposer whose account
is disabled, or lowered below the role a proposal needs, has it withdrawn (`follow`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Conflict, Internal, NotFound, ValidationFailed
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import ProposalState
from shopfloor.registry import catalogue, proposals
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import Proposal
from shopfloor.tools.fields import Cursor, JobId, Limit, Out, Text, paged

tools = Toolset("proposals")
Status = Literal["pending", "approved", "rejected", "stale", "withdrawn"]


class ProposalOut(Out):
    proposal_id: str
    tool: str
    status: Status
    actor: str
    summary: str
    created_at: datetime
    decided_by: str | None
    reason: str | None
    operation_id: str | None


class ProposalDetail(ProposalOut):
    arguments: dict[str, Any]
    preview: dict[str, Any] = Field(description="what the proposer was shown")


def _out(p: Proposal) -> ProposalOut:
    return ProposalOut(proposal_id=p.id, tool=p.tool, status=p.status,
                       actor=p.actor, summary=p.summary, created_at=p.created_at,
                       decided_by=p.decided_by, reason=p.reason, operation_id=p.operation_id)


def _own_only(op: Op) -> str | None:
    """A viewer reads its own proposals; an operator reads everyone's."""
    return None if max(op.roles, default=Role.viewer) >= Role.operator else op.actor


class ListProposals(Request):
    status: Status | None = "pending"
    limit: Limit = 50
    cursor: Cursor | None = None


class ProposalList(Out):
    proposals: list[ProposalOut]
    next_cursor: str | None = None


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    at, _, pid = cursor.partition("|")
    try:
        return datetime.fromisoformat(at), pid
    except ValueError:
        raise ValidationFailed("not a cursor list_proposals returned", field="cursor") from None


@tools.read("list_proposals", title="List proposals", response=ProposalList,
            description="Writes held for approval, oldest first (a viewer sees its own).")
def list_proposals(op: Op, req: ListProposals) -> ProposalList:
    rows = proposals.listing(op.session, req.status, _own_only(op), req.limit + 1,
                             _after(req.cursor))
    rows, next_cursor = paged(rows, req.limit, lambda p: f"{p.created_at.isoformat()}|{p.id}")
    return ProposalList(proposals=[_out(p) for p in rows], next_cursor=next_cursor)


class ProposalRef(Request):
    proposal_id: JobId


@tools.read("get_proposal", title="Get proposal", response=ProposalDetail,
            description="One proposal: its request, the preview shown, and the decision.")
def get_proposal(op: Op, req: ProposalRef) -> ProposalDetail:
    p = proposals.get(op.session, req.proposal_id)
    mine = _own_only(op)
    if mine is not None and p.actor != mine:  # another's: as if it did not exist
        raise NotFound(f"no proposal {req.proposal_id!r}", field="proposal_id")
    return ProposalDetail(**_out(p).model_dump(), arguments=p.arguments, preview=p.preview)


class Decide(WriteRequest):
    proposal_id: JobId


class Decided(Out):
    proposal_id: str
    status: Status


@tools.write("approve_proposal", title="Approve proposal", response=Decided,
             destructive=True, approves=True, subject="the proposal",
             undo=Undo.refused("revert the operation it applied (its operation_id)"),
             description="Apply a held proposal as its proposer, once, if nothing it read "
                         "has changed (else stale_preview). Not by its proposer.")
def approve_proposal(op: Op, req: Decide) -> Done[Decided]:
    """Never called: the registry applies the proposal itself (`Facts.approves`), since
    only it may run another tool's apply."""
    raise Internal("a proposal is approved through the registry")


class Reject(Decide):
    reason: Text


@tools.write("reject_proposal", title="Reject proposal", response=Decided,
             destructive=False, subject="the proposal", decides=True,
             undo=Undo.refused("the proposer proposes it again"),
             description="Refuse a held proposal with a reason its proposer reads.")
def reject_proposal(op: Op, req: Reject) -> Done[Decided]:
    p = proposals.get(op.session, req.proposal_id, lock=op.locks_rows)
    if p.status != ProposalState.pending:
        raise Conflict(f"proposal {p.id} is {p.status} already", field="proposal_id",
                       details={"status": p.status})
    op.change("proposal", p.id, "status", p.status, ProposalState.rejected.value)
    op.change("proposal", p.id, "reason", None, req.reason)
    if not op.preview:
        p.status, p.reason = ProposalState.rejected, req.reason
        p.decided_by, p.decided_at, p.version = op.actor, op.now, p.version + 1
        proposals.announce(op.session, p.id, ProposalState.rejected, op.actor, op.now)
    return Done(f"Proposal {p.id} rejected: {req.reason}",
                Decided(proposal_id=p.id, status="rejected"))


def follow(op: Op, username: str, why: Callable[[Role], str | None]) -> None:
    """A change to an account reaches its pending proposals: each one `why` finds a
    reason against (given the role it needs) is withdrawn with that reason, in the same
    transaction, previewed as a change like the account's own."""
    tools = catalogue.of(op)
    for p in proposals.pending_of(op.session, username, lock=op.locks_rows):
        held = tools.find(p.tool)  # a tool no longer declared: only admin could apply it
        reason = why(held.facts.role if held else Role.admin)
        if reason is None:
            continue
        op.change("proposal", p.id, "status", p.status, ProposalState.withdrawn.value)
        if not op.preview:
            proposals.withdraw(op.session, p, op.actor, op.now, reason)


def lowered_to(role: str) -> Callable[[Role], str | None]:
    """Withdraw what the new role may not do."""
    now = Role.parse(role)
    return lambda needs: None if now >= needs else \
        f"its proposer's role is now {now.name}, below the {needs.name} role it needs"


def disabled(is_disabled: bool) -> Callable[[Role], str | None]:
    return lambda needs: "its proposer's account is disabled" if is_disabled else None
