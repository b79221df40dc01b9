"""The preview card in headless Chromium, hosted by the official AppBridge, real server.

Confirm applies exactly once (double click too; both buttons locked and Escape inert while
Pending) and tells the model; a stale apply shows the real reason; Cancel writes nothing;
the host's dark theme applies; hostile names render as text and never run; a bulk write
follows its job, can cancel it, and stops following after a bound; nothing is loaded from
outside.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client.session import ClientSession

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import NotFound
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import PREVIEW_URI
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot
from tests.servers import serving
from tests.surfaces.browser import harness

pytestmark = pytest.mark.browser
# Had it ever been parsed as HTML, it would set a marker and message the host.
HOSTILE = """<img src=x onerror="window.pwned=1;parent.postMessage('pwned','*')">"""
FOLLOW_LIMIT = "const FOLLOW_LIMIT_MS = 10 * 60 * 1000;"


def _served(sqlite_url: str, *, run_worker: bool) -> Iterator[tuple[str, str, Registry]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    Given(reg).company()
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "2"}])
    token = Authenticator(reg, settings).mint("card-user", ["admin"], 600)
    with serving(build_app(reg, settings, run_worker=run_worker)) as url:
        yield url, token, reg


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    yield from _served(sqlite_url, run_worker=True)


@pytest.fixture
def served_idle(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    """No worker: a queued job stays queued, so the card can cancel it or give up on it."""
    yield from _served(sqlite_url, run_worker=False)


def _adjustments(reg: Registry) -> int:
    log = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    return len(log["entries"])


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


async def _preview(mcp: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await mcp.call_tool(tool, args)
    assert not result.is_error, result
    return harness.wire(result)


async def _never_ran(page: Any) -> None:
    """The hostile markup stayed text: no element, no marker, no message to the host."""
    log = await harness.settled(page)
    frame = page.frame_locator("#card")
    assert await frame.locator("img").count() == 0
    assert await (await harness.card_window(page)).evaluate("() => window.pwned") is None
    assert log["strays"] == []


async def _following(page: Any) -> None:
    """Until the card has read its job's status once: it is following the job."""
    for _ in range(200):  # a bound on a broken card only (10 s), not a timing
        log = await harness.host_log(page)
        if any(c["name"] == "get_job_status" for c in log["toolCalls"]):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the card never read its job's status")


class _StatusHeld:
    """The host's tools/call, its job status reads answered only while `answering` is set;
    `cancelled` is set once it has answered a cancel_job."""

    def __init__(self, call_tool: Any) -> None:
        self.call_tool = call_tool
        self.answering, self.cancelled = asyncio.Event(), asyncio.Event()
        self.answering.set()

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        if params["name"] == "get_job_status":
            await self.answering.wait()
        result: dict[str, Any] = await self.call_tool(params)
        if params["name"] == "cancel_job":
            self.cancelled.set()
        return result


