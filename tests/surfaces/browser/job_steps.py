"""The job card's test steps (test_job_card): a `shopfloor worker` process, an
instrumented host, and SQLite's write lock held by the test so that a running job moves
on one step at a time, by state, never by time."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from sqlalchemy import func, select

from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN
from tests.surfaces.browser import harness


@contextmanager
def worker(db_url: str) -> Iterator[None]:
    """`shopfloor worker` on the database, polling for jobs every 0.5 s when idle (its
    default): at 0.1 s an idle worker cost about a tenth of a core, and a job that waits
    half a second to be claimed is still held by the test's lock until it is let on."""
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
           "SHOPFLOOR_JOB_HEARTBEAT_SECONDS": "0.3"}
    with subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "worker",
                           "--poll", "0.5"], env=env) as proc:
        try:
            yield
        finally:
            proc.terminate()
            proc.wait(10)


class Host:
    """The host's tools/call, instrumented: status replies can be held back (a slow host,
    as slow as the test says, and the most in flight at once is counted), and the plan's
    apply can fail in the host itself."""

    def __init__(self, call_tool: Any, *, fail_apply: bool = False):
        self.call_tool, self.fail_apply = call_tool, fail_apply
        self.in_flight = self.most = 0
        self.answering = asyncio.Event()
        self.answering.set()

    def hold(self) -> None:
        self.answering.clear()

    def release(self) -> None:
        self.answering.set()

    async def asked(self) -> None:
        """Until a status read waits for its (held) reply."""
        for _ in range(200):  # a bound on a broken card only (10 s), not a timing
            if self.in_flight:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the card never read its job's status")

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        args = params.get("arguments") or {}
        if self.fail_apply and params["name"] == "apply_mrp_plan" and args.get("preview") is False:
            raise RuntimeError("the host lost its connection")
        if params["name"] != "get_job_status":
            result: dict[str, Any] = await self.call_tool(params)
            return result
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await self.answering.wait()
            result = await self.call_tool(params)
            return result
        finally:
            self.in_flight -= 1


def status_reads(log: dict[str, Any]) -> int:
    return sum(c["name"] == "get_job_status" for c in log["toolCalls"])


def seconds(shown: str) -> int:
    """'7 s' or '2 min 5 s' as seconds."""
    parts = shown.replace(" min ", " ").removesuffix(" s").split()
    return int(parts[0]) * 60 + int(parts[1]) if len(parts) == 2 else int(parts[0])


def count(reg: Registry, model: Any) -> int:
    with reg.store.reading() as s:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())


class WriteLock:
    """SQLite's write lock, held by the test: while it is held the worker waits at its
    next write (its claim of the job, a progress save, the job's end), while reads, the
    card's polls among them, go on. Taken the moment a job is queued, it keeps the job
    from ending before the card has followed it, however slow the browser or fast the
    planner: the test lets the job on one step at a time, by state, never by time."""

    def __init__(self, path: str) -> None:
        self._con = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.held = False

    def hold(self) -> None:
        if not self.held:
            self._con.execute("BEGIN IMMEDIATE")
            self.held = True

    def release(self) -> None:
        if self.held:
            self._con.execute("ROLLBACK")
            self.held = False

    def close(self) -> None:
        self.release()
        self._con.close()


async def card_shows(page: Any, want: tuple[str, float]) -> None:
    frame = page.frame_locator("#card")
    for _ in range(200):
        state = await frame.locator("body").get_attribute("data-state")
        value = float(await frame.locator("#bar").evaluate("b => b.value"))
        if (state, value) == want:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the card never showed {want}: it shows {(state, value)}")


def went_past(job: dict[str, Any], past: float) -> bool:
    return job["status"] != "queued" and float(job["progress"]) > past


async def step(reg: Registry, job_id: str, lock: WriteLock, past: float) -> dict[str, Any]:
    """The job, held by `lock`, let on until it has saved a progress past `past`, and held
    again there. Only its writes move it, so it is released until a read sees one that
    went past, then held before its next (a progress save is at least 0.2 s after the
    last, and the job's end is a write too)."""
    job: dict[str, Any] = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
    if went_past(job, past):
        return job
    lock.release()
    try:
        for _ in range(6000):  # a bound on a broken worker only (60 s), not a timing
            job = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
            if went_past(job, past):
                break
            await asyncio.sleep(0.01)
    finally:
        lock.hold()
    job = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
    assert went_past(job, past), f"the job never went past {past}: {job}"
    return job


@asynccontextmanager
async def frozen(page: Any, reg: Registry, job_id: str, lock: WriteLock,
                  past: float = 0.0) -> AsyncIterator[float]:
    """The running job held (by `lock`, held on entry and on exit) at a progress value
    past `past` that it really saved, until the card shows it: the card is followed
    however fast the planner gets, without timing luck."""
    job = await step(reg, job_id, lock, past)
    assert job["status"] == "running", f"the job ended before the card could follow: {job}"
    await card_shows(page, ("running", float(job["progress"])))
    yield float(job["progress"])


async def freeze_twice(page: Any, reg: Registry, job_id: str,
                        lock: WriteLock) -> list[tuple[str, float]]:
    seen: list[tuple[str, float]] = []
    for _ in range(2):
        async with frozen(page, reg, job_id, lock, seen[-1][1] if seen else 0.0) as value:
            seen.append(("running", value))
    return seen


async def watch_progress(page: Any, reg: Registry, job_id: str) -> list[tuple[str, float]]:
    """What the card shows, sampled until the job ends."""
    frame = page.frame_locator("#card")
    seen: list[tuple[str, float]] = []
    for _ in range(1200):
        state = await frame.locator("body").get_attribute("data-state")
        value = float(await frame.locator("#bar").evaluate("b => b.value"))
        if not seen or seen[-1] != (state, value):
            seen.append((state or "", value))
        if state in ("succeeded", "failed", "cancelled"):
            return seen
        await asyncio.sleep(0.05)
    job = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
    log = await harness.host_log(page)
    raise AssertionError(f"the job did not finish on the card: {seen[-5:]}; in the database "
                         f"{job['status']} {job['progress']} {job['message']}; "
                         f"{len(log['toolCalls'])} tool calls")
