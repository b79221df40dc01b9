"""Proposals: what an actor who needs approval asked for, held until a person decides.

A proposal is written where the apply would have been: the same request, the preview the
proposer was shown and the fingerprint of every row that preview read. Approving it runs
the apply through the ordinary path with that fingerprint as its claims, so it applies
exactly what was seen, once, or is stale; the proposer is never the one who approves.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from shopfloor.kernel.errors import Conflict, Forbidden, NotFound, StalePreview
from shopfloor.kernel.events import EventType
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import ProposalState
from shopfloor.registry import records, tokens
from shopfloor.registry.actor import Actor
from shopfloor.registry.tool import CONTROL_FIELDS, Tool, WriteRequest
from shopfloor.store import outbox
from shopfloor.store.engine import Store
from shopfloor.store.tables import Account, Proposal, RevokedSubject

Also = Callable[[Session, dict[str, Any]], None]


class _Registry(Protocol):
    """What the two paths below use of the registry (registry.py imports this module)."""

    store: Store
    clock: Callable[[], datetime]
    preview_ttl: timedelta
    preview_key: bytes

    def get(self, name: str) -> Tool: ...
    def parse(self, tool: Tool, args: Mapping[str, Any] | None) -> BaseModel: ...
    def preview(self, tool: Tool, req: WriteRequest, actor: Actor, args: dict[str, Any],
                digest: str) -> dict[str, Any]: ...
    def apply_once(self, tool: Tool, req: WriteRequest, actor: Actor, args: dict[str, Any],
                   digest: str, claims: tokens.Claims | None,
                    also: Also | None = None) -> dict[str, Any]: ...


def hold(session: Session, *, tool: str, args: dict[str, Any], actor: Actor, reads: str,
         preview: dict[str, Any], at: datetime) -> Proposal:
    """Keep a proposal: the apply the actor asked for, not applied."""
    row = Proposal(id=str(uuid.uuid4()), tool=tool, arguments=args, actor=actor.subject,
                   roles=" ".join(sorted(r.name.lower() for r in actor.roles)), reads=reads,
                   preview=preview, summary=str(preview.get("summary", "")),
                   status=ProposalState.pending, created_at=at)
    session.add(row)
    outbox.emit(session.connection(), EventType.proposal_created, {
        "proposal_id": row.id, "tool": tool, "summary": row.summary, "actor": row.actor}, at)
    return row


def announce(session: Session, proposal_id: str, status: ProposalState, by: str,
             at: datetime, operation_id: str | None = None, reason: str | None = None) -> None:
    """A decision is an event too, written in the transaction that makes it."""
    data: dict[str, Any] = {"proposal_id": proposal_id, "status": status.value,
                            "decided_by": by}
    if operation_id is not None:
        data["operation_id"] = operation_id
    if reason is not None:
        data["reason"] = reason
    outbox.emit(session.connection(), EventType.proposal_decided, data, at)


def proposer(row: Proposal) -> Actor:
    """The actor the proposal applies as: its own name and roles, so the operation log
    says who asked, and approval never lends the approver's role to the request."""
    return Actor.of(row.actor, *[Role.parse(r) for r in row.roles.split()])


def get(session: Session, proposal_id: str, *, lock: bool = False) -> Proposal:
    stmt = select(Proposal).where(Proposal.id == proposal_id)
    found = session.scalar(stmt.with_for_update() if lock else stmt)
    if found is None:
        raise NotFound(f"no proposal {proposal_id!r}", field="proposal_id")
    return found


def deciding(row: Proposal, actor: Actor) -> None:
    """Only a pending proposal is decided, and never by the actor who proposed it."""
    if row.status != ProposalState.pending:
        why = f": {row.reason}" if row.status == ProposalState.withdrawn and row.reason else ""
        raise Conflict(f"proposal {row.id} is {row.status} already{why}", field="proposal_id",
                       details={"status": row.status, "reason": row.reason})
    if row.actor == actor.subject:
        raise Forbidden("a proposal is approved by someone other than its proposer",
                        field="proposal_id")


def decide(session: Session, row: Proposal, actor: Actor, status: ProposalState, at: datetime,
           *, reason: str | None = None, operation_id: str | None = None) -> None:
    """Mark it decided, only if it is still pending (a racing decision loses)."""
    done = session.execute(
        update(Proposal).where(Proposal.id == row.id, Proposal.status == ProposalState.pending)
        .values(status=status, decided_by=actor.subject, decided_at=at, reason=reason,
                operation_id=operation_id, version=Proposal.version + 1))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise Conflict(f"proposal {row.id} was decided by someone else meanwhile",
                       field="proposal_id")
    announce(session, row.id, status, actor.subject, at, operation_id)


