"""Two `shopfloor worker` processes on one PostgreSQL database: 200 queued jobs each run
exactly once, and a worker SIGKILLed in the middle of a job loses nothing: the job is
re-queued when its heartbeat expires and the other worker finishes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, Item, Job, OperationLog
from tests.conftest import _truncate
from tests.given import Given
from tests.helpers import apply, ledger_mismatches

BIG_ROWS = 2500
SMALL_JOBS = 199


def _worker(url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": url, "SHOPFLOOR_JOB_HEARTBEAT_SECONDS": "0.3",
           "SHOPFLOOR_JOB_STALE_SECONDS": "3"}
    return subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "worker",
                             "--poll", "0.1"], env=env, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)


def _jobs(reg: Registry) -> list[Any]:
    with reg.store.reading() as s:
        return list(s.execute(select(Job.id, Job.status, Job.progress, Job.worker, Job.attempts,
                                     Job.message).order_by(Job.created_at)).all())


def _queue_imports(reg: Registry) -> str:
    rows = "\n".join(f"BIG-{i:05d},Big {i},{i % 7 + 1}" for i in range(BIG_ROWS))
    big = apply(reg, "import_items", csv=f"sku,name,on_hand:MAIN\n{rows}\n")
    for i in range(SMALL_JOBS):
        apply(reg, "import_items", csv=f"sku,name,on_hand:MAIN\nS-{i:03d},Small {i},{i + 1}\n")
    job_id: str = big["job_id"]
    return job_id


def _wait(cond: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = cond()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_two_workers_run_each_job_once_and_survive_a_sigkill(pg_schema_url: str,
                                                             tmp_path: Path) -> None:
    url = pg_schema_url
    _truncate(url)
    reg = open_registry(Settings(database_url=url))
    Given(reg).location()
    big_id = _queue_imports(reg)
    assert len(_jobs(reg)) == SMALL_JOBS + 1

    workers = [_worker(url, tmp_path / f"worker{n}.log") for n in (1, 2)]
    try:
        def big_running() -> Any:
            job = next(j for j in _jobs(reg) if j.id == big_id)
            return job if job.status == "running" and job.progress > 0 else None

        running = _wait(big_running, 60, "the big import to be under way")
        victim = next(w for w in workers if f":{w.pid}:" in (running.worker or ""))
        survivor = next(w for w in workers if w is not victim)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        killed_at = Decimal(running.progress)

        def all_finished() -> list[Any] | None:
            jobs = _jobs(reg)
            return jobs if all(j.status in ("succeeded", "failed", "cancelled")
                               for j in jobs) else None

        jobs = _wait(all_finished, 240, "every job to finish")
        assert survivor.poll() is None, "the surviving worker stopped"
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
                w.wait(15)

    logs = "\n".join(p.read_text(errors="replace") for p in tmp_path.glob("worker*.log"))
    assert all(j.status == "succeeded" for j in jobs), \
        [(j.id, j.status, j.message) for j in jobs if j.status != "succeeded"]
    big = next(j for j in jobs if j.id == big_id)
    assert big.attempts == 2 and f":{survivor.pid}:" in (big.worker or ""), \
        (big.attempts, big.worker, big.message)
    assert 0 < killed_at < 1

    with reg.store.reading() as s:
        log_ids = list(s.scalars(select(OperationLog.operation_id)
                                 .where(OperationLog.tool == "import_items")))
        items = s.execute(select(func.count()).select_from(Item)).scalar_one()
        stock = s.execute(select(func.sum(Balance.on_hand))).scalar_one()
    assert sorted(log_ids) == sorted(j.id for j in jobs), "a job ran twice or not at all"
    assert items == BIG_ROWS + SMALL_JOBS
    expected = sum(i % 7 + 1 for i in range(BIG_ROWS)) + sum(i + 1 for i in range(SMALL_JOBS))
    assert stock == expected
    assert not ledger_mismatches(reg)
    assert "Traceback" not in logs, logs[-3000:]
    reg.store.dispose()
