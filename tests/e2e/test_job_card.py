"""The job dashboard card in headless Chromium, hosted by the official AppBridge, against
a real server whose in-process worker runs MRP over a 20,000-item company.

Progress advances while the job runs; the plan shows, and its Confirm creates the orders
through preview -> apply; Cancel stops a running job; nothing is loaded from outside.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from bench.synthetic import TODAY, build
from shopfloor.app import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.store.tables import Job, ManufacturingOrder, PurchaseOrder
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import JOB_URI
from tests.e2e import harness
from tests.helpers import ADMIN, apply
from tests.mcp.clients import http_session
from tests.servers import serving

pytestmark = pytest.mark.browser
ITEMS, ORDERS = 20_000, 10_000


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    settings = Settings(database_url=sqlite_url, job_heartbeat_seconds=0.3)
    reg = open_registry(settings)
    build(reg, ITEMS, ORDERS, stock=(2000, 3000))  # plenty of stock: a small plan...
    apply(reg, "create_sales_order", customer="Customer 1", location="MAIN",  # ...but one rush
          due_date=TODAY.isoformat(), lines=[{"sku": "PRO-0-000001", "quantity": "9000"}])
    token = Authenticator(reg, settings).mint("planner", ["admin"], 600)
    with serving(build_app(reg, settings)) as url:
        yield url, token, reg


def _count(reg: Registry, model: Any) -> int:
    with reg.store.reading() as s:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())


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

    async def run() -> None:
        async with http_session(url, token) as mcp, harness.browser() as browser:
            html = await harness.card_html(mcp, JOB_URI)
            call_tool = harness.forward(mcp)

            async def start(page: Any) -> str:
                args = {"today": TODAY.isoformat()}
                started = await mcp.call_tool("run_mrp", args)
                assert not started.is_error, started
                await harness.mount(page, html, args, harness.wire(started))
                job_id: str = started.structured_content["job_id"]  # type: ignore[index]
                return job_id

            # 1. Progress advances, then the plan shows and the model is told.
            page = await harness.open_host(browser, rec, call_tool)
            await harness.prove_recorder(page, rec)
            job_id = await start(page)
            seen = await _watch_progress(page, reg, job_id)
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
            assert await frame.locator("#mos tbody tr").count() == mos
            assert await frame.locator("#pos tbody tr").count() == po_lines
            assert "PRO-0-000001" in await frame.locator("#mos").inner_text()
            told = (await harness.host_log(page))["modelContext"]
            assert len(told) == 1 and told[0]["content"][0]["text"].startswith(
                f"Job mrp {job_id} succeeded: MRP: {mos} manufacturing orders")

            # 2. "Create these orders": a preview first, then Confirm applies it once.
            before_mo, before_po = _count(reg, ManufacturingOrder), _count(reg, PurchaseOrder)
            await frame.locator("#apply").click()
            await frame.locator("#apply", has_text="Confirm").wait_for(timeout=30000)
            assert _count(reg, ManufacturingOrder) == before_mo  # the preview wrote nothing
            assert "Preview: Apply MRP plan" in await frame.locator("#outcome").inner_text()
            await frame.locator("#apply").dblclick()
            await harness.card_state(page, "applied")
            await harness.shot(page, "job-plan-applied")
            assert _count(reg, ManufacturingOrder) == before_mo + mos
            assert _count(reg, PurchaseOrder) == before_po + len(plan["purchase_orders"])
            calls = [c for c in (await harness.host_log(page))["toolCalls"]
                     if c["name"] == "apply_mrp_plan"]
            assert [c["arguments"].get("preview", True) for c in calls] == [True, False]

            # 3. Cancel stops a running job at its next checkpoint.
            page = await harness.open_host(browser, rec, call_tool)
            job_id = await start(page)
            frame = page.frame_locator("#card")
            await frame.locator("body[data-state='running']").wait_for(timeout=30000)
            await frame.locator("#cancel").click()
            seen = await _watch_progress(page, reg, job_id)
            await harness.shot(page, "job-cancelled")
            assert seen[-1][0] == "cancelled", seen
            assert "Cancel requested." in await frame.locator("#outcome").inner_text()
            with reg.store.reading() as s:
                assert s.get(Job, job_id).status == "cancelled"  # type: ignore[union-attr]
            log = await harness.host_log(page)
            cancel = [c for c in log["toolCalls"] if c["name"] == "cancel_job"]
            assert len(cancel) == 1 and cancel[0]["arguments"]["preview"] is False
            assert await frame.locator("#apply").is_hidden()

    asyncio.run(run())
    assert rec.outside() == [], rec.outside()
