"""Background jobs: list them, follow one, cancel one (the tools that start them sit with
what they do: MRP in planning.py, imports in bulk.py).

Stopping a job is as strong as starting it: cancelling takes the role of the tool that
started the job (its kind), unless the one cancelling is the one who started it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import view
from shopfloor.kernel.errors import Conflict, Forbidden, NotFound
from shopfloor.kernel.roles import Role
from shopfloor.registry import catalogue
from shopfloor.registry.catalogue import Catalogue
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store import queue
from shopfloor.store.tables import Job
from shopfloor.tools.fields import Amount, JobId, Limit, Out

tools = Toolset("jobs")
CANCEL_ROLE = Role.operator
MRP_KIND = "mrp"


JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class JobOut(Out):
    job_id: str
    kind: str
    status: str
    progress: Amount = Field(description="0 to 1")
    message: str
    result: dict[str, Any] | None
    actor: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    applied_operation: str | None = Field(None, description="the apply that used its result")


def job_out(j: Job) -> JobOut:
    return JobOut(job_id=j.id, kind=j.kind, status=j.status, progress=j.progress,
                  message=j.message, result=j.result, actor=j.actor, created_at=j.created_at,
                  started_at=j.started_at, finished_at=j.finished_at,
                  applied_operation=j.applied_operation)


class JobQuery(Request):
    status: JobStatus | None = None
    limit: Limit = 50


class JobList(Out):
    jobs: list[JobOut]


@tools.read("list_jobs", title="List jobs", response=JobList,
            description="Background jobs (MRP runs, imports, rebuilds), newest first.")
def list_jobs(op: Op, req: JobQuery) -> JobList:
    stmt = select(Job).order_by(Job.created_at.desc()).limit(req.limit)
    if req.status:
        stmt = stmt.where(Job.status == req.status)
    return JobList(jobs=[job_out(j) for j in op.session.scalars(stmt)])


class JobRef(Request):
    job_id: JobId


@tools.read("get_job", title="Get job", response=JobOut,
            description="One job: status, progress, message and, when finished, its result.")
def get_job(op: Op, req: JobRef) -> JobOut:
    job = op.session.get(Job, req.job_id)
    if job is None:
        raise NotFound(f"no job {req.job_id!r}", field="job_id")
    return job_out(job)


def job_row(op: Op, job_id: str, *, lock: bool = False) -> Job:
    stmt = select(Job).where(Job.id == job_id)
    job = op.session.scalars(op.lock(stmt) if lock else stmt).one_or_none()
    if job is None:
        raise NotFound(f"no job {job_id!r}", field="job_id")
    return job


@tools.read("get_job_status", everyday=True, title="Job status", response=JobOut, app_only=True,
            description="Progress of a job, polled by the job dashboard card.")
def get_job_status(op: Op, req: JobRef) -> JobOut:
    job = job_row(op, req.job_id)
    out = job_out(job)
    if job.kind == MRP_KIND and job.result:  # bounded for the card; get_job has it whole
        out.result = view.for_card(job.result)
    return out


class CancelJob(WriteRequest):
    job_id: JobId


@tools.write("cancel_job", title="Cancel job", response=JobOut,
             description="Cancel a queued job, or stop a running one at its next checkpoint.",
             destructive=False,
             undo=Undo.refused("start the job again"))
def cancel_job(op: Op, req: CancelJob) -> Done[JobOut]:
    job = job_row(op, req.job_id, lock=True)
    _may_cancel(op, job)
    if job.status in queue.TERMINAL:
        raise Conflict(f"job {job.id} is already {job.status}", field="job_id")
    before = job.status
    outcome = queue.request_cancel(op.session, job)
    op.change("job", job.id, "status", before, outcome)
    return Done(f"Cancel job {job.id} ({job.kind}): {outcome}", job_out(job))


def role_to_cancel(tools: Catalogue, kind: str) -> tuple[str, Role]:
    """The tool that started a job of this kind, and its role, from the declarations: a
    write job's kind is its tool's name, a job tool names the kind it `runs`. An unknown
    kind needs admin (nothing in the catalogue vouches for it)."""
    for t in tools.tools():
        if (t.facts.runs is not None and t.facts.runs[0] == kind) or \
                (t.name == kind and t.facts.runs is None and t.facts.writes and t.facts.job):
            return t.name, t.facts.role
    return kind, Role.admin


def _held(op: Op) -> Role:
    """The highest role of the one cancelling: the registry has checked cancel_job's own
    role, so at least that."""
    return max((*op.roles, CANCEL_ROLE))


def _may_cancel(op: Op, job: Job) -> None:
    """Forbidden, in a preview too: who may stop a job does not depend on its state."""
    if job.actor == op.actor:
        return
    tool, needed = role_to_cancel(catalogue.of(op), job.kind)
    if _held(op) >= needed:
        return
    raise Forbidden(f"cancelling job {job.id} ({job.kind}) needs the {needed.name} role, as "
                    f"{tool} does, or being the one who started it ({job.actor}); "
                    f"{op.actor} is neither", field="job_id")
