"""The web admin in headless Chromium against a real server: sign in with a token, search
stock, read an item's history chart, create a purchase order through preview -> Confirm,
find it in the operation log; hostile strings stay text; nothing loads from outside."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Route

from shopfloor.app import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.e2e import harness
from tests.helpers import ADMIN, apply, basic_setup
from tests.servers import serving

pytestmark = pytest.mark.browser
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, str, Registry]]:
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    basic_setup(reg)
    apply(reg, "create_item", sku="EVIL-1", name=HOSTILE, reorder_point="3")
    for delta in ("10", "-4", "6"):
        apply(reg, "create_stock_adjustment", location="MAIN", reason="history",
              lines=[{"sku": "M1", "quantity_delta": delta, "unit_cost": "2"}])
    token = Authenticator(reg, settings).mint("web-wendy", ["operator"], 600)
    with serving(build_app(reg, settings)) as url:
        yield url, token, reg


def test_web_admin_flow(served: tuple[str, str, Registry]) -> None:
    url, token, reg = served
    outside: list[str] = []
    dialogs: list[str] = []

    async def run() -> None:
        async with harness.browser() as browser:
            context = await browser.new_context(viewport={"width": 1200, "height": 900})

            async def route(r: Route) -> None:
                if r.request.url.startswith(url):
                    await r.continue_()
                else:
                    outside.append(r.request.url)
                    await r.abort()

            await context.route("**/*", route)
            page = await context.new_page()
            page.on("dialog", lambda d: dialogs.append(d.message))
            # A blocked load (not a 401 answered by our server) shows as net::ERR_...
            page.on("console", lambda m: outside.append(m.text)
                    if "Failed to load resource: net::" in m.text else None)
            await page.goto(url + "/")

            await page.fill("#token", "not-a-token")
            await page.click("#login-form button")
            await page.wait_for_selector("#login-error:has-text('Sign-in failed')")
            await page.fill("#token", token)
            await page.click("#login-form button")
            await page.wait_for_selector("#stock-table tbody tr")
            assert HOSTILE in await page.inner_text("#stock-table")
            assert await page.locator("#stock-table img").count() == 0
            assert "LOW" in await page.inner_text("#stock-table")

            await page.fill("#search", "M1")
            await page.click("#search-form button")
            rows = page.locator("#stock-table tbody tr")
            for _ in range(100):  # the page's CSP forbids eval, so poll from here
                if await rows.count() == 1:
                    break
                await asyncio.sleep(0.05)
            assert await rows.count() == 1
            await page.click("#stock-table a.item")
            await page.wait_for_selector("#item-chart svg")
            assert await page.locator("#item-chart circle.receipt").count() == 2
            assert await page.locator("#item-chart circle.shipment").count() == 1
            harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(harness.ARTIFACTS / "admin-item.png"))

            await page.click("nav a[data-view='new-po']")
            await page.wait_for_selector("#po-supplier option", state="attached")
            await page.fill("#po-sku", "M2")
            await page.fill("#po-qty", "12")
            await page.fill("#po-price", "1.75")
            await page.click("#po-form button[type=submit]")
            await page.wait_for_selector("#po-changes tbody tr")
            assert "Create purchase order" in await page.inner_text("#po-summary")
            await page.click("#po-confirm")
            await page.wait_for_selector("#po-result.ok")
            result = await page.inner_text("#po-result")
            assert result.startswith("Applied: Create purchase order")
            await page.screenshot(path=str(harness.ARTIFACTS / "admin-po.png"))

            await page.click("nav a[data-view='log']")
            await page.wait_for_selector("#log-table tbody tr")
            first = await page.inner_text("#log-table tbody tr:first-child")
            assert "create_purchase_order" in first and "web-wendy" in first
            await page.screenshot(path=str(harness.ARTIFACTS / "admin-log.png"))
            await asyncio.sleep(0.2)

    asyncio.run(run())
    assert outside == [] and dialogs == []
    orders: dict[str, Any] = reg.invoke("list_purchase_orders", {}, ADMIN)
    assert [(o["lines"][0]["sku"], o["lines"][0]["quantity"]) for o in orders["orders"]] == \
        [("M2", "12")]
