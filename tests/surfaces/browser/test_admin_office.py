"""The office's day in headless Chromium: the item page's lots, holds and projected-stock
chart; a sales order beyond the free stock warned in its preview, naming the held lot;
the pages for the day and the accounts page; every page at 390 px without sideways
scrolling, every page through axe-core, and no money with four or more decimals.

The desk and the phone's pages are three tests on the same company, each short."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from shopfloor.app.accounts import Accounts
from shopfloor.registry.registry import Registry
from tests.helpers import apply
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser.test_admin_records import PASSWORD, _browse, no_long_money, served

__all__ = ["served"]
pytestmark = pytest.mark.browser


def _office(reg: Registry) -> dict[str, Any]:
    """The day's documents: a glue order coming, a sale, a late order, a routed MO."""
    apply(reg, "create_purchase_order", supplier="Glue Works", location="MAIN",
          lines=[{"sku": "GLUE", "quantity": "120", "unit_price": "3.1671"}])
    so = apply(reg, "create_sales_order", customer="Café Linde", location="MAIN",
               lines=[{"sku": "CLAMP", "quantity": "1", "unit_price": "12.3456"}])
    po = apply(reg, "create_purchase_order", supplier="Glue Works", location="MAIN",
               expected_date="2026-01-05",  # late: on /today/receive and /today/late
               lines=[{"sku": "CLAMP", "quantity": "40", "unit_price": "7.2549"}])
    apply(reg, "create_work_centre", code="BENCH", name="Assembly bench with a long name",
          hourly_cost="42.1234")
    apply(reg, "update_routing", sku="BOX", operations=[
        {"sequence": 10, "name": "Glue and clamp the box", "work_centre": "BENCH",
         "setup_minutes": "15", "run_minutes": "4.5"}])
    mo = apply(reg, "create_manufacturing_order", sku="BOX", quantity="30", location="MAIN",
               due_date="2026-01-10")
    return {"so": so["number"], "po": po["number"], "mo": mo["number"]}


def test_a_day_in_the_office_at_a_desk(served: tuple[str, Registry]) -> None:
    url, reg = served
    Accounts(reg.store).create("olga", PASSWORD, "admin")  # listed on /users
    so = _office(reg)["so"]
    violations: list[dict[str, object]] = []

    async def steps(page: Page) -> None:
        await page.goto(url + "/items/GLUE")
        chart = page.locator("svg#projected-chart")
        assert await chart.count() == 1
        assert await chart.locator("path.in").count() == 1  # the purchase order arriving
        assert await chart.locator("line.reorder").count() == 1
        assert "120" in (await chart.locator("path.in title").text_content() or "")
        await no_long_money(page)
        violations.extend(await ah.axe(page, "item"))

        # a sales order for more glue than is free: the preview says so, naming the hold
        await page.goto(url + "/tools/create_sales_order")
        await page.fill("#f-customer", "Café Linde")
        await page.fill("#f-location", "MAIN")
        await page.fill("input[name='lines.0.sku']", "GLUE")
        await page.fill("input[name='lines.0.quantity']", "10")
        shown = await ah.preview(page)
        assert "G-2" in shown and "hold" in shown.lower(), shown
        violations.extend(await ah.axe(page, "so-preview"))

        await page.goto(url + "/today")
        await page.click("#day-list a:has-text('To ship')")
        await page.wait_for_url("**/today/ship")
        assert so in await page.inner_text("#day-rows")
        await page.click("#day-rows a:has-text('Ship')")
        assert "fulfill_order" in page.url
        assert await page.input_value("input[name='lines.0.quantity']") == "1"
        await page.goto(url + "/users")
        assert "olga" in await page.inner_text("#users")
        violations.extend(await ah.axe(page, "users"))

    assert _browse(url, steps, reg) == []
    assert violations == []


def _on_a_phone(url: str, reg: Registry, paths: list[str], shot: str | None = None) -> None:
    """Every page at 390 px: no sideways scrolling, no long money, no axe violation; every
    page that fails is named."""
    violations: list[dict[str, object]] = []
    wide: list[str] = []

    async def steps(page: Page) -> None:
        await page.set_viewport_size({"width": 390, "height": 844})
        for path in paths:
            await page.goto(url + path)
            try:  # every page is checked, and every page that fails is named
                await ah.no_overflow(page)
                await no_long_money(page)
            except AssertionError as exc:
                wide.append(str(exc))
            violations.extend(await ah.axe(page, "phone " + path))
        if shot:
            await ah.shot(page, shot)

    assert _browse(url, steps, reg) == []
    assert (wide, violations) == ([], [])


def test_the_days_lists_and_documents_on_a_phone(served: tuple[str, Registry]) -> None:
    url, reg = served
    made = _office(reg)
    _on_a_phone(url, reg, [
        "/today", *(f"/today/{what}" for what in (
            "buy", "make", "ship", "receive", "late", "expiring")),
        "/items/GLUE", "/sales-orders", f"/sales-orders/{made['so']}",
        "/purchase-orders", f"/purchase-orders/{made['po']}",
        "/manufacturing-orders", f"/manufacturing-orders/{made['mo']}"])


def test_the_office_pages_and_edit_forms_on_a_phone(served: tuple[str, Registry]) -> None:
    url, reg = served
    made = _office(reg)
    _on_a_phone(url, reg, [
        "/work-centres", "/work-centres/BENCH", "/valuation", "/proposals",
        "/jobs", "/webhooks", "/mrp", "/users",
        "/tools/modify_item?sku=GLUE", "/tools/modify_sales_order?number=" + made["so"],
        "/tools/modify_purchase_order?number=" + made["po"],
        "/tools/modify_work_centre?code=BENCH", "/tools/update_routing?sku=BOX",
        "/items/GLUE"], "phone-item-glue")