def test_preview_card_end_to_end(served: tuple[str, str, Registry]) -> None:
    url, token, reg = served
    rec = harness.Recorder()

    async def run() -> None:
        async with harness.card_host(url, token, PREVIEW_URI) as (mcp, browser, html,
                                                                   call_tool):

            # 1. Confirm, double-clicked, the host slow to answer: Pending locks both
            #    buttons and Escape does nothing; then applied once, model told once.
            gate = harness.Gate(call_tool)
            page = await harness.open_host(browser, rec, gate)
            await harness.prove_recorder(page, rec)
            args = {"location": "MAIN", "reason": "found a box",
                    "lines": [{"sku": "M1", "quantity_delta": "3"}]}
            before = _adjustments(reg)
            await harness.mount(page, html, args, await _preview(mcp, "create_stock_adjustment",
                                                                 args))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            await frame.locator("#confirm").dblclick()
            await harness.card_state(page, "pending")
            assert await frame.locator("#confirm").is_disabled()
            assert await frame.locator("#cancel").is_disabled()
            card = await harness.card_window(page)
            await card.evaluate("""() => { window.escapes = 0; document.addEventListener(
                'keydown', (e) => { if (e.key === 'Escape') window.escapes++; }); }""")
            await page.keyboard.press("Escape")
            assert await card.evaluate("() => window.escapes") == 1  # the card did get it
            assert (await harness.settled(page))["modelContext"] == []
            await harness.card_state(page, "pending")
            gate.release()
            await harness.card_state(page, "applied")
            await harness.shot(page, "applied")
            log = await harness.host_log(page)
            assert len(harness.writes(log)) == 1
            call = harness.writes(log)[0]
            assert call["arguments"]["preview"] is False and call["arguments"]["preview_token"]
            assert call["arguments"]["idempotency_key"]
            told = log["modelContext"]
            assert len(told) == 1 and told[0]["content"][0]["text"].startswith("Applied "), told
            assert told[0]["structuredContent"]["applied"] is True
            assert _adjustments(reg) == before + 1
            stock = reg.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)
            assert stock["balances"][0]["on_hand"] == "8"

            # 2. Stock changes after the preview: Error with the real reason. The host
            #    says dark, and the card is dark.
            page = await harness.open_host(browser, rec, call_tool)
            take = {"location": "MAIN", "reason": "scrap",
                    "lines": [{"sku": "M1", "quantity_delta": "-6"}]}
            await harness.mount(page, html, take, await _preview(mcp, "create_stock_adjustment",
                                                                 take), theme="dark")
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            assert await frame.locator("html").get_attribute("data-theme") == "dark"
            background = await frame.locator("body").evaluate(
                "b => getComputedStyle(b).backgroundColor")
            assert background == "rgb(13, 17, 23)", background
            apply(reg, "create_stock_adjustment", location="MAIN", reason="meanwhile",
                  lines=[{"sku": "M1", "quantity_delta": "-4"}])
            quiet = snapshot(reg)
            await frame.locator("#confirm").click()
            # Stale, and no fresh preview to offer (it would fail itself): Error, with
            # the real reason, shown and told.
            await harness.card_state(page, "error")
            await harness.shot(page, "error")
            told = (await harness.host_log(page))["modelContext"]
            assert len(told) == 1
            text = told[0]["content"][0]["text"]
            assert text.startswith("Apply failed: ") and "changed since the preview" in text
            assert "on hand 4, needs 6" in text
            assert snapshot(reg) == quiet

            # 3. Cancel (keyboard): message to the model, nothing written, buttons locked.
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, args, await _preview(mcp, "create_stock_adjustment",
                                                                 args))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            assert await frame.locator("body").evaluate(
                "b => getComputedStyle(b).backgroundColor") == "rgb(255, 255, 255)"
            quiet = snapshot(reg)
            await frame.locator("#cancel").focus()
            await page.keyboard.press("Enter")
            await harness.card_state(page, "cancelled")
            await harness.shot(page, "cancelled")
            await page.keyboard.press("Escape")  # a second cancel must not tell twice
            log = await harness.settled(page)
            assert harness.writes(log) == []
            assert [m["content"][0]["text"] for m in log["modelContext"]] == [
                "User cancelled the stock adjustment preview."]
            assert await frame.locator("#confirm").is_disabled()
            assert await frame.locator("#cancel").is_disabled()
            assert snapshot(reg) == quiet

            # 4. A hostile item name is shown as text, before and after the apply; it
            #    never runs.
            page = await harness.open_host(browser, rec, call_tool)
            hostile = {"sku": "EVIL-1", "name": HOSTILE}
            await harness.mount(page, html, hostile, await _preview(mcp, "create_item", hostile))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            assert HOSTILE in await frame.locator("#changes").inner_text()
            await _never_ran(page)
            await frame.locator("#confirm").click()
            await harness.card_state(page, "applied")
            assert HOSTILE in await frame.locator("#outcome").inner_text()
            await _never_ran(page)
            assert reg.invoke("get_item", {"sku": "EVIL-1"}, ADMIN)["name"] == HOSTILE

            # 5. A bulk write: rows decided one by one, Confirm queues a job, the card
            #    follows it to the end and only then tells the model.
            page = await harness.open_host(browser, rec, call_tool)
            bulk = {"csv": _csv([["sku", "name", "on_hand:MAIN"], ["IMP-1", HOSTILE, "6"],
                                 ["M1", "", ""], ["BAD", "", ""]]),
                    "skip_rejects": True}
            await harness.mount(page, html, bulk, await _preview(mcp, "import_items", bulk))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            rows = frame.locator("#rows tbody tr")
            assert await rows.count() == 3
            assert await frame.locator("#rows tbody tr.reject").count() == 1
            assert "a new item needs a name" in await rows.nth(2).inner_text()
            await _never_ran(page)
            await frame.locator("#confirm").click()
            await harness.card_state(page, "applied")
            await harness.shot(page, "import-applied")
            assert await frame.locator("#cancel-job").is_hidden()
            log = await harness.host_log(page)
            assert harness.writes(log)[0]["name"] == "import_items"
            assert {c["name"] for c in harness.writes(log)[1:]} == {"get_job_status"}
            told = log["modelContext"]
            assert len(told) == 1, told
            assert told[0]["content"][0]["text"].startswith("Applied import_items (job ")
            assert "1 new" in told[0]["content"][0]["text"]
            assert reg.invoke("get_item", {"sku": "IMP-1"}, ADMIN)["name"] == HOSTILE
            stock = reg.invoke("get_stock", {"sku": "IMP-1", "location": "MAIN"}, ADMIN)
            assert stock["balances"][0]["on_hand"] == "6"

    harness.run(run())
    assert rec.outside() == [], rec.outside()


