"""What a job's code is handed: its arguments, a checkpoint for progress and cancel.

It sits in the registry because a tool declares the job it runs (and a write job is run
by the registry itself), while the worker that claims and runs jobs sits above, in app.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shopfloor.store import queue
from shopfloor.store.engine import Store
from shopfloor.store.queue import Cancelled

__all__ = ["Cancelled", "JobContext", "Runner"]

SAVE_EVERY = 0.2  # seconds between progress writes: enough for a live card, cheap for the db


@dataclass
class JobContext:
    store: Store
    job_id: str
    worker: str
    actor: str
    arguments: dict[str, Any]
    clock: queue.Clock = queue.now
    fraction: float = 0.0
    message: str = ""
    defer: bool = False
    """Set while the job holds SQLite's write lock: progress waits for the heartbeat thread
    (writing it from here would wait on our own lock)."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _saved: float = 0.0

    def progress(self, fraction: float, message: str) -> None:
        """A checkpoint: report progress; stop here if the job was cancelled."""
        self.fraction, self.message = fraction, message
        if self._stop.is_set():
            raise Cancelled
        if self.defer or time.monotonic() - self._saved < SAVE_EVERY:
            return
        self._saved = time.monotonic()
        if queue.beat(self.store, self.job_id, self.worker, fraction, message,
                      clock=self.clock):
            self._stop.set()
            raise Cancelled

    def keep_alive(self) -> None:
        """One heartbeat from the side thread: look for a cancel (a read, which SQLite's
        writer never blocks), then record liveness and progress unless deferred."""
        stop = queue.stop_requested(self.store, self.job_id, self.worker)
        if not stop and not self.defer:
            stop = queue.beat(self.store, self.job_id, self.worker, self.fraction,
                              self.message or None, clock=self.clock)
        if stop:
            self._stop.set()


Runner = Callable[[JobContext], dict[str, Any]]
