"""A purchase order in the supplier's terms on the preview card (issue 23), in headless
Chromium behind the official AppBridge: an order in boxes from a supplier in dollars
reads in boxes and dollars (its lines, their totals and the order's total), not in the
item's unit and the deployment's currency. The host answers from the registry."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from shopfloor.ui.cards import PREVIEW_URI, resources
from tests.buying.test_buying import world
from tests.helpers import ADMIN, apply
from tests.surfaces.browser import harness

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

    fields, lines = harness.run(run())
    assert "$22.00" in fields and "€" not in fields
    # the quantity in boxes, never read as pieces; the pack beside it says what a box holds
    assert "11 box" in lines and "11 pcs" not in lines and "100 pcs" in lines, lines
    assert "$2.00" in lines and "$22.00" in lines and "€" not in lines
    assert not rec.outside()


def _drawn(registry: Registry, tool: str, args: dict[str, Any], wait: str) -> str:
    """The preview card's text for one write's preview, as a person reads it."""
    preview = registry.invoke(tool, args, ADMIN)
    html = next(c for c in resources() if c.uri == PREVIEW_URI).html
    rec = harness.Recorder()

    async def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        return _answer(registry.invoke(params["name"], params.get("arguments") or {}, ADMIN))

    async def run() -> str:
        async with harness.browser() as browser:
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, args, _answer(preview))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            await frame.locator(wait).first.wait_for()
            return await frame.locator("body").inner_text()

    return harness.run(run())


def test_a_dollar_receipt_shows_the_average_cost_in_the_books_euros(
        registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the receipt of a dollar order read "Average cost US$1.80 -> US$1.66"
    while both are the books' euros; and a dollar supplier's price breaks read in euros."""
    monkeypatch.setenv("SHOPFLOOR_CURRENCY", "EUR")
    world(registry)
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from="2000-01-01")
    terms = {"sku": "WIRE", "supplier": "Wires Inc", "purchase_unit": "box",
             "units_per_purchase_unit": "100",
             "price_breaks": [{"min_quantity": "1", "unit_price": "3.50"}]}
    breaks = _drawn(registry, "set_supplier_item", terms, "td:has-text('3.50')")
    assert "$3.50" in breaks and "€" not in breaks, breaks
    apply(registry, "set_supplier_item", **terms)
    po = apply(registry, "create_purchase_order", supplier="Wires Inc", location="MAIN",
               lines=[{"sku": "WIRE", "unit": "box", "quantity": "10"}])
    text = _drawn(registry, "receive_purchase_order",
                  {"number": po["number"], "lines": [{"sku": "WIRE", "quantity": "5"}]},
                  "#changes")
    cost = next(line for line in text.splitlines() if "Average cost" in line)
    assert "€0.0322" in cost and "$" not in cost, cost  # 3.50 USD / 100 x 0.92
    assert "US$3.50/box = €0.0322/pcs at 0.92" in text, text  # both, where one becomes the other