def test_preview_card_queued_job(served_idle: tuple[str, str, Registry]) -> None:
    """With no worker the import's job stays queued: the card offers Cancel job (a
    cancel_job write through the host), and gives up following after its bound, handing
    the agent the job id."""
    url, token, reg = served_idle
    rec = harness.Recorder()
    bulk = {"csv": _csv([["sku", "name"], ["Q-1", "Queued item"]])}

    async def run() -> None:
        async with harness.card_host(url, token, PREVIEW_URI) as (mcp, browser, html,
                                                                   call_tool):

            # 1. Cancel job while it is queued: cancelled, nothing written, model told. The
            #    host answers no status read until it has answered the cancel_job: a read
            #    answered first would show the card the job cancelled before it knows the
            #    user asked ("Cancelled: ..." instead of "User cancelled ...").
            host = _StatusHeld(call_tool)
            page = await harness.open_host(browser, rec, host)
            await harness.prove_recorder(page, rec)
            await harness.mount(page, html, bulk, await _preview(mcp, "import_items", bulk))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            await frame.locator("#confirm").click()
            await harness.card_state(page, "pending")
            host.answering.clear()
            await frame.locator("#cancel-job").click()
            await asyncio.wait_for(host.cancelled.wait(), 10)  # a bound on a broken card
            host.answering.set()
            await harness.card_state(page, "cancelled")
            await harness.shot(page, "import-job-cancelled")
            assert await frame.locator("#cancel-job").is_hidden()
            log = await harness.host_log(page)
            cancels = [c for c in log["toolCalls"] if c["name"] == "cancel_job"]
            assert len(cancels) == 1, cancels
            job_id = cancels[0]["arguments"]["job_id"]
            assert cancels[0]["arguments"]["preview"] is False
            assert cancels[0]["arguments"]["idempotency_key"]
            assert reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)["status"] == \
                "cancelled"
            told = [m["content"][0]["text"] for m in log["modelContext"]]
            assert told == [f"User cancelled import_items job {job_id}; nothing was written."]
            with pytest.raises(NotFound):
                reg.invoke("get_item", {"sku": "Q-1"}, ADMIN)

            # 2. A job that never ends: the card stops polling after its bound (ten
            #    minutes, passed on the page's clock) and tells the agent which job to
            #    follow with get_job.
            assert FOLLOW_LIMIT in html
            page = await harness.open_host(browser, rec, call_tool)
            await page.clock.install()  # time flows until the test moves it
            await harness.mount(page, html, bulk, await _preview(mcp, "import_items", bulk))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            await frame.locator("#confirm").click()
            await _following(page)
            await page.clock.fast_forward("10:01")
            for _ in range(200):  # a bound on a broken card only (10 s), not a timing
                log = await harness.host_log(page)
                if log["modelContext"]:
                    break
                await asyncio.sleep(0.05)
            job_id = next(c["arguments"]["job_id"] for c in log["toolCalls"]
                          if c["name"] == "get_job_status")
            told = [m["content"][0]["text"] for m in log["modelContext"]]
            assert len(told) == 1 and job_id in told[0] and "get_job" in told[0], told
            assert "do not apply again" in told[0]
            assert "get_job" in await frame.locator("#outcome").inner_text()
            assert await frame.locator("#cancel-job").is_hidden()
            await harness.card_state(page, "pending")
            polls = len((await harness.still(page))["toolCalls"])
            await page.clock.run_for(5_000)  # ten poll intervals on
            assert len((await harness.settled(page))["toolCalls"]) == polls  # stopped
            assert reg.invoke("get_job_status", {"job_id": job_id}, ADMIN)["status"] == "queued"

    harness.run(run())
    assert rec.outside() == [], rec.outside()