def pending_of(session: Session, proposer_name: str, *, lock: bool = False) -> list[Proposal]:
    """A proposer's proposals still waiting, for a change to its account to follow."""
    stmt = select(Proposal).where(Proposal.actor == proposer_name,
                                  Proposal.status == ProposalState.pending) \
        .order_by(Proposal.created_at, Proposal.id)
    return list(session.scalars(stmt.with_for_update() if lock else stmt))


def withdraw(session: Session, row: Proposal, by: str, at: datetime, reason: str) -> None:
    """Its proposer may no longer do what it asked: nobody may approve it in its name."""
    session.execute(
        update(Proposal).where(Proposal.id == row.id, Proposal.status == ProposalState.pending)
        .values(status=ProposalState.withdrawn, decided_by=by, decided_at=at, reason=reason,
                version=Proposal.version + 1))
    announce(session, row.id, ProposalState.withdrawn, by, at, reason=reason)


def standing(session: Session, row: Proposal, needs: Role) -> str | None:
    """Why the proposer, as it stands now, may not have this applied (None: it may): its
    tokens revoked since it proposed, its account disabled or below the role needed."""
    revoked = session.scalar(select(RevokedSubject.revoked_at)
                             .where(RevokedSubject.subject == row.actor))
    if revoked is not None and revoked >= row.created_at:
        return "its proposer's tokens were revoked"
    found = session.execute(select(Account.role, Account.disabled)
                            .where(Account.username == row.actor)).first()
    if found is None:
        return None
    role, disabled = found
    if disabled:
        return "its proposer's account is disabled"
    if Role.parse(role) < needs:
        return f"its proposer's role is now {role}, below the {needs.name} role it needs"
    return None


_SHOWN = ("summary", "changes", "warnings", "document")
HELD = "held_for_approval"
"""The preview warning of a write whose apply waits for approval whoever asks for it."""


def held(reg: _Registry, tool: Tool, req: WriteRequest, actor: Actor,
         args: dict[str, Any], digest: str) -> bool:
    """Whether this apply is held (a tool that `holds`, previewing a warning saying so):
    it is proposed, as an apply by an actor who needs approval is. Approving it applies
    it, since an approval runs the apply itself, not this check."""
    if not tool.facts.holds:
        return False
    shown = reg.preview(tool, req, actor, args, digest)
    return any(w.get("code") == HELD for w in shown["warnings"])


def propose(reg: _Registry, tool: Tool, req: WriteRequest, actor: Actor,
            args: dict[str, Any], digest: str) -> dict[str, Any]:
    """The apply of an actor who needs approval: preview it, keep the proposal, apply
    nothing. A preview that is blocked (a coded refusal in its warnings) is answered as
    it is, since there is nothing anyone could approve. A repeated idempotency key gets
    the first answer, not a second proposal."""
    shown = reg.preview(tool, req, actor, args, digest)
    if shown["preview_token"] is None:
        return shown
    reads = tokens.verified(reg.preview_key, shown["preview_token"]).reads

    def run() -> dict[str, Any]:
        with reg.store.writing() as session:
            key = req.idempotency_key
            replayed = records.replay(session, key, tool.name, actor.subject, digest)
            if replayed is not None:
                return replayed
            row = hold(session, tool=tool.name, args=args, actor=actor, reads=reads,
                       preview={k: shown[k] for k in _SHOWN}, at=reg.clock())
            result = {"applied": False, "proposed": True, "replayed": False,
                      "proposal_id": row.id, "status": ProposalState.pending.value,
                      "summary": f"Proposed, not applied (waits for approval): "
                                 f"{shown['summary']}",
                      "changes": shown["changes"], "warnings": shown["warnings"]}
            records.remember(session, key, tool.name, actor.subject, digest, result,
                             reg.clock())
            session.commit()
            return result

    return reg.store.retrying(run)


