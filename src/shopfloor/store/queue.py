"""The job queue lives in the database, so any number of servers and workers share it.

Claiming is atomic: on PostgreSQL with SELECT ... FOR UPDATE SKIP LOCKED (workers on any
number of machines never block each other or take the same job); on SQLite inside a
BEGIN IMMEDIATE transaction (one writer at a time, so a claim cannot race). A job whose
worker stops heartbeating is re-queued, a bounded number of times, then failed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import defer

from shopfloor.kernel.events import EventType
from shopfloor.kernel.statuses import JOB_TERMINAL, JobState
from shopfloor.store import outbox
from shopfloor.store.engine import Store
from shopfloor.store.tables import Job

MAX_ATTEMPTS = 3
TERMINAL = JOB_TERMINAL


class Cancelled(Exception):
    """Raised at a checkpoint when the job was cancelled, or taken by another worker."""


def now() -> datetime:
    return datetime.now(UTC)


Clock = Callable[[], datetime]
"""A job's lease runs on its worker's clock (the registry's): claims and heartbeats stamp
by it and the stale sweep reads it, so a test moves it past a lease instead of waiting."""


def finished(session: Any, job: Job) -> None:
    """The job's event, in the transaction that ends it (the outbox)."""
    outbox.emit(session.connection(), EventType.job_finished, {
        "job_id": job.id, "kind": job.kind, "status": str(job.status),
        "summary": job.message, "actor": job.actor}, job.finished_at or now())


def enqueue(session: Any, kind: str, arguments: dict[str, Any], actor: str) -> Job:
    job = Job(id=str(uuid.uuid4()), kind=kind, arguments=arguments, status=JobState.queued,
              progress=Decimal(0), message="queued", actor=actor, attempts=0,
              cancel_requested=False, created_at=now())
    session.add(job)
    session.flush()
    return job


def claim(store: Store, worker: str, job_id: str | None = None, *,
          clock: Clock = now) -> Job | None:
    """Take the oldest queued job (or this one) for `worker`; None when there is none.

    An idle worker polls this every half second: it looks with a read first, so it takes
    SQLite's write lock (or a PostgreSQL write transaction) only when there is a job."""
    with store.reading() as s:
        waiting = select(Job.id).where(Job.status == JobState.queued).limit(1)
        if job_id is not None:
            waiting = waiting.where(Job.id == job_id)
        if s.execute(waiting).first() is None:
            return None

    def attempt() -> Job | None:
        with store.writing() as s:
            stmt = (select(Job).where(Job.status == JobState.queued)
                    .order_by(Job.created_at).limit(1))
            if job_id is not None:
                stmt = stmt.where(Job.id == job_id)
            if store.locks_rows:
                stmt = stmt.with_for_update(skip_locked=True)
            job = s.scalars(stmt).first()
            if job is None:
                return None
            stamp = clock()
            job.status, job.worker, job.attempts = JobState.running, worker, job.attempts + 1
            job.heartbeat_at, job.started_at = stamp, job.started_at or stamp
            job.message = f"running on {worker}"
            s.commit()
            return job

    return store.retrying(attempt)


def beat(store: Store, job_id: str, worker: str, progress: float | None = None,
         message: str | None = None, *, clock: Clock = now) -> bool:
    """Record liveness (and progress); True when the job should stop (cancel or lost)."""
    def attempt() -> bool:
        with store.writing() as s:
            # not the result: a heartbeat racing the end of a job would decode the whole
            # plan it just stored (tens of MB for a big MRP run) only to see it is done
            job = s.get(Job, job_id, options=[defer(Job.result)])
            if job is None or job.worker != worker or job.status != JobState.running:
                return True
            job.heartbeat_at = clock()
            if progress is not None:
                job.progress = Decimal(str(round(min(max(progress, 0.0), 1.0), 4)))
            if message is not None:
                job.message = message[:2000]
            stop = job.cancel_requested
            s.commit()
            return stop

    return store.retrying(attempt)


def finish(store: Store, job_id: str, worker: str, status: str, message: str,
           result: dict[str, Any] | None = None) -> None:
    def attempt() -> None:
        with store.writing() as s:
            job = s.get(Job, job_id, options=[defer(Job.result)])
            if job is None or job.worker != worker or job.status != JobState.running:
                return  # re-queued meanwhile: another worker owns it now
            final, text, kept = status, message, result
            if status == JobState.succeeded and job.cancel_requested:
                # asked to stop after its last checkpoint: a job that changes nothing (MRP)
                # drops its result, so the cancel the user was told about holds
                final, text, kept = JobState.cancelled, "cancelled by request", None
            job.status, job.message, job.result = final, text[:2000], kept
            job.finished_at = now()
            if final == JobState.succeeded:
                job.progress = Decimal(1)
            finished(s, job)
            s.commit()

    store.retrying(attempt)


def stop_requested(store: Store, job_id: str, worker: str) -> bool:
    """A read-only look (never waits on a writer, even SQLite's): cancelled, or lost?"""
    with store.reading() as s:
        row = s.execute(select(Job.status, Job.worker, Job.cancel_requested)
                        .where(Job.id == job_id)).first()
    return row is None or row.status != JobState.running or row.worker != worker or \
        bool(row.cancel_requested)


def complete(session: Any, job_id: str, worker: str, message: str, result: dict[str, Any],
             *, lock: bool) -> None:
    """Mark the job succeeded inside the transaction that did its work, so the work and
    MO.done commit together: a worker killed before the commit leaves neither."""
    stmt = select(Job).where(Job.id == job_id)
    job = session.scalars(stmt.with_for_update() if lock else stmt).one_or_none()
    if (job is None or job.worker != worker or job.status != JobState.running
            or job.cancel_requested):
        raise Cancelled
    job.status, job.message, job.result = JobState.succeeded, message[:2000], result
    job.progress, job.finished_at, job.heartbeat_at = Decimal(1), now(), now()
    finished(session, job)


def requeue_stale(store: Store, timeout: timedelta, max_attempts: int = MAX_ATTEMPTS, *,
                  clock: Clock = now) -> int:
    """Jobs whose worker went silent: back to the queue, or failed after `max_attempts`."""
    def attempt() -> int:
        cutoff = clock() - timeout
        with store.writing() as s:
            stmt = select(Job).where(Job.status == JobState.running, or_(
                Job.heartbeat_at.is_(None), Job.heartbeat_at < cutoff))
            if store.locks_rows:
                stmt = stmt.with_for_update(skip_locked=True)
            stale = list(s.scalars(stmt))
            for job in stale:
                lost = f"worker {job.worker} stopped responding"
                if job.cancel_requested:
                    job.status, job.message, job.finished_at = JobState.cancelled, lost, now()
                    finished(s, job)
                elif job.attempts >= max_attempts:
                    job.status, job.finished_at = JobState.failed, now()
                    job.message = f"{lost}; failed after {job.attempts} attempts"
                    finished(s, job)
                else:
                    job.status, job.worker = JobState.queued, None
                    job.message = f"{lost}; re-queued"
            s.commit()
            return len(stale)

    return store.retrying(attempt)


def give_back(store: Store, worker: str) -> int:
    """The jobs `worker` is running, back to the queue at once: it is stopping and they
    will not end in time. Not a lost attempt (the next worker starts them afresh); a job
    that was asked to cancel is cancelled instead. How many were given back."""
    def attempt() -> int:
        with store.writing() as s:
            held = list(s.scalars(select(Job).where(Job.worker == worker,
                                                    Job.status == JobState.running)))
            for job in held:
                if job.cancel_requested:
                    job.status, job.finished_at = JobState.cancelled, now()
                    job.message = f"worker {worker} stopped; cancelled by request"
                    finished(s, job)
                    continue
                job.status, job.worker = JobState.queued, None
                job.attempts = max(job.attempts - 1, 0)
                job.message = f"worker {worker} stopped; re-queued"
            s.commit()
            return len(held)

    return store.retrying(attempt)


def request_cancel(session: Any, job: Job) -> str:
    """Queued jobs cancel at once; running ones at their next checkpoint."""
    if job.status == JobState.queued:
        job.status, job.finished_at = JobState.cancelled, now()
        job.message = "cancelled before start"
        finished(session, job)
        return JobState.cancelled
    if job.status == JobState.running:
        job.cancel_requested = True
        job.message = "cancelling at the next checkpoint"
        return "cancelling"
    return job.status

