"""The job dashboard card in headless Chromium, hosted by the official AppBridge, against
a real server and a `shopfloor worker` process running MRP over a 20,000-item company (its
own process, as deployed: the planner's CPU never delays the server's answers to the
card's polls, which an in-process worker thread did on a loaded machine).

Progress advances while the job runs; the plan shows once (a slow host never gets
overlapping polls nor duplicate rows); elapsed time is the job's own; the plan's Confirm
creates the orders through preview -> apply, its Cancel writes nothing, a failing host
shows Error; Cancel job stops a running job; nothing is loaded from outside.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from bench.synthetic import TODAY, build
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.domain.planning import view
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Job, ManufacturingOrder, PurchaseOrder
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import JOB_URI
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.browser import harness
from tests.surfaces.mcp.clients import http_session

pytestmark = pytest.mark.browser
ITEMS, ORDERS = 20_000, 10_000


@contextmanager
def _worker(db_url: str) -> Iterator[None]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
           "SHOPFLOOR_JOB_HEARTBEAT_SECONDS": "0.3"}
    with subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "worker",
                           "--poll", "0.1"], env=env) as proc:
        try:
            yield
        finally:
            proc.terminate()
            proc.wait(10)


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    settings = Settings(database_url=sqlite_url, job_heartbeat_seconds=0.3)
    reg = open_registry(settings)
    build(reg, ITEMS, ORDERS, stock=(2000, 3000))  # plenty of stock: a small plan...
    apply(reg, "create_sales_order", customer="Customer 1", location="MAIN",  # ...but one rush
          due_date=TODAY.isoformat(), lines=[{"sku": "PRO-0-000001", "quantity": "9000"}])
    token = Authenticator(reg, settings).mint("planner", ["admin"], 600)
    with serving(build_app(reg, settings, run_worker=False)) as url, _worker(sqlite_url):
        yield url, token, reg


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


def _status_reads(log: dict[str, Any]) -> int:
    return sum(c["name"] == "get_job_status" for c in log["toolCalls"])


def _seconds(shown: str) -> int:
    """'7 s' or '2 min 5 s' as seconds."""
    parts = shown.replace(" min ", " ").removesuffix(" s").split()
    return int(parts[0]) * 60 + int(parts[1]) if len(parts) == 2 else int(parts[0])


def _count(reg: Registry, model: Any) -> int:
    with reg.store.reading() as s:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())


class _WriteLock:
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


async def _card_shows(page: Any, want: tuple[str, float]) -> None:
    frame = page.frame_locator("#card")
    for _ in range(200):
        state = await frame.locator("body").get_attribute("data-state")
        value = float(await frame.locator("#bar").evaluate("b => b.value"))
        if (state, value) == want:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the card never showed {want}: it shows {(state, value)}")


def _past(job: dict[str, Any], past: float) -> bool:
    return job["status"] != "queued" and float(job["progress"]) > past


async def _step(reg: Registry, job_id: str, lock: _WriteLock, past: float) -> dict[str, Any]:
    """The job, held by `lock`, let on until it has saved a progress past `past`, and held
    again there. Only its writes move it, so it is released until a read sees one that
    went past, then held before its next (a progress save is at least 0.2 s after the
    last, and the job's end is a write too)."""
    job: dict[str, Any] = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
    if _past(job, past):
        return job
    lock.release()
    try:
        for _ in range(6000):  # a bound on a broken worker only (60 s), not a timing
            job = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
            if _past(job, past):
                break
            await asyncio.sleep(0.01)
    finally:
        lock.hold()
    job = reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)
    assert _past(job, past), f"the job never went past {past}: {job}"
    return job


@asynccontextmanager
async def _frozen(page: Any, reg: Registry, job_id: str, lock: _WriteLock,
                  past: float = 0.0) -> AsyncIterator[float]:
    """The running job held (by `lock`, held on entry and on exit) at a progress value
    past `past` that it really saved, until the card shows it: the card is followed
    however fast the planner gets, without timing luck."""
    job = await _step(reg, job_id, lock, past)
    assert job["status"] == "running", f"the job ended before the card could follow: {job}"
    await _card_shows(page, ("running", float(job["progress"])))
    yield float(job["progress"])


