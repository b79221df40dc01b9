"""The operation log and job reads."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import NotFound
from shopfloor.registry.tool import Request, Toolset
from shopfloor.store.tables import Job, OperationLog
from shopfloor.tools.fields import (
    Amount,
    JobId,
    Key,
    Limit,
    Name,
    Out,
    Page,
    RowCursor,
    Since,
    paged,
)

tools = Toolset("history")


class LogQuery(Request):
    tool: Key | None = None
    actor: Name | None = None
    operation_id: Key | None = Field(None, description="one operation, with its result")
    since: Since | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


class LogEntry(Out):
    operation_id: str
    tool: str
    actor: str
    summary: str
    arguments: dict[str, Any]
    idempotency_key: str | None
    created_at: datetime
    result: dict[str, Any] | None = None


class LogPage(Page):
    entries: list[LogEntry]


@tools.read("get_operation_log", title="Operation log", response=LogPage,
            description="Applied writes, newest first: tool, arguments, actor, time, summary.")
def get_operation_log(op: Op, req: LogQuery) -> LogPage:
    stmt = select(OperationLog).order_by(OperationLog.id.desc()).limit(req.limit + 1)
    if req.tool:
        stmt = stmt.where(OperationLog.tool == req.tool)
    if req.actor:
        stmt = stmt.where(OperationLog.actor == req.actor)
    if req.since:
        stmt = stmt.where(OperationLog.created_at >= req.since)
    if req.operation_id:
        stmt = stmt.where(OperationLog.operation_id == req.operation_id)
    if req.cursor:
        stmt = stmt.where(OperationLog.id < int(req.cursor))
    rows = list(op.session.scalars(stmt))
    rows, next_cursor = paged(rows, req.limit, lambda r: str(r.id))
    return LogPage(entries=[LogEntry(operation_id=r.operation_id, tool=r.tool, actor=r.actor,
                                     summary=str(r.result.get("summary", "")),
                                     arguments=r.arguments, idempotency_key=r.idempotency_key,
                                     created_at=r.created_at,
                                     result=r.result if req.operation_id else None)
                            for r in rows],
                   next_cursor=next_cursor)


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


@tools.read("list_jobs", toolset="jobs", title="List jobs", response=JobList,
            description="Background jobs (MRP runs, imports, rebuilds), newest first.")
def list_jobs(op: Op, req: JobQuery) -> JobList:
    stmt = select(Job).order_by(Job.created_at.desc()).limit(req.limit)
    if req.status:
        stmt = stmt.where(Job.status == req.status)
    return JobList(jobs=[job_out(j) for j in op.session.scalars(stmt)])


class JobRef(Request):
    job_id: JobId


@tools.read("get_job", toolset="jobs", title="Get job", response=JobOut,
            description="One job: status, progress, message and, when finished, its result.")
def get_job(op: Op, req: JobRef) -> JobOut:
    job = op.session.get(Job, req.job_id)
    if job is None:
        raise NotFound(f"no job {req.job_id!r}", field="job_id")
    return job_out(job)