def approve(reg: _Registry, tool: Tool, req: WriteRequest, actor: Actor) -> dict[str, Any]:
    """Approve a proposal: its preview as of now (preview=true), or its apply as the
    proposer, exactly once, only if nothing its proposer's preview read has changed."""
    pid = str(req.model_dump()["proposal_id"])
    with reg.store.reading() as session:
        row = get(session, pid)
        replayed = _replayed(session, row, req.idempotency_key)
        if replayed is not None:
            return replayed
        deciding(row, actor)
        target = reg.get(row.tool)
        barred = standing(session, row, target.facts.role)
        session.expunge(row)
    if barred is not None:
        raise Forbidden(f"proposal {pid} cannot be approved: {barred}", field="proposal_id")
    if not actor.may(target.facts.role):
        raise Forbidden(f"approving it needs the {target.facts.role.name} role that "
                        f"{target.name} needs", field="proposal_id")
    as_proposer = proposer(row)
    control = {"preview": req.preview, "idempotency_key": req.idempotency_key}
    treq = reg.parse(target, {**row.arguments, **control})
    assert isinstance(treq, WriteRequest)
    args = treq.model_dump(mode="json", exclude=set(CONTROL_FIELDS))
    digest = tokens.args_hash(args)
    approving = tokens.args_hash({"proposal_id": pid})
    if treq.preview:
        shown = reg.preview(target, treq, as_proposer, args, digest)
        if not shown["apply"]:
            return {**shown, "proposal_id": pid}
        exp = reg.clock() + reg.preview_ttl
        token = tokens.issue(reg.preview_key, tool=tool.name, actor=actor.subject,
                             args=approving, reads=row.reads, exp=exp.timestamp())
        return {**shown, "tool": tool.name, "preview_token": token,
                "expires_at": exp.isoformat(), "proposal_id": pid,
                "apply": {"tool": tool.name, "arguments": {
                    "proposal_id": pid, "preview": False, "preview_token": token,
                    "idempotency_key": str(uuid.uuid4())}}}
    if req.preview_token:
        mine = tokens.verified(reg.preview_key, req.preview_token)
        if (mine.tool, mine.actor, mine.args) != (tool.name, actor.subject, approving) \
                or mine.exp < reg.clock().timestamp():
            raise StalePreview("this preview_token is not a current preview of approving "
                               "this proposal by you; preview again", field="preview_token")
    claims = tokens.Claims(tool=target.name, actor=row.actor, args=digest, reads=row.reads,
                           exp=math.inf, nonce=f"proposal:{pid}")
    at = reg.clock()

    def mark(session: Session, result: dict[str, Any]) -> None:
        decide(session, row, actor, ProposalState.approved, at,
               operation_id=result.get("operation_id"))

    try:
        result = reg.store.retrying(lambda: reg.apply_once(
            target, treq, as_proposer, args, digest, claims, also=mark))
    except StalePreview:
        _mark_stale(reg, row, actor)
        raise
    return {**result, "proposal_id": pid}


def _replayed(session: Session, row: Proposal, key: str | None) -> dict[str, Any] | None:
    """A retried approval (same idempotency key) gets the first apply's result, as any
    retried apply does, though the proposal is no longer pending."""
    found = records.key_row(session, key) if key is not None else None
    if found is None:
        return None
    if (found.tool, found.actor) != (row.tool, row.actor) or \
            found.result.get("operation_id") != row.operation_id:
        raise Conflict("this idempotency_key was already used for a different request",
                       field="idempotency_key")
    return {**found.result, "replayed": True, "proposal_id": row.id}


def _mark_stale(reg: _Registry, row: Proposal, actor: Actor) -> None:
    """What the proposal read has changed: it can never be applied as it was seen."""
    def run() -> None:
        with reg.store.writing() as session:
            at = reg.clock()
            done = session.execute(
                update(Proposal).where(Proposal.id == row.id,
                                       Proposal.status == ProposalState.pending)
                .values(status=ProposalState.stale, decided_by=actor.subject,
                        decided_at=at, reason="what it read has changed since",
                        version=Proposal.version + 1))
            if done.rowcount == 1:  # type: ignore[attr-defined]
                announce(session, row.id, ProposalState.stale, actor.subject, at)
            session.commit()

    reg.store.retrying(run)


def listing(session: Session, status: str | None, actor: str | None, limit: int,
            after: tuple[datetime, str] | None) -> list[Proposal]:
    """Oldest first (an inbox is worked from the top); `actor` keeps one proposer's own."""
    stmt = select(Proposal).order_by(Proposal.created_at, Proposal.id).limit(limit)
    if status is not None:
        stmt = stmt.where(Proposal.status == status)
    if actor is not None:
        stmt = stmt.where(Proposal.actor == actor)
    if after is not None:
        stmt = stmt.where((Proposal.created_at > after[0])
                          | ((Proposal.created_at == after[0]) & (Proposal.id > after[1])))
    return list(session.scalars(stmt))
