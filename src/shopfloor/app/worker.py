"""The worker: claims jobs, runs them with a heartbeat, records the outcome; beside them,
in a thread of its own, it delivers webhooks (app/delivery.py), so a long job never holds
up an event.

`shopfloor serve` and `shopfloor mcp` run one in a thread; `shopfloor worker` runs one in
the foreground; a CLI call with --wait runs its own job when nobody else has taken it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from datetime import timedelta

from shopfloor.app import polling
from shopfloor.app.delivery import Deliverer
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.statuses import JobState
from shopfloor.registry.jobs import Cancelled, JobContext, Runner
from shopfloor.store import queue
from shopfloor.store.engine import Store
from shopfloor.store.tables import Job

log = logging.getLogger("shopfloor.worker")

__all__ = ["GRACE", "Worker", "start_in_thread"]
GRACE = 2.0
"""Seconds a stopping worker waits for its running job before giving it back: a deploy's
SIGTERM is answered within seconds (orchestrators kill after 10 to 30), not after a
long MRP run."""


Kinds = Mapping[str, Runner]


class Worker:
    def __init__(self, store: Store, kinds: Kinds | Callable[[], Kinds], *,
                 name: str | None = None,
                 poll: float = 0.5, heartbeat: float = 2.0,
                 stale_after: timedelta = timedelta(seconds=20),
                 delivery: Deliverer | None = None, clock: queue.Clock = queue.now) -> None:
        self.store = store
        self.delivery = delivery
        self._kinds = kinds
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident() % 10000}"
        self.poll = poll
        self.heartbeat = heartbeat
        self.stale_after = stale_after
        self.clock = clock  # the leases' (queue.Clock)

    @property
    def kinds(self) -> Kinds:
        """The runners by job kind; given as a function, built when first needed (a job
        claimed): building them loads every tool's module, and in `shopfloor mcp` that load
        held the interpreter while the calls of the first seconds waited for it, each
        call several times slower (issue 32)."""
        if callable(self._kinds):
            self._kinds = self._kinds()
        return self._kinds

    def run_one(self, job_id: str | None = None) -> bool:
        job = queue.claim(self.store, self.name, job_id, clock=self.clock)
        if job is None:
            return False
        self.execute(job)
        return True

    def execute(self, job: Job) -> None:
        ctx = JobContext(self.store, job.id, self.name, job.actor, dict(job.arguments),
                         self.clock)
        done = threading.Event()

        def keep_alive() -> None:
            while not done.wait(self.heartbeat):
                try:
                    ctx.keep_alive()
                except Exception:
                    log.warning("heartbeat of job %s failed; retrying", job.id, exc_info=True)

        beat = threading.Thread(target=keep_alive, daemon=True, name=f"beat-{job.id[:8]}")
        beat.start()
        try:
            runner = self.kinds.get(job.kind)
            if runner is None:
                raise ValueError(f"no runner for job kind {job.kind!r}")
            result = runner(ctx)
        except Cancelled:
            queue.finish(self.store, job.id, self.name, JobState.cancelled, "cancelled by request")
        except ShopfloorError as exc:
            queue.finish(self.store, job.id, self.name, JobState.failed,
                         f"{exc.code}: {exc.message}",
                         exc.to_payload())
        except Exception as exc:
            log.error("job %s (%s) failed: %s", job.id, job.kind, traceback.format_exc())
            queue.finish(self.store, job.id, self.name, JobState.failed,
                         f"{type(exc).__name__}: {exc}")
        else:
            queue.finish(self.store, job.id, self.name, JobState.succeeded,
                         str(result.get("summary", "done")), result)
        finally:
            done.set()
            beat.join(5)

    def run(self, stop: threading.Event, grace: float = GRACE) -> int:
        """Run until `stop`, then end within about `grace` seconds whatever is running: a
        job still running then is given back to the queue (another worker starts it
        afresh), and deliveries in flight are left to their lease. Returns how many
        jobs were given back."""
        sender = None
        if self.delivery is not None:
            sender = threading.Thread(target=self.delivery.run, args=(stop,), daemon=True,
                                      name="webhooks")
            sender.start()
        jobs = threading.Thread(target=self._run_jobs, args=(stop,), daemon=True, name="jobs")
        jobs.start()
        while not stop.wait(0.5) and jobs.is_alive():
            pass
        deadline = time.monotonic() + grace
        jobs.join(grace)
        given = 0
        if jobs.is_alive():
            given = queue.give_back(self.store, self.name)
            log.warning("worker %s stopping: gave back %d job(s) still running", self.name,
                        given)
        if sender is not None:  # its sends in flight end within their timeout, or lapse
            sender.join(max(deadline - time.monotonic(), 0.1))
        return given

    def _run_jobs(self, stop: threading.Event) -> None:
        polling.run(stop, self.run_one,
                    lambda: queue.requeue_stale(self.store, self.stale_after, clock=self.clock),
                    sweep_every=self.stale_after.total_seconds() / 4, poll=self.poll, log=log,
                    what="worker")


def start_in_thread(worker: Worker, after: threading.Event | None = None
                    ) -> Callable[[], None]:
    """Run `worker` in a daemon thread (once `after` is set, if given: a server starts it
    once it listens, so its first rounds do not hold up the first page); returns a
    function that stops it."""
    stop = threading.Event()

    def run() -> None:
        while after is not None and not after.wait(0.1):
            if stop.is_set():
                return
        worker.run(stop)

    thread = threading.Thread(target=run, daemon=True, name="worker")
    thread.start()

    def halt() -> None:
        stop.set()
        thread.join(GRACE + 1)

    return halt
