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
from collections.abc import Callable
from datetime import timedelta

from shopfloor.app.delivery import Deliverer
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.statuses import JobState
from shopfloor.registry.jobs import Cancelled, JobContext, Runner
from shopfloor.store import queue
from shopfloor.store.engine import Store
from shopfloor.store.tables import Job

log = logging.getLogger("shopfloor.worker")

__all__ = ["Worker", "start_in_thread"]


class Worker:
    def __init__(self, store: Store, kinds: dict[str, Runner], *, name: str | None = None,
                 poll: float = 0.5, heartbeat: float = 2.0,
                 stale_after: timedelta = timedelta(seconds=20),
                 delivery: Deliverer | None = None) -> None:
        self.store = store
        self.delivery = delivery
        self.kinds = kinds
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident() % 10000}"
        self.poll = poll
        self.heartbeat = heartbeat
        self.stale_after = stale_after

    def run_one(self, job_id: str | None = None) -> bool:
        job = queue.claim(self.store, self.name, job_id)
        if job is None:
            return False
        self.execute(job)
        return True

    def execute(self, job: Job) -> None:
        ctx = JobContext(self.store, job.id, self.name, job.actor, dict(job.arguments))
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

    def run(self, stop: threading.Event) -> None:
        sender = None
        if self.delivery is not None:
            sender = threading.Thread(target=self.delivery.run, args=(stop,), daemon=True,
                                      name="webhooks")
            sender.start()
        try:
            self._run_jobs(stop)
        finally:
            if sender is not None:  # its sends in flight end within their timeout
                sender.join(self.delivery.timeout + 1 if self.delivery else 0)

    def _run_jobs(self, stop: threading.Event) -> None:
        last_sweep = 0.0
        while not stop.is_set():
            try:
                if time.monotonic() - last_sweep > self.stale_after.total_seconds() / 4:
                    queue.requeue_stale(self.store, self.stale_after)
                    last_sweep = time.monotonic()
                if not self.run_one():
                    stop.wait(self.poll)
            except Exception:
                log.exception("worker loop error; continuing")
                stop.wait(self.poll)


def start_in_thread(worker: Worker) -> Callable[[], None]:
    """Run `worker` in a daemon thread; returns a function that stops it."""
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True, name="worker")
    thread.start()

    def halt() -> None:
        stop.set()
        thread.join(10)

    return halt
