"""The MRP a planner ticks (issue 29), in headless Chromium on the demo company, at a desk
and on a 390 px phone: MRP run from /mrp and followed live, its job page drawn as cards
and leading back to /mrp; two of three planned orders of one item ticked by ref, previewed
and applied; the documents made linked and followed; the third still there to tick. No
page scrolls sideways, no word in the plan is broken, and the screenshots are kept
(artifacts/e2e, ignored by git)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from playwright.async_api import Page

from shopfloor.app import demo
from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.copies import Copies
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser.test_admin_records import PASSWORD, _browse, no_long_money

pytestmark = pytest.mark.browser
PLAN = "main .plan-card"
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}
RAW = re.compile(r"\d\.\d{5,}")  # 332.027971: a figure no person reads


def _demo(reg: Registry) -> None:
    demo.load(reg, ADMIN)
    # a later wave for the café tables: with the demo's two, three orders make them
    apply(reg, "create_sales_order", customer="Casa Bonita Restaurants", location="MAIN",
          due_date=(date.today() + timedelta(days=60)).isoformat(),
          lines=[{"sku": "TABLE-CAFE", "quantity": "30", "unit_price": "399"}])
    Accounts(reg.store).create("olga", PASSWORD, "admin")


@pytest.fixture
def demo_served(sqlite_url: str, copies: Copies) -> Iterator[tuple[str, Registry]]:
    """The demo company, built once a worker and copied for each test."""
    copies.restore(sqlite_url, "browser-demo", _demo)
    settings = Settings(database_url=sqlite_url, currency="EUR")
    reg = open_registry(settings)
    with serving(build_app(reg, settings)) as url:
        yield url, reg


async def readable(page: Page, where: str, bad: list[str]) -> None:
    """What a person reads on the page: no raw figure, no money past four decimals, no
    code word of the vocabulary."""
    text = await page.inner_text("main")
    for found in RAW.finditer(text):
        bad.append(f"{where}: raw figure {text[max(found.start() - 60, 0):found.end()]!r}")
    for word in ("safety_stock", "sales_order", "purchase_order", "partially_received"):
        if word in text:
            bad.append(f"{where}: code word {word}")
    try:
        await no_long_money(page)
    except AssertionError as exc:
        bad.append(f"{where}: {exc}")


async def fits(page: Page, name: str, wide: list[str]) -> None:
    """Nothing wider than the window, no word of the plan broken; the shot kept."""
    try:
        await ah.no_overflow(page)
    except AssertionError as exc:
        wide.append(str(exc))
    broken = await ah.split_words(page, PLAN)
    if broken:
        wide.append(f"{name}: words broken: {broken[:10]}")
    assert await page.locator("main table .plan-card, main .plan-card table").count() == 0
    await ah.shot(page, name)


async def both_ways(page: Page, where: str, unread: list[str], wide: list[str],
                   violations: list[dict[str, object]]) -> int:
    """The page read as a person reads it, fitted and checked by axe at a desk, then
    fitted on a phone (back at the desk after): its height on the phone."""
    await readable(page, where, unread)
    shot = where.replace(" ", "-")
    await fits(page, f"{shot}-desk", wide)
    violations.extend(await ah.axe(page, where))
    await page.set_viewport_size(PHONE)
    await fits(page, f"{shot}-phone", wide)
    height: int = await page.evaluate("() => document.documentElement.scrollHeight")
    await page.set_viewport_size(DESK)
    return height


def _three_of_one_item(plan: dict[str, Any]) -> list[dict[str, Any]]:
    by_sku: dict[str, list[dict[str, Any]]] = {}
    for m in plan["manufacturing_orders"]:
        by_sku.setdefault(m["sku"], []).append(m)
    three = [orders for orders in by_sku.values() if len(orders) == 3]
    assert three, {s: len(o) for s, o in by_sku.items()}
    return three[0]


def test_two_of_three_planned_orders_ticked_by_ref_at_a_desk_and_on_a_phone(
        demo_served: tuple[str, Registry]) -> None:
    url, reg = demo_served
    wide: list[str] = []
    violations: list[dict[str, object]] = []
    heights: dict[str, int] = {}
    unread: list[str] = []

    async def steps(page: Page) -> None:
        await page.clock.install()  # time flows; the job's page is moved on when it ends
        await page.goto(url + "/mrp")
        await page.click("#run-mrp")
        job_id = await ah.job_succeeded(page, reg)
        plan = reg.invoke("get_job", {"job_id": job_id}, ADMIN)["result"]
        first, second, third = _three_of_one_item(plan)
        # the job's page: the plan as cards in words, leading to /mrp
        main = await page.inner_text("main")
        assert "safety_stock" not in main and "Kind:" not in main
        assert re.search(r"for SO-\d+ due \d{1,2} [A-Z][a-z]{2}( \d{4})?: \d", main), main[:2000]
        assert "safety stock by" in main
        heights["job page at 390 px"] = await both_ways(page, "mrp job", unread, wide, violations)
        await page.click("#apply-plan")
        await page.wait_for_url(f"**/mrp?job={job_id}")

        # tick two of the three by ref, nothing else
        await page.locator("input[name='refs']").evaluate_all(
            "(boxes) => boxes.forEach((b) => { b.checked = false; })")
        card = page.locator(f"#order-{first['ref']}")
        name = await card.locator(".plan-head a").first.inner_text()
        assert name and name != first["sku"]  # the item's name, not its code
        for o in (first, third):
            await page.check(f"#tick-{o['ref']}")
        await page.click("#apply-checked")
        await page.wait_for_selector("#plan-confirm")
        said = await page.inner_text("#plan-preview")
        assert first["ref"] in said and third["ref"] in said and second["ref"] not in said
        await page.click("#confirm-plan")
        await page.wait_for_selector("#made-documents")
        links = page.locator("#made-documents a")
        assert await links.count() == 2
        numbers = [await links.nth(i).inner_text() for i in range(2)]
        # the third is still there to tick; the two made are linked from their cards
        assert await page.locator(f"#tick-{second['ref']}").count() == 1
        for o, number in zip((first, third), numbers, strict=True):
            assert await page.locator(f"#tick-{o['ref']}").count() == 0
            assert await page.locator(f"#order-{o['ref']} a.made").inner_text() == number
        heights["/mrp at 390 px"] = await both_ways(page, "mrp applied", unread, wide, violations)
        back = page.url
        for o, number in zip((first, third), numbers, strict=True):
            await page.click(f"#made-documents a:has-text('{number}')")
            await page.wait_for_url(f"**/manufacturing-orders/{number}")
            assert number in await page.inner_text("h1")
            made = reg.invoke("get_manufacturing_order", {"number": number}, ADMIN)
            assert (made["sku"], made["due_date"]) == (o["sku"], o["due_date"])
            await page.go_back()
            await page.wait_for_url(back)
        await page.goto(url + "/mrp")
        assert await page.locator(f"#tick-{second['ref']}").count() == 1
        await page.set_viewport_size(PHONE)
        await fits(page, "mrp-phone", wide)

    assert _browse(url, steps, reg) == []
    assert (wide, violations, unread) == ([], [], []), heights
    print("page heights:", heights)
