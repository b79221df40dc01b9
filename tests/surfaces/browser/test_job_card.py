"""The job dashboard card in headless Chromium, hosted by the official AppBridge, against
a real server and a `shopfloor worker` process running MRP over a 20,000-item company (its
own process, as deployed: the planner's CPU never delays the server's answers to the
card's polls, which an in-process worker thread did on a loaded machine).

Progress advances while the job runs; the plan shows once (a slow host never gets
overlapping polls nor duplicate rows); elapsed time is the job's own; the plan's Confirm
creates the orders through preview -> apply, its Cancel writes nothing, a failing host
shows Error; Cancel job stops a running job; nothing is loaded from outside.

Three tests on copies of the one company (built once a worker): the job followed and its
plan applied; a finished job's card behind a slow host, its plan cancelled, its apply
failing; a running job cancelled."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from bench.synthetic import TODAY, build
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.domain.planning import view
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Job, ManufacturingOrder, PurchaseOrder
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import JOB_URI
from tests.copies import Copies
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.browser import harness
from tests.surfaces.browser.job_steps import (
    Host,
    WriteLock,
    count,
    freeze_twice,
    frozen,
    seconds,
    status_reads,
    watch_progress,
    worker,
)
from tests.surfaces.mcp.clients import http_session

pytestmark = pytest.mark.browser
ITEMS, ORDERS = 20_000, 10_000


def _company(reg: Registry) -> None:
    build(reg, ITEMS, ORDERS, stock=(2000, 3000))  # plenty of stock: a small plan...
    apply(reg, "create_sales_order", customer="Customer 1", location="MAIN",  # ...but one rush
          due_date=TODAY.isoformat(), lines=[{"sku": "PRO-0-000001", "quantity": "9000"}])


@pytest.fixture
def served(sqlite_url: str, copies: Copies) -> Iterator[tuple[str, str, Registry]]:
    copies.restore(sqlite_url, "job-card-20k", _company)
    settings = Settings(database_url=sqlite_url, job_heartbeat_seconds=0.3)
    reg = open_registry(settings)
    token = Authenticator(reg, settings).mint("planner", ["admin"], 600)
    with serving(build_app(reg, settings, run_worker=False)) as url, worker(sqlite_url):
        yield url, token, reg


@dataclass
class Card:
    """What each test drives the card with: the MCP session, the shared Chromium, the
    card's HTML, the host's tools/call, the request recorder and the write lock."""

    mcp: Any
    browser: Any
    html: str
    call_tool: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
    rec: harness.Recorder
    lock: WriteLock
    reg: Registry
    args: dict[str, Any]

    async def start(self, page: Any) -> tuple[str, dict[str, Any]]:
        """Queue the job and hold it at once (queued, or at its first write): it cannot
        end before the card shows it running, however long mounting takes."""
        started = await self.mcp.call_tool("run_mrp", self.args)
        assert not started.is_error, started
        self.lock.hold()
        await harness.mount(page, self.html, self.args, harness.wire(started))
        job_id: str = started.structured_content["job_id"]
        return job_id, harness.wire(started)

    def orders(self) -> tuple[int, int]:
        return count(self.reg, ManufacturingOrder), count(self.reg, PurchaseOrder)


def _drive(served: tuple[str, str, Registry], steps: Callable[[Card], Awaitable[None]]) -> None:
    url, token, reg = served
    rec = harness.Recorder()
    lock = WriteLock(reg.store.url.removeprefix("sqlite:///"))

    async def run() -> None:
        async with http_session(url, token) as mcp, harness.browser() as browser:
            html = await harness.card_html(mcp, JOB_URI)
            await steps(Card(mcp, browser, html, harness.forward(mcp), rec, lock, reg,
                             {"today": TODAY.isoformat()}))

    try:
        harness.run(run())
    finally:
        lock.close()
    assert rec.outside() == [], rec.outside()


def test_progress_advances_then_the_plan_shows_once_and_applies_once(
        served: tuple[str, str, Registry]) -> None:
    async def steps(c: Card) -> None:
        # 1. Progress advances, then the plan shows (once, however long it stays) and
        #    the model is told.
        host = Host(c.call_tool)
        page = await harness.open_host(c.browser, c.rec, host)
        await page.clock.install()  # time flows until the test moves it
        await harness.prove_recorder(page, c.rec)
        job_id, _ = await c.start(page)
        seen = await freeze_twice(page, c.reg, job_id, c.lock)
        c.lock.release()
        seen += await watch_progress(page, c.reg, job_id)
        await harness.shot(page, "job-succeeded")
        assert seen[-1] == ("succeeded", 1.0), seen
        middle = [v for state, v in seen if state == "running" and 0 < v < 1]
        assert len(set(middle)) >= 2, f"progress did not advance on the card: {seen}"
        assert middle == sorted(middle)
        frame = page.frame_locator("#card")
        job = c.reg.invoke("get_job", {"job_id": job_id}, ADMIN)
        plan = job["result"]
        mos = len(plan["manufacturing_orders"])
        po_lines = sum(len(p["lines"]) for p in plan["purchase_orders"])
        assert mos > 0 and po_lines > 0, job["message"]
        polls = status_reads(await harness.still(page))
        await page.clock.run_for(5_000)  # ten poll intervals after the end
        assert status_reads(await harness.settled(page)) == polls  # polling stopped
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

        # 5. "Create these orders" on the first card: a preview first, then Confirm
        #    (double-clicked) applies it once.
        before = c.orders()
        frame = page.frame_locator("#card")
        await frame.locator("#apply").click()
        await frame.locator("#apply", has_text="Confirm").wait_for(timeout=30000)
        assert c.orders() == before  # the preview wrote nothing
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
        assert c.orders() == (before[0] + mos, before[1] + pos)
        log = await harness.host_log(page)
        calls = [call for call in log["toolCalls"] if call["name"] == "apply_mrp_plan"]
        assert [call["arguments"].get("preview", True) for call in calls] == [True, False]
        assert log["modelContext"][-1]["content"][0]["text"].startswith(
            "Applied apply_mrp_plan: Apply MRP plan")

    _drive(served, steps)


def test_a_finished_jobs_plan_behind_a_slow_host_cancelled_and_failing(
        served: tuple[str, str, Registry]) -> None:
    async def steps(c: Card) -> None:
        started_job = await c.mcp.call_tool("run_mrp", c.args)
        assert not started_job.is_error, started_job
        started = harness.wire(started_job)
        job = await _finished(c.reg, started_job.structured_content["job_id"])
        plan = job["result"]
        mos = len(plan["manufacturing_orders"])
        po_lines = sum(len(p["lines"]) for p in plan["purchase_orders"])
        # 2. A finished job on a new card behind a slow host (its first status reply
        #    held over four poll intervals): one request at a time, rows drawn once,
        #    elapsed time is the job's run time and stands still.
        slow = Host(c.call_tool)
        slow.hold()
        other = await harness.open_host(c.browser, c.rec, slow)
        await other.clock.install()
        await harness.prove_recorder(other, c.rec)
        await harness.mount(other, c.html, c.args, started)
        await slow.asked()
        await other.clock.run_for(2_000)
        assert status_reads(await harness.settled(other)) == 1  # no second one meanwhile
        slow.release()
        await harness.card_state(other, "succeeded")
        polls = status_reads(await harness.still(other))
        await other.clock.run_for(5_000)
        assert status_reads(await harness.settled(other)) == polls
        frame = other.frame_locator("#card")
        assert await frame.locator("#mos tbody tr").count() == mos
        assert await frame.locator("#pos tbody tr").count() == po_lines
        assert slow.most == 1
        ran = (datetime.fromisoformat(job["finished_at"])
               - datetime.fromisoformat(job["started_at"])).total_seconds()
        shown = await frame.locator("#elapsed").inner_text()
        assert abs(seconds(shown) - ran) <= 1, (shown, ran)
        await other.clock.run_for(5_000)
        assert await frame.locator("#elapsed").inner_text() == shown
        await other.clock.resume()

        # 3. The plan's preview, then Cancel: nothing written, model told, locked.
        before = c.orders()
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
        assert c.orders() == before

        # 4. The host fails the apply: Error, the reason shown and sent to the model.
        failing = await harness.open_host(c.browser, c.rec, Host(c.call_tool, fail_apply=True))
        await harness.mount(failing, c.html, c.args, started)
        await harness.card_state(failing, "succeeded")
        frame = failing.frame_locator("#card")
        await frame.locator("#apply").click()
        await harness.card_state(failing, "preview")
        await frame.locator("#apply").click()
        await harness.card_state(failing, "error")
        told = await harness.told(failing)
        assert told[-1].startswith("Apply failed: ") and "lost its connection" in told[-1]
        assert "Apply failed: " in await frame.locator("#outcome").inner_text()
        assert c.orders() == before

    _drive(served, steps)


def test_cancel_stops_a_running_job_behind_a_slow_host(
        served: tuple[str, str, Registry]) -> None:
    async def steps(c: Card) -> None:
        # 6. Cancel stops a running job at its next checkpoint, however slow the host:
        #    pressed while a status read waits for its reply, and answered first.
        host = Host(c.call_tool)
        page = await harness.open_host(c.browser, c.rec, host)
        await harness.prove_recorder(page, c.rec)
        job_id, _ = await c.start(page)
        frame = page.frame_locator("#card")
        async with frozen(page, c.reg, job_id, c.lock):
            host.hold()
            await host.asked()
            await frame.locator("#cancel").click()  # its cancel_job waits for the lock
        c.lock.release()
        await frame.locator("#outcome", has_text="Cancel requested.").wait_for()
        host.release()
        seen = await watch_progress(page, c.reg, job_id)
        await harness.shot(page, "job-cancelled")
        assert seen[-1][0] == "cancelled", seen
        assert "Cancel requested." in await frame.locator("#outcome").inner_text()
        with c.reg.store.reading() as s:
            assert s.get(Job, job_id).status == "cancelled"  # type: ignore[union-attr]
        log = await harness.host_log(page)
        cancel = [call for call in log["toolCalls"] if call["name"] == "cancel_job"]
        assert len(cancel) == 1 and cancel[0]["arguments"]["preview"] is False
        assert cancel[0]["arguments"]["idempotency_key"]
        assert await frame.locator("#apply").is_hidden()
        assert host.most == 1

    _drive(served, steps)


async def _finished(reg: Registry, job_id: str) -> dict[str, Any]:
    """The job once the worker has finished it (no card follows this one)."""
    for _ in range(1200):  # a bound on a broken worker only (60 s), not a timing
        job: dict[str, Any] = reg.invoke("get_job", {"job_id": job_id}, ADMIN)
        if job["status"] not in ("queued", "running"):
            assert job["status"] == "succeeded", job
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"the job never finished: {job}")