async def _freeze_twice(page: Any, reg: Registry, job_id: str,
                        lock: _WriteLock) -> list[tuple[str, float]]:
    seen: list[tuple[str, float]] = []
    for _ in range(2):
        async with _frozen(page, reg, job_id, lock, seen[-1][1] if seen else 0.0) as value:
            seen.append(("running", value))
    return seen


async def _watch_progress(page: Any, reg: Registry, job_id: str) -> list[tuple[str, float]]:
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


def test_job_card_end_to_end(served: tuple[str, str, Registry]) -> None:
    url, token, reg = served
    rec = harness.Recorder()
    lock = _WriteLock(reg.store.url.removeprefix("sqlite:///"))

    async def run() -> None:
        async with http_session(url, token) as mcp, harness.browser() as browser:
            html = await harness.card_html(mcp, JOB_URI)
            call_tool = harness.forward(mcp)
            args = {"today": TODAY.isoformat()}

            async def start(page: Any) -> tuple[str, dict[str, Any]]:
                """Queue the job and hold it at once (queued, or at its first write): it
                cannot end before the card shows it running, however long mounting takes."""
                started = await mcp.call_tool("run_mrp", args)
                assert not started.is_error, started
                lock.hold()
                await harness.mount(page, html, args, harness.wire(started))
                job_id: str = started.structured_content["job_id"]  # type: ignore[index]
                return job_id, harness.wire(started)

            def orders() -> tuple[int, int]:
                return _count(reg, ManufacturingOrder), _count(reg, PurchaseOrder)

            # 1. Progress advances, then the plan shows (once, however long it stays) and
            #    the model is told.
            host = Host(call_tool)
            page = await harness.open_host(browser, rec, host)
            await page.clock.install()  # time flows until the test moves it
            await harness.prove_recorder(page, rec)
            job_id, started = await start(page)
            seen = await _freeze_twice(page, reg, job_id, lock)
            lock.release()
            seen += await _watch_progress(page, reg, job_id)
            await harness.shot(page, "job-succeeded")
            assert seen[-1] == ("succeeded", 1.0), seen
            middle = [v for state, v in seen if state == "running" and 0 < v < 1]
            assert len(set(middle)) >= 2, f"progress did not advance on the card: {seen}"
            assert middle == sorted(middle)
            frame = page.frame_locator("#card")
            job = reg.invoke("get_job", {"job_id": job_id}, ADMIN)
            plan = job["result"]
            mos = len(plan["manufacturing_orders"])
            po_lines = sum(len(p["lines"]) for p in plan["purchase_orders"])
            assert mos > 0 and po_lines > 0, job["message"]
            polls = _status_reads(await harness.still(page))
            await page.clock.run_for(5_000)  # ten poll intervals after the end
            assert _status_reads(await harness.settled(page)) == polls  # polling stopped
            await page.clock.resume()
            assert await frame.locator("#mos tbody tr").count() == mos
            assert await frame.locator("#pos tbody tr").count() == po_lines
            assert "PRO-0-000001" in await frame.locator("#mos").inner_text()
            # each planned order with its dates and the needs it covers (the rush sale),
            # dates never wrapped, quantities as people write them, the table within 720 px
            rush = next(m for m in plan["manufacturing_orders"] if m["sku"] == "PRO-0-000001")
            row = frame.locator("#mos tbody tr", has_text="PRO-0-000001").first
            cells = await row.locator("td").all_inner_texts()
            assert cells[1:4] == [rush["quantity"], rush["start_date"], rush["due_date"]
                                  + (" late" if rush.get("late") else "")], cells
            assert rush["covers"][0][1] in cells[4] and "." not in cells[1]  # [kind, document, ..]
            assert await row.locator("td.date").first.evaluate(
                "td => getComputedStyle(td).whiteSpace") == "nowrap"
            assert await frame.locator("#mos").evaluate(
                "t => t.scrollWidth <= 720 && t.scrollWidth <= t.parentElement.clientWidth")
            # the action messages on orders already placed, next to the planned orders (a
            # big plan's most urgent ones): what to do, the order, where it should move to,
            # the need behind it
            flags = plan["messages"]
            assert flags, "the plan should flag orders already placed"
            shown_flags = min(len(flags), view.MESSAGES)
            assert await frame.locator("#msgs tbody tr").count() == shown_flags
            flag = next(m for m in flags if m["action"] == "expedite")
            first = await frame.locator("#msgs tbody tr").first.locator("td").all_inner_texts()
            assert first[0] == "Expedite", first  # urgent first, whatever the plan's order
            row = frame.locator("#msgs tbody tr", has_text=flag["document"]).first
            cells = await row.locator("td").all_inner_texts()
            assert cells[:6] == [flag["action"].capitalize(), flag["document"], flag["sku"],
                                 flag["quantity"], flag["expected"] or "",
                                 flag.get("move_to") or ""], cells
            assert "." not in cells[3], cells  # quantities without trailing zeros
            if flag["need"]:
                assert "." not in cells[6], cells
                assert flag["need"]["document"] in cells[6], cells
                assert flag["need"]["date"] in cells[6], cells
            assert await row.locator("td.date").first.evaluate(
                "td => getComputedStyle(td).whiteSpace") == "nowrap"
            assert await frame.locator("#pos td.covers span").first.evaluate(
                "s => getComputedStyle(s).whiteSpace") == "nowrap"  # each need stays whole
            for table in ("#msgs", "#pos"):  # SKUs and order numbers kept whole too
                assert await frame.locator(table).evaluate(
                    "t => t.scrollWidth <= 720 && t.scrollWidth <= t.parentElement.clientWidth")
            await frame.locator("#msg-title").scroll_into_view_if_needed()
            await harness.shot(page, "job-messages")
            if len(flags) > shown_flags:
                assert f"{shown_flags} of {len(flags)} action messages" in \
                    await frame.locator("#more").inner_text()
            assert host.most == 1
            told = (await harness.host_log(page))["modelContext"]
            assert len(told) == 1 and told[0]["content"][0]["text"].startswith(
                f"Job mrp {job_id} succeeded: MRP: {mos} manufacturing orders")

            # 2. The same job on a new card behind a slow host (its first status reply
            #    held over four poll intervals): one request at a time, rows drawn once,
            #    elapsed time is the job's run time and stands still.
            slow = Host(call_tool)
            slow.hold()
            other = await harness.open_host(browser, rec, slow)
            await other.clock.install()
            await harness.mount(other, html, args, started)
            await slow.asked()
            await other.clock.run_for(2_000)
            assert _status_reads(await harness.settled(other)) == 1  # no second one meanwhile
            slow.release()
            await harness.card_state(other, "succeeded")
            polls = _status_reads(await harness.still(other))
            await other.clock.run_for(5_000)
            assert _status_reads(await harness.settled(other)) == polls
            frame = other.frame_locator("#card")
            assert await frame.locator("#mos tbody tr").count() == mos
            assert await frame.locator("#pos tbody tr").count() == po_lines
            assert slow.most == 1
            ran = (datetime.fromisoformat(job["finished_at"])
                   - datetime.fromisoformat(job["started_at"])).total_seconds()
            shown = await frame.locator("#elapsed").inner_text()
            assert abs(_seconds(shown) - ran) <= 1, (shown, ran)
            await other.clock.run_for(5_000)
            assert await frame.locator("#elapsed").inner_text() == shown
            await other.clock.resume()

            # 3. The plan's preview, then Cancel: nothing written, model told, locked.
            before = orders()
            await frame.locator("#apply").click()
            await harness.card_state(other, "preview")
            assert await frame.locator("#apply", has_text="Confirm").is_visible()
            await frame.locator("#plan-cancel").click()
            await harness.card_state(other, "cancelled")
            await harness.shot(other, "job-plan-cancelled")
            told = await harness.told(other)
            assert told[1:] == ["User cancelled the MRP plan preview."], told
            assert await frame.locator("#apply").is_disabled()
            assert await frame.locator("#plan-cancel").is_disabled()
            assert orders() == before

            # 4. The host fails the apply: Error, the reason shown and sent to the model.
            failing = await harness.open_host(browser, rec, Host(call_tool, fail_apply=True))
            await harness.mount(failing, html, args, started)
            await harness.card_state(failing, "succeeded")
            frame = failing.frame_locator("#card")
            await frame.locator("#apply").click()
            await harness.card_state(failing, "preview")
            await frame.locator("#apply").click()
            await harness.card_state(failing, "error")
            told = await harness.told(failing)
            assert told[-1].startswith("Apply failed: ") and "lost its connection" in told[-1]
            assert "Apply failed: " in await frame.locator("#outcome").inner_text()
            assert orders() == before

            # 5. "Create these orders" on the first card: a preview first, then Confirm
            #    (double-clicked) applies it once.
            frame = page.frame_locator("#card")
            await frame.locator("#apply").click()
            await frame.locator("#apply", has_text="Confirm").wait_for(timeout=30000)
            assert orders() == before  # the preview wrote nothing
            assert "Preview: Apply MRP plan" in await frame.locator("#outcome").inner_text()
            await frame.locator("#apply").dblclick()
            await harness.card_state(page, "applied")
            await harness.shot(page, "job-plan-applied")
            shown = await frame.locator("#outcome").inner_text()
            assert "Created: MO-" in shown and "PO-" in shown, shown  # the orders' numbers
            # one purchase order per supplier, and another where an item is planned again
            # for a later date (an order holds one line per item)
            pos = sum(max(Counter(ln["sku"] for ln in g["lines"]).values())
                      for g in plan["purchase_orders"])
            assert orders() == (before[0] + mos, before[1] + pos)
            log = await harness.host_log(page)
            calls = [c for c in log["toolCalls"] if c["name"] == "apply_mrp_plan"]
            assert [c["arguments"].get("preview", True) for c in calls] == [True, False]
            assert log["modelContext"][-1]["content"][0]["text"].startswith(
                "Applied apply_mrp_plan: Apply MRP plan")

            # 6. Cancel stops a running job at its next checkpoint, however slow the host:
            #    pressed while a status read waits for its reply, and answered first.
            host = Host(call_tool)
            page = await harness.open_host(browser, rec, host)
            job_id, _ = await start(page)
            frame = page.frame_locator("#card")
            async with _frozen(page, reg, job_id, lock):
                host.hold()
                await host.asked()
                await frame.locator("#cancel").click()  # its cancel_job waits for the lock
            lock.release()
            await frame.locator("#outcome", has_text="Cancel requested.").wait_for()
            host.release()
            seen = await _watch_progress(page, reg, job_id)
            await harness.shot(page, "job-cancelled")
            assert seen[-1][0] == "cancelled", seen
            assert "Cancel requested." in await frame.locator("#outcome").inner_text()
            with reg.store.reading() as s:
                assert s.get(Job, job_id).status == "cancelled"  # type: ignore[union-attr]
            log = await harness.host_log(page)
            cancel = [c for c in log["toolCalls"] if c["name"] == "cancel_job"]
            assert len(cancel) == 1 and cancel[0]["arguments"]["preview"] is False
            assert cancel[0]["arguments"]["idempotency_key"]
            assert await frame.locator("#apply").is_hidden()
            assert host.most == 1

    try:
        harness.run(run())
    finally:
        lock.close()
    assert rec.outside() == [], rec.outside()
