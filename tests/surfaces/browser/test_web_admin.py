"""A week of a small manufacturer run through the web admin alone, in headless Chromium.

An office manager signs in with a password and does everything by clicking: creates
items and a recipe, a two-line purchase order received in two parts, a sales order, a
manufacturing order completed, the shipment, an MRP run followed live and its plan
applied, then reads the operation log. Every page is checked with axe-core (no serious
or critical violations) and at 390 px wide (no sideways scrolling); screenshots land in
artifacts/e2e; nothing is requested from outside (the recorder is proved by a canary).
The database is then read through the registry: the week happened, exactly once each.

Each part of the week is its own test, the days before it said through the tools
(`Given`, as olga), so no test walks the whole week; only Monday's signs in on the form.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page

from shopfloor.app.accounts import Accounts
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN
from tests.servers import serving
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser import harness

pytestmark = pytest.mark.browser
PASSWORD = "a long office password"


@pytest.fixture
def served(sqlite_url: str) -> Iterator[tuple[str, Registry]]:
    reg, settings, _ = ah.office(sqlite_url, "Nordic Timber")
    with serving(build_app(reg, settings)) as url:
        yield url, reg


async def _item(page: Page, base: str, sku: str, name: str, kind: str, **more: str) -> None:
    await page.goto(base + "/items")
    await page.click("text=New item")
    await page.fill("#f-sku", sku)
    await page.fill("#f-name", name)
    await page.select_option("#f-kind", kind)
    await page.fill("#f-uom", more.pop("uom", "pcs"))
    for key, value in more.items():
        await page.fill(f"#f-{key}", value)
    shown, done = await ah.preview_and_confirm(page)
    assert name in shown and done.startswith("Applied")


async def _open_link(page: Page, text: str) -> None:
    await page.click(f"#applied a:has-text('{text}')")
    await page.wait_for_load_state()


OLGA = Actor.of("olga", "admin")


def _monday(reg: Registry) -> Given:
    """The items and the recipe Monday's test makes on their forms."""
    given = Given(reg, OLGA)
    given.item("OAK-PLANK", name="Oak plank 2 m", purchase_price="12.5", reorder_point="20",
               reorder_quantity="30", default_supplier="Nordic Timber")
    given.item("SCREW-40", name="Wood screw 40 mm", purchase_price="0.05",
               reorder_point="100", reorder_quantity="500", default_supplier="Nordic Timber")
    given.item("STOOL", "product", name="Oak stool", sales_price="149")
    given.recipe("STOOL", {"OAK-PLANK": "1.5", "SCREW-40": "12"})
    return given


def _week(url: str, reg: Registry, steps: Callable[[BrowserContext, Page], Awaitable[None]],
          *, form: bool = False) -> None:
    """The steps in one context (olga's minted session, unless `form`: the steps sign in
    on the form); nothing requested from outside, no refusal, dialog or page error."""
    async def run() -> None:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            if form:  # once: the recorder sees a load from a page in the context
                await ah.prove_recorder(ctx, watch)
            else:
                await ah.signed_in(ctx, url, reg, "olga")
            await steps(ctx, await ctx.new_page())
            found = [*watch.outside(), *watch.refusals, *watch.dialogs, *watch.errors]
            assert found == [], found

    harness.run(run())


def _to_saturday(reg: Registry) -> str:
    """The week up to its MRP run, as olga: the order received in two parts, the stools
    made and shipped. Returns the purchase order's number."""
    given = _monday(reg)
    po: str = given.po({"OAK-PLANK": "10", "SCREW-40": "200"}, "Nordic Timber")["number"]
    given.apply("receive_purchase_order", number=po, lines=[{"sku": "OAK-PLANK",
                                                              "quantity": "6"}])
    given.apply("receive_purchase_order", number=po)
    given.mo("STOOL", "2", complete=True)
    given.so({"STOOL": "2"}, "Café Linde", fulfil=True)
    return po


async def check(page: Page, name: str, violations: list[dict[str, Any]]) -> None:
    violations.extend(await ah.axe(page, name))
    await ah.shot(page, name)


