"""A purchase order in the supplier's terms on the preview card (issue 23), in headless
Chromium behind the official AppBridge: an order in boxes from a supplier in dollars
reads in boxes and dollars (its lines, their totals and the order's total), not in the
item's unit and the deployment's currency. The host answers from the registry."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from shopfloor.ui.cards import PREVIEW_URI, resources
from tests.e2e import harness
from tests.helpers import ADMIN, apply
from tests.reliability.test_buying import world

pytestmark = pytest.mark.browser


def _answer(structured: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "ok"}], "structuredContent": structured,
            "isError": False}


def test_an_order_in_boxes_and_dollars_reads_so(registry: Registry,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOPFLOOR_CURRENCY", "EUR")
    world(registry)
    apply(registry, "set_supplier_item", sku="WIRE", supplier="Wires Inc", purchase_unit="box",
          units_per_purchase_unit="100", price_breaks=[{"min_quantity": "1",
                                                        "unit_price": "2.00"}])
    args = {"supplier": "Wires Inc", "location": "MAIN",
            "lines": [{"sku": "WIRE", "unit": "box", "quantity": "11"}]}
    preview = registry.invoke("create_purchase_order", args, ADMIN)
    html = next(c for c in resources() if c.uri == PREVIEW_URI).html
    rec = harness.Recorder()

    async def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        return _answer(registry.invoke(params["name"], params.get("arguments") or {}, ADMIN))

    async def run() -> tuple[str, str]:
        async with harness.browser() as browser:
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, args, _answer(preview))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            await frame.locator("#lines td:has-text('Wire')").first.wait_for()
            return (await frame.locator("#fields").inner_text(),
                    await frame.locator("#lines").inner_text())

    fields, lines = asyncio.run(run())
    assert "$22.00" in fields and "€" not in fields
    assert "11 box" in lines and "pcs" not in lines
    assert "$2.00" in lines and "$22.00" in lines and "€" not in lines
    assert not rec.outside()
