"""The preview card in headless Chromium, hosted by the official AppBridge, real server.

Confirm applies exactly once (double click too) and tells the model; a stale apply
shows the real reason; Cancel writes nothing; hostile names render as text; nothing is
loaded from outside.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client.session import ClientSession

from shopfloor.app import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import PREVIEW_URI
from tests.e2e import harness
from tests.helpers import ADMIN, apply, basic_setup, snapshot
from tests.mcp.clients import http_session
from tests.servers import serving

pytestmark = pytest.mark.browser
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    basic_setup(reg)
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "2"}])
    token = Authenticator(reg, settings).mint("card-user", ["admin"], 600)
    with serving(build_app(reg, settings)) as url:
        yield url, token, reg


def _adjustments(reg: Registry) -> int:
    log = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    return len(log["entries"])


async def _preview(mcp: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await mcp.call_tool(tool, args)
    assert not result.is_error, result
    return harness.wire(result)


def test_preview_card_end_to_end(served: tuple[str, str, Registry]) -> None:
    url, token, reg = served
    rec = harness.Recorder()

    async def run() -> None:
        async with http_session(url, token) as mcp, harness.browser() as browser:
            html = await harness.card_html(mcp, PREVIEW_URI)
            call_tool = harness.forward(mcp)

            # 1. Confirm, double-clicked: applied once, model told, database written.
            page = await harness.open_host(browser, rec, call_tool)
            await harness.prove_recorder(page, rec)
            args = {"location": "MAIN", "reason": "found a box",
                    "lines": [{"sku": "M1", "quantity_delta": "3"}]}
            before = _adjustments(reg)
            await harness.mount(page, html, args, await _preview(mcp, "create_stock_adjustment",
                                                                 args))
            await harness.card_state(page, "preview")
            await page.frame_locator("#card").locator("#confirm").dblclick()
            await harness.card_state(page, "applied")
            await harness.shot(page, "applied")
            log = await harness.host_log(page)
            assert len(log["toolCalls"]) == 1
            call = log["toolCalls"][0]
            assert call["arguments"]["preview"] is False and call["arguments"]["preview_token"]
            assert call["arguments"]["idempotency_key"]
            told = log["modelContext"]
            assert len(told) == 1 and told[0]["content"][0]["text"].startswith("Applied ")
            assert told[0]["structuredContent"]["applied"] is True
            assert _adjustments(reg) == before + 1
            stock = reg.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)
            assert stock["balances"][0]["on_hand"] == "8"

            # 2. Stock changes after the preview: Error with the real reason.
            page = await harness.open_host(browser, rec, call_tool)
            take = {"location": "MAIN", "reason": "scrap",
                    "lines": [{"sku": "M1", "quantity_delta": "-6"}]}
            await harness.mount(page, html, take, await _preview(mcp, "create_stock_adjustment",
                                                                 take), theme="dark")
            await harness.card_state(page, "preview")
            apply(reg, "create_stock_adjustment", location="MAIN", reason="meanwhile",
                  lines=[{"sku": "M1", "quantity_delta": "-4"}])
            quiet = snapshot(reg)
            await page.frame_locator("#card").locator("#confirm").click()
            await harness.card_state(page, "error")
            await harness.shot(page, "error")
            told = (await harness.host_log(page))["modelContext"]
            assert len(told) == 1
            text = told[0]["content"][0]["text"]
            assert text.startswith("Apply failed: ") and "changed since the preview" in text
            assert "on hand 4, needs 6" in text
            assert snapshot(reg) == quiet

            # 3. Cancel: message to the model, nothing written, buttons locked.
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, args, await _preview(mcp, "create_stock_adjustment",
                                                                 args))
            await harness.card_state(page, "preview")
            quiet = snapshot(reg)
            await page.frame_locator("#card").locator("#cancel").focus()
            await page.keyboard.press("Enter")
            await harness.card_state(page, "cancelled")
            await harness.shot(page, "cancelled")
            log = await harness.host_log(page)
            assert log["toolCalls"] == []
            assert log["modelContext"][0]["content"][0]["text"] == \
                "User cancelled the create_stock_adjustment preview."
            frame = page.frame_locator("#card")
            assert await frame.locator("#confirm").is_disabled()
            assert await frame.locator("#cancel").is_disabled()
            assert snapshot(reg) == quiet

            # 4. A hostile item name is shown as text; nothing runs.
            page = await harness.open_host(browser, rec, call_tool)
            hostile = {"sku": "EVIL-1", "name": HOSTILE}
            await harness.mount(page, html, hostile, await _preview(mcp, "create_item", hostile))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            assert HOSTILE in await frame.locator("#changes").inner_text()
            assert await frame.locator("img").count() == 0
            await frame.locator("#confirm").click()
            await harness.card_state(page, "applied")
            assert HOSTILE in await frame.locator("#outcome").inner_text()
            await asyncio.sleep(0.3)
            assert rec.dialogs == []
            assert reg.invoke("get_item", {"sku": "EVIL-1"}, ADMIN)["name"] == HOSTILE

            # 5. A bulk write: rows decided one by one, Confirm queues a job, the card
            #    follows it to the end and only then tells the model.
            page = await harness.open_host(browser, rec, call_tool)
            bulk = {"csv": f"sku,name,on_hand:MAIN\nIMP-1,{HOSTILE},6\nM1,,\nBAD,,\n",
                    "skip_rejects": True}
            await harness.mount(page, html, bulk, await _preview(mcp, "import_items", bulk))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            rows = frame.locator("#rows tbody tr")
            assert await rows.count() == 3
            assert await frame.locator("#rows tbody tr.reject").count() == 1
            assert "a new item needs a name" in await rows.nth(2).inner_text()
            await frame.locator("#confirm").click()
            await harness.card_state(page, "applied")
            await harness.shot(page, "import-applied")
            log = await harness.host_log(page)
            assert log["toolCalls"][0]["name"] == "import_items"
            assert {c["name"] for c in log["toolCalls"][1:]} == {"get_job_status"}
            told = log["modelContext"]
            assert len(told) == 1, told
            assert told[0]["content"][0]["text"].startswith("Applied import_items (job ")
            assert "1 new" in told[0]["content"][0]["text"]
            assert reg.invoke("get_item", {"sku": "IMP-1"}, ADMIN)["name"] == HOSTILE
            stock = reg.invoke("get_stock", {"sku": "IMP-1", "location": "MAIN"}, ADMIN)
            assert stock["balances"][0]["on_hand"] == "6"
            assert rec.dialogs == []

    asyncio.run(run())
    assert rec.outside() == [], rec.outside()
