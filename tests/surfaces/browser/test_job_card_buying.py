"""The job card's purchase lines in the supplier's terms (issue 23), in headless Chromium
behind the official AppBridge: each line's supplier and currency, quantity in the
supplier's unit, price per that unit in that currency, why that supplier, and late when
none delivers in time. A small company planned in-process; the host answers the card's
polls from the registry."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from shopfloor.ui.cards import JOB_URI, resources
from tests.buying.test_buying import alpha_and_beta, world
from tests.buying.test_buying_mrp import need
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import TODAY, day, run_job
from tests.surfaces.browser import harness

pytestmark = pytest.mark.browser


def _answer(structured: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "ok"}], "structuredContent": structured,
            "isError": False}


def test_purchase_lines_show_price_currency_why_and_late(
        registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    apply(registry, "set_supplier_item", sku="WIRE", supplier="Wires Inc", purchase_unit="box",
          units_per_purchase_unit="100", lead_time_days=5,
          price_breaks=[{"min_quantity": "1", "unit_price": "2.00"}])
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from=day(-1))
    need(registry, "1030", 2)           # none in time: Beta, the fastest, late
    need(registry, "150", 20, "WIRE")   # Wires Inc, in dollars, 2 boxes
    job_id = run_job(registry, "run_mrp", today=TODAY.isoformat())["job_id"]
    html = next(c for c in resources() if c.uri == JOB_URI).html
    rec = harness.Recorder()

    async def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        return _answer(registry.invoke(params["name"], params.get("arguments") or {}, ADMIN))

    async def run() -> list[list[str]]:
        async with harness.browser() as browser:
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, {"today": TODAY.isoformat()},
                                _answer({"job_id": job_id, "status": "queued"}))
            await harness.card_state(page, "succeeded")
            frame = page.frame_locator("#card")
            await frame.locator("#pos tbody tr").nth(1).wait_for()
            rows = frame.locator("#pos tbody tr")
            assert await frame.locator("#pos").evaluate(
                "t => t.scrollWidth <= t.parentElement.clientWidth")
            return [await rows.nth(i).locator("td").all_inner_texts()
                    for i in range(await rows.count())]

    rows = {r[1]: r for r in harness.run(run())}
    beta, wires = rows["RESA"], rows["WIRE"]
    assert beta[0].startswith("Beta (EUR)") and "none in time" in beta[0]
    assert beta[2].split("\n") == ["42 bag", "1.25 EUR / bag"]
    assert beta[4].endswith(" late")
    assert wires[0].startswith("Wires Inc (USD)") and "cheapest in time" in wires[0]
    assert wires[2].split("\n") == ["2 box", "2 USD / box"]
    assert not wires[4].endswith(" late")
    assert not rec.outside()
