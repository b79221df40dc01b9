"""The loop both worker threads run, the job loop (worker.py) and the webhook sender
(delivery.py): one step at a time while there is work, a pause when there is none, and
every so often a sweep of what a dead worker left behind (a job's or a delivery's lease).
An error is logged and the loop goes on: one bad row never stops a worker."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable


def run(stop: threading.Event, step: Callable[[], int], sweep: Callable[[], object], *,
        sweep_every: float, poll: float, log: logging.Logger, what: str) -> None:
    """Until `stop`: `step()` (what it did; when nothing, wait `poll` seconds), and
    `sweep()` once `sweep_every` seconds have passed since the last."""
    last_sweep = 0.0
    while not stop.is_set():
        try:
            if time.monotonic() - last_sweep > sweep_every:
                sweep()
                last_sweep = time.monotonic()
            if not step():
                stop.wait(poll)
        except Exception:
            log.exception("%s loop error; continuing", what)
            stop.wait(poll)
