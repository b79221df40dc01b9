"""What the preview card shows, in Chromium against the official AppBridge and a real server.

A purchase order's card reads as the document: supplier, location, expected date, total
in the deployment's currency, each line's SKU with the item's name, quantity, price and
line total, all visible at once (nothing collapsed, no raw JSON). A stock adjustment's
card shows its reason and the item's name. A preview gone stale shows the fresh one in
place with a new Confirm, which applies exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import PREVIEW_URI
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.browser import harness

pytestmark = pytest.mark.browser


@pytest.fixture
def served(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str, Registry]]:
    monkeypatch.setenv("SHOPFLOOR_CURRENCY", "EUR")
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    given = Given(reg).company()
    given.item("OAK-40", name="Oak board 40 mm", uom="m", purchase_price="60.5")
    given.stock({"OAK-40": ("10", "60")}, reason="seed")
    token = Authenticator(reg, settings).mint("card-user", ["admin"], 600)
    with serving(build_app(reg, settings)) as url:
        yield url, token, reg


def _adjustments(reg: Registry) -> int:
    log = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    return len(log["entries"])


def test_card_fields_and_stale_then_confirm(served: tuple[str, str, Registry]) -> None:
    url, token, reg = served
    rec = harness.Recorder()

    async def run() -> None:
        async with harness.card_host(url, token, PREVIEW_URI) as (mcp, browser, html,
                                                                   call_tool):
            page = await harness.open_host(browser, rec, call_tool)
            await harness.prove_recorder(page, rec)

            # A purchase order: the document's fields, lines with names, money in EUR.
            apply(reg, "modify_item", sku="M1", precision=1)  # 2.5 of it is a quantity
            po = {"supplier": "Acme", "location": "MAIN", "expected_date": "2026-12-04",
                  "lines": [{"sku": "OAK-40", "quantity": "30"},
                            {"sku": "M1", "quantity": "2.5", "unit_price": "4"}]}
            result = harness.wire(await mcp.call_tool("create_purchase_order", po))
            await harness.mount(page, html, po, result)
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            fields = frame.locator("#fields")
            await fields.wait_for()
            assert await fields.is_visible()
            shown = (await fields.inner_text()).lower()
            for text in ("supplier", "acme", "location", "main", "expected", "2026",
                         "€1,825.00"):
                assert text.lower() in shown, (text, shown)
            lines = frame.locator("#lines")
            await frame.locator("#lines td:has-text('Oak board 40 mm')").wait_for()
            table = await lines.inner_text()
            for text in ("OAK-40", "Oak board 40 mm", "30 m", "€60.50", "€1,815.00", "M1",
                         "Item M1", "2.5", "€10.00"):
                assert text in table, (text, table)
            assert await frame.locator("details").count() == 0
            assert "{" not in await frame.locator("main").inner_text()
            width = await frame.locator("main").evaluate("m => m.scrollWidth")
            assert width <= 720, width
            await harness.shot(page, "po-fields")

            # A dollar supplier's order is drawn in dollars; a euro one stays in euros.
            apply(reg, "create_supplier", name="Yank", currency="USD")
            usd = {"supplier": "Yank", "location": "MAIN",
                   "lines": [{"sku": "M1", "quantity": "2", "unit_price": "4"}]}
            for args, sign, other in ((usd, "$8.00", "€"), (po, "€1,825.00", "$")):
                page = await harness.open_host(browser, rec, call_tool)
                await harness.mount(page, html, args, harness.wire(
                    await mcp.call_tool("create_purchase_order", args)))
                await harness.card_state(page, "preview")
                frame = page.frame_locator("#card")
                await frame.locator("#fields").wait_for()
                shown = await frame.locator("main").inner_text()
                assert sign in shown and other not in shown, shown

            # A stock adjustment: its reason and the item's name are on the card.
            take = {"location": "MAIN", "reason": "water damage in bay 3",
                    "lines": [{"sku": "OAK-40", "quantity_delta": "-2"}]}
            page = await harness.open_host(browser, rec, call_tool)
            await harness.mount(page, html, take,
                                harness.wire(await mcp.call_tool("create_stock_adjustment",
                                                                 take)))
            await harness.card_state(page, "preview")
            frame = page.frame_locator("#card")
            assert "water damage in bay 3" in await frame.locator("#fields").inner_text()
            await frame.locator("#changes td:has-text('Oak board 40 mm')").wait_for()
            changes = await frame.locator("#changes").inner_text()
            assert "at MAIN" in changes and "10" in changes and "8" in changes

            # Stale, then confirmed: stock moves after the preview; Confirm shows the
            # fresh preview in place with a new Confirm; that one applies, once.
            before = _adjustments(reg)
            apply(reg, "create_stock_adjustment", location="MAIN", reason="found one",
                  lines=[{"sku": "OAK-40", "quantity_delta": "1", "unit_cost": "60"}])
            await frame.locator("#confirm").click()
            await frame.locator("#stale:not(.hidden)").wait_for(timeout=15000)
            await harness.card_state(page, "preview")
            stale = await frame.locator("#stale").inner_text()
            assert "changed since" in stale and "field" not in stale, stale
            assert await frame.locator("#confirm").is_enabled()
            fresh = await frame.locator("#changes").inner_text()
            assert "11" in fresh and "9" in fresh, fresh
            await harness.shot(page, "stale-fresh")
            assert _adjustments(reg) == before + 1  # only the one made meanwhile
            await frame.locator("#confirm").dblclick()
            await harness.card_state(page, "applied")
            assert await frame.locator("#stale").is_hidden()
            await harness.shot(page, "stale-confirmed")
            assert _adjustments(reg) == before + 2
            on_hand = reg.invoke("get_stock", {"sku": "OAK-40", "location": "MAIN"}, ADMIN)
            assert on_hand["balances"][0]["on_hand"] == "9"
            told = await harness.told(page)
            assert len(told) == 2 and told[0].startswith("Apply failed: ")
            assert "fresh preview" in told[0] and told[1].startswith("Applied ")
            applies = [c for c in harness.writes(await harness.host_log(page))
                       if c["arguments"].get("preview") is False]
            assert len(applies) == 2
            assert applies[0]["arguments"]["preview_token"] != \
                applies[1]["arguments"]["preview_token"]
            await harness.settled(page)  # all the card sent has reached the host

    harness.run(run())
    assert rec.outside() == [] and rec.dialogs == []
