"""A job's lease runs on the registry's clock: the job of a worker gone silent goes back
to the queue once that clock passes its lease, not a second before, and no test waits
the lease out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry, worker_for
from shopfloor.store import queue
from shopfloor.store.tables import Job
from tests.clock import Clock

pytestmark = pytest.mark.quick

LEASE = timedelta(seconds=20)


def test_a_silent_workers_job_is_requeued_once_the_clock_passes_its_lease(
        sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    clock = Clock(datetime.now(UTC).replace(microsecond=0))
    reg.clock = clock
    try:
        sweeper = worker_for(reg, name="sweeper", stale_after=LEASE)
        assert sweeper.clock() == clock()  # the worker's leases read the registry's clock
        with reg.store.writing() as s:
            job_id = queue.enqueue(s, "nothing", {}, "tester").id
            s.commit()
        assert queue.claim(reg.store, "silent", job_id, clock=sweeper.clock) is not None
        clock.move(LEASE)  # the lease's last moment: still held
        assert queue.requeue_stale(reg.store, LEASE, clock=sweeper.clock) == 0
        clock.move(timedelta(seconds=1))
        assert queue.requeue_stale(reg.store, LEASE, clock=sweeper.clock) == 1
        with reg.store.reading() as s:
            job = s.get(Job, job_id)
            assert job is not None
            assert (job.status, job.worker, job.attempts) == ("queued", None, 1)
            assert job.message == "worker silent stopped responding; re-queued"
    finally:
        reg.store.dispose()
