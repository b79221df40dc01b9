"""A write whose apply queues a job: queued with what its preview read, then run by a
worker through the tool's own handler, once, or refused as stale.

The registry calls both halves (its apply queues, its job runners run); this module holds
them apart from the dispatch, and reads the registry only through its public attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ShopfloorError, StalePreview
from shopfloor.registry import records, tokens
from shopfloor.registry.actor import Actor
from shopfloor.registry.jobs import JobContext
from shopfloor.registry.tool import Tool
from shopfloor.store import queue
from shopfloor.store.engine import Store
from shopfloor.store.tracking import fingerprint, start_tracking
from shopfloor.store.violations import unique_violation


class Runs(Protocol):
    """What a write job's run needs of the registry (registry.py imports this module)."""

    @property
    def store(self) -> Store: ...
    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def finishers(self) -> Sequence[Callable[[Op], None]]: ...
    @property
    def options(self) -> Mapping[str, Any]: ...


def queued(session: Session, tool: Tool, actor: Actor, args: dict[str, Any],
           claims: tokens.Claims | None, idempotency_key: str | None) -> dict[str, Any]:
    """The apply of a write job: queue it, carrying what the preview read, so the job
    applies only if that is still so when it runs."""
    job = queue.enqueue(session, tool.name, {
        "arguments": args, "reads": claims.reads if claims else None,
        "idempotency_key": idempotency_key}, actor.subject)
    return {"applied": True, "replayed": False, "queued": True,
            "summary": f"{tool.title}: queued as job {job.id}; it applies when it runs",
            "operation_id": job.id, "job_id": job.id, "status": job.status,
            "kind": job.kind, "changes": [], "warnings": []}


def run(reg: Runs, tool: Tool, ctx: JobContext) -> dict[str, Any]:
    """Run a queued write: the tool's own handler in one transaction that also marks
    the job done (so it applies exactly once, even when a worker dies and another
    re-runs it), refused as stale if anything its preview read has changed."""
    spec = ctx.arguments
    req = tool.request.model_validate({**spec["arguments"], "preview": False})
    expected: str | None = spec.get("reads")
    store = reg.store

    def attempt() -> dict[str, Any]:
        with store.writing() as session:
            reads = start_tracking(session)
            op = Op(session, ctx.actor, reg.clock(), dialect=store.dialect,
                    locks_rows=store.locks_rows, operation_id=ctx.job_id,
                    checkpoint=ctx.progress, finishers=reg.finishers, options=reg.options,
                    catalogue=reg)
            try:
                done = tool.handler(op, req)
                op.flush()
            except IntegrityError as exc:  # a racing create of the same key
                conflict = unique_violation(exc, spec["arguments"])
                if conflict is None:
                    raise
                raise conflict from exc
            except ShopfloorError as exc:
                if expected is None:
                    raise
                raise StalePreview(f"changed since the preview: {exc.message}; nothing "
                                   "was written. Preview again.", field="preview_token",
                                   details={"cause": exc.to_payload()["error"]}) from None
            session.info.pop("reads", None)
            if expected is not None and fingerprint(reads) != expected:
                raise StalePreview("something this preview read has changed since; "
                                   "nothing was written. Preview again.",
                                   field="preview_token")
            result = records.record(session, tool.name, op, done, spec["arguments"],
                                    spec.get("idempotency_key"))
            queue.complete(session, ctx.job_id, ctx.worker, done.summary, result,
                           lock=store.locks_rows)
            session.commit()
            return result

    ctx.defer = not store.locks_rows
    try:
        return store.retrying(attempt)
    finally:
        ctx.defer = False
