"""Stops when told (issue 30, item 10): `shopfloor serve` and `shopfloor worker` end within
5 s of SIGTERM whatever clients hold open, exit 0 and say so in the log.

`serve` is started as a process, as deployed; a real MCP client (the SDK's) holds a
`subscriptions/listen` stream open, which used to keep the server running until SIGKILL.
The stream must end with the server's final message (the SDK client tells that graceful
close from a dropped stream). A worker holding a job that will not finish in time gives
the job back to the queue for another worker, rather than holding the deploy.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from sqlalchemy import create_engine, select, text

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Job
from shopfloor.surfaces.auth import Authenticator
from tests.servers import free_port
from tests.surfaces.mcp.clients import http_client

LOW = "shopfloor://alerts/low-stock"
BUDGET = 5.0


def _start(cmd: list[str], db_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", *cmd],
                                env=env, stdout=out, stderr=subprocess.STDOUT)


@contextmanager
def _started(cmd: list[str], db_url: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`shopfloor <cmd>` running, killed after if it is still running then."""
    proc = _start(cmd, db_url, log)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _stopped_in_time(what: str, took: float, proc: subprocess.Popen[bytes], log: Path) -> str:
    """It exited 0 within the budget of its SIGTERM and said so in its log: the log."""
    said = log.read_text()
    print(f"{what}: SIGTERM to exit {took:.2f} s")
    assert took < BUDGET and proc.returncode == 0, (took, proc.returncode, said[-2000:])
    assert "stopped on SIGTERM" in said, said[-2000:]
    return said


def _until(what: str, ok: object, proc: subprocess.Popen[bytes], log: Path,
           seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not ok():  # type: ignore[operator]
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{what}: {log.read_text()[-2000:]}")
        time.sleep(0.05)


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _stopped_in(proc: subprocess.Popen[bytes]) -> float:
    """Seconds from SIGTERM to exit (a bound of 30 s on a broken stop only)."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        return float("inf")
    return time.monotonic() - sent


def test_serve_stops_within_five_seconds_with_a_listen_stream_open(
        registry: Registry, db_url: str, tmp_path: Path) -> None:
    token = Authenticator(registry, Settings(database_url=db_url)).mint("vic", ["viewer"], 600)
    port = free_port()
    log = tmp_path / "serve.log"
    took: list[float] = []
    ended: list[str] = []
    with _started(["serve", "--port", str(port)], db_url, log) as proc:
        _until("serve did not start", lambda: _accepts(port), proc, log)

        async def run() -> None:
            async with http_client(f"http://127.0.0.1:{port}", token) as client, \
                    client.listen(resource_subscriptions=[LOW]) as sub:  # acknowledged: open
                took.append(await anyio.to_thread.run_sync(_stopped_in, proc))
                with anyio.fail_after(5):
                    async for event in sub:
                        ended.append(f"event {event}")
                ended.append("closed by the server")

        anyio.run(run)
    said = log.read_text()
    print(f"serve: SIGTERM to exit {took[0]:.2f} s")
    assert took and took[0] < BUDGET, (took, said[-2000:])
    assert proc.returncode == 0, said[-2000:]
    assert ended == ["closed by the server"], ended
    assert "stopped on SIGTERM" in said, said[-2000:]


def test_an_idle_worker_stops_within_five_seconds(
        registry: Registry, db_url: str, tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    with _started(["worker", "--poll", "0.05"], db_url, log) as proc:
        _until("the worker never started", lambda: "worker " in log.read_text(), proc, log)
        took = _stopped_in(proc)
    _stopped_in_time("idle worker", took, proc, log)


def test_a_worker_stuck_in_a_job_gives_it_back(registry: Registry, db_url: str,
                                               tmp_path: Path) -> None:
    """A job that cannot finish in the budget (here MRP waiting on a table another
    session locked; a big company's run takes minutes) is handed back, queued, for the
    next worker, and the worker still ends in time. PostgreSQL: SQLite's readers are
    never blocked, so no job there can be held up from outside."""
    if not db_url.startswith("postgresql"):
        pytest.skip("needs a lock that blocks a reader")
    from shopfloor.store import queue

    with registry.store.writing() as s:
        job_id = queue.enqueue(s, "mrp", {"location": None, "today": None}, "alice").id
        s.commit()
    log = tmp_path / "worker.log"
    engine = create_engine(db_url)
    holder = engine.connect()
    tx = holder.begin()
    holder.execute(text("LOCK TABLE items IN ACCESS EXCLUSIVE MODE"))

    def running() -> bool:
        with registry.store.reading() as s:
            return s.scalar(select(Job.status).where(Job.id == job_id)) == "running"

    try:
        with _started(["worker", "--poll", "0.05"], db_url, log) as proc:
            _until("the worker never took the job", running, proc, log)
            took = _stopped_in(proc)
    finally:
        tx.rollback()
        holder.close()
        engine.dispose()
    said = _stopped_in_time("stuck worker", took, proc, log)
    assert "gave back 1 job" in said, said[-2000:]
    with registry.store.reading() as s:
        back = s.scalar(select(Job).where(Job.id == job_id))
        assert back is not None
        assert (back.status, back.worker) == ("queued", None), (back.status, back.message)