def test_monday_sign_in_on_the_form_then_the_items_and_a_recipe(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    Accounts(reg.store).create("olga", PASSWORD, "admin")  # the one sign-in on the form
    violations: list[dict[str, Any]] = []

    async def steps(_: BrowserContext, page: Page) -> None:
        await page.goto(url + "/")
        await page.wait_for_selector("#sign-in-form")
        await check(page, "sign-in", violations)
        await page.fill("#username", "olga")
        await page.fill("#password", "wrong password")
        await page.click("#sign-in-form button[type=submit]")
        await page.wait_for_selector("#sign-in-error:has-text('wrong username or password')")
        await ah.sign_in(page, url, "olga", PASSWORD)
        await check(page, "home-empty", violations)
        await _item(page, url, "OAK-PLANK", "Oak plank 2 m", "material",
                    purchase_price="12.5", reorder_point="20", reorder_quantity="30",
                    default_supplier="Nordic Timber")
        await _item(page, url, "SCREW-40", "Wood screw 40 mm", "material",
                    purchase_price="0.05", reorder_point="100", reorder_quantity="500",
                    default_supplier="Nordic Timber")
        await _item(page, url, "STOOL", "Oak stool", "product", sales_price="149")
        await page.goto(url + "/items/STOOL")
        await ah.shot(page, "item-stool")
        await page.click("#main a:has-text('Edit recipe')")
        await ah.shot(page, "recipe-form")
        await page.fill("input[name='components.0.sku']", "OAK-PLANK")
        await page.fill("input[name='components.0.quantity']", "1.5")
        await page.click("[data-add-line='components']")
        await page.fill("input[name='components.1.sku']", "SCREW-40")
        await page.fill("input[name='components.1.quantity']", "12")
        shown, _ = await ah.preview_and_confirm(page)
        assert "OAK-PLANK" in shown

    _week(url, reg, steps, form=True)
    assert violations == [], repr(violations)
    recipe = reg.invoke("get_recipe", {"sku": "STOOL"}, ADMIN)["components"]
    assert [(c["sku"], c["quantity"]) for c in recipe] == [("OAK-PLANK", "1.5"),
                                                             ("SCREW-40", "12")]
    log = reg.invoke("get_operation_log", {"tool": "create_item"}, ADMIN)["entries"]
    assert len(log) == 3 and all(e["actor"] == "olga" for e in log)


def test_tuesday_and_wednesday_an_order_of_two_lines_received_in_two_parts(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    _monday(reg)
    violations: list[dict[str, Any]] = []

    async def steps(_: BrowserContext, page: Page) -> None:
        # Tuesday: a two-line purchase order; the preview reads as a document.
        await ah.new_order(page, url, "purchase-orders", {
            "supplier": "Nordic Timber", "location": "MAIN", "expected_date": "2026-12-04"},
            [("OAK-PLANK", "10"), ("SCREW-40", "200")])
        shown = await ah.preview(page)
        for text in ("Supplier", "Nordic Timber", "Oak plank 2 m", "Wood screw 40 mm",
                     "€135.00", "€125.00", "4 Dec 2026"):
            assert text.lower() in shown.lower(), (text, shown)
        assert "000000" not in shown and "{" not in shown
        await check(page, "po-preview", violations)
        assert (await ah.confirm(page)).startswith("Applied")
        await _open_link(page, "Open PO-")
        number = (await page.inner_text("h1")).split()[0]
        assert "Open" in await page.inner_text("h1")

        # Wednesday: the goods arrive in two parts, line by line.
        await page.click("#order-actions a:has-text('Receive')")
        assert await page.input_value("input[name='lines.0.quantity']") == "10"
        await page.fill("input[name='lines.0.quantity']", "6")
        shown, done = await ah.preview_and_confirm(page)
        assert "Oak plank 2 m" in shown and done.startswith("Applied")
        await page.goto(url + f"/purchase-orders/{number}")
        assert "Partially received" in await page.inner_text("h1")
        await check(page, "po-partly-received", violations)
        await ah.tables_fit(page)  # whole words ("olga", not "olg|a"), every column seen
        fields = await page.locator("dl.fields dt").all_text_contents()
        assert "Supplier" in fields and "Partner" not in fields, fields
        assert "What" in await page.locator("main th").all_text_contents()
        await page.click("#order-actions a:has-text('Receive')")
        assert await page.input_value("input[name='lines.0.quantity']") == "4"
        assert await page.locator("input[name='lines.1.sku']").count() == 0
        await ah.preview_and_confirm(page)
        await page.go_back()  # the order's own URL: back, forward and reload work
        await page.reload()
        assert "Received" in await page.inner_text("h1")
        await page.go_forward()
        assert "Receive purchase order" in await page.inner_text("h1")
        await page.go_back()
        assert number in await page.inner_text("h1")
        # The plank's movements name the order in words, and lead to it.
        await page.goto(url + "/items/OAK-PLANK")
        moves = await page.inner_text("main")
        assert "Purchase order" in moves and "purchase_order" not in moves
        await page.click(f"main td a:has-text('{number}')")
        await page.wait_for_url(f"**/purchase-orders/{number}")

    _week(url, reg, steps)
    assert violations == [], repr(violations)
    pos = reg.invoke("list_purchase_orders", {}, ADMIN)["orders"]
    ours = [o for o in pos if o["partner"] == "Nordic Timber" and len(o["lines"]) == 2]
    assert len(ours) == 1 and ours[0]["status"] == "received"
    log = reg.invoke("get_operation_log", {"tool": "receive_purchase_order"}, ADMIN)
    assert len(log["entries"]) == 2 and all(e["actor"] == "olga" for e in log["entries"])


def test_thursday_stools_ordered_made_and_shipped(served: tuple[str, Registry]) -> None:
    url, reg = served
    _monday(reg).po({"OAK-PLANK": "10", "SCREW-40": "200"}, "Nordic Timber", receive=True)

    async def steps(_: BrowserContext, page: Page) -> None:
        # Thursday: a customer orders two stools; we make them.
        await ah.new_order(page, url, "sales-orders",
                           {"customer": "Café Linde", "location": "MAIN"}, [("STOOL", "2")])
        shown, _ = await ah.preview_and_confirm(page)
        assert "customer" in shown.lower() and "€298.00" in shown
        await _open_link(page, "Open SO-")
        so_url = page.url
        await page.goto(url + "/items/STOOL")
        await page.click("#main a:has-text('Make')")
        await page.fill("#f-quantity", "2")
        await page.fill("#f-location", "MAIN")
        await ah.preview_and_confirm(page)
        await _open_link(page, "Open MO-")
        await page.click("#order-actions a:has-text('Complete')")
        shown, done = await ah.preview_and_confirm(page)
        assert done.startswith("Applied")
        await page.goto(url + "/manufacturing-orders?status=done")
        assert await page.locator("#orders tbody tr").count() == 1

        # Friday morning: the stools shipped.
        await page.goto(so_url)
        await page.click("#order-actions a:has-text('Ship')")
        await ah.preview_and_confirm(page)
        await page.goto(so_url)
        assert "Fulfilled" in await page.inner_text("h1")

    _week(url, reg, steps)
    sales = reg.invoke("list_sales_orders", {}, ADMIN)["orders"]
    assert [o["status"] for o in sales] == ["fulfilled"]
    stool = reg.invoke("get_item", {"sku": "STOOL"}, ADMIN)
    assert stool["on_hand"] == "0"


def test_friday_mrp_followed_live_its_plan_applied_and_then_nothing_left_to_plan(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    _to_saturday(reg)
    violations: list[dict[str, Any]] = []

    async def steps(_: BrowserContext, page: Page) -> None:
        # Friday: plan: MRP runs as a job followed live, and its plan applies.
        await page.clock.install()  # time flows; the job's page is moved on when it ends
        await page.goto(url + "/mrp")
        await check(page, "mrp", violations)
        await page.click("#run-mrp")
        await ah.job_succeeded(page, reg)
        await check(page, "mrp-plan", violations)
        await page.click("#apply-plan")  # ticked and applied on the MRP page
        await page.click("#apply-checked")
        await page.click("#confirm-plan")
        await page.wait_for_selector("#made-documents")
        assert await page.locator("#plan-done").is_visible()
        await page.goto(url + "/mrp")  # planned again: nothing left to do, and it says so
        await page.click("#run-mrp")
        await ah.job_succeeded(page, reg)
        assert await page.locator("#empty-plan").is_visible()
        assert await page.locator("#apply-plan").count() == 0

    _week(url, reg, steps)
    assert violations == [], repr(violations)
    planned = reg.invoke("list_purchase_orders", {}, ADMIN)["orders"]
    assert len(planned) == 2, planned  # the week's order and the plan's


def test_saturday_the_log_in_words_home_and_the_pages_on_a_phone_light_and_dark(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    po = _to_saturday(reg)
    violations: list[dict[str, Any]] = []

    async def steps(ctx: BrowserContext, page: Page) -> None:
        # Saturday: the log, in words, filtered; home shows the state of things.
        await page.goto(url + "/log")
        log = await page.inner_text("#log-table")
        for words in ("Create purchase order", "Receive purchase order", "Fulfil sales order",
                      "Complete manufacturing order", "olga"):
            assert words in log, words
        assert "create_purchase_order" not in log
        await check(page, "log", violations)
        await ah.tables_fit(page)
        await page.select_option("#tool", "receive_purchase_order")
        await page.click("form.filters button")
        await page.wait_for_url("**tool=receive_purchase_order**")
        assert await page.locator("#log-table tbody tr").count() == 2
        await page.goto(url + "/")
        await check(page, "home", violations)
        await ah.tables_fit(page)
        await page.goto(url + "/tools/create_stock_transfer")
        await check(page, "tool-form", violations)

        # The same pages on a phone: nothing scrolls sideways.
        phone = await ctx.new_page()
        await phone.set_viewport_size({"width": 390, "height": 844})
        for path in ("/", "/items", f"/purchase-orders/{po}", "/log",
                     "/tools/create_purchase_order"):
            await phone.goto(url + path)
            await ah.no_overflow(phone)
        violations.extend(await ah.axe(phone, "phone-form"))
        await ah.shot(phone, "phone-po-form")
        # Dark theme, switched by the reader and kept across pages.
        await phone.click("#theme-toggle")
        await phone.goto(url + "/")
        assert await phone.evaluate("document.documentElement.dataset.theme") == "dark"
        violations.extend(await ah.axe(phone, "phone-dark"))
        await ah.shot(phone, "phone-home-dark")

    _week(url, reg, steps)
    assert violations == [], repr(violations)
