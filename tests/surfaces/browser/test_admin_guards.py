"""The admin's guards in Chromium: a session that ends mid-work (expired, or revoked by
disabling the account) sends the user to sign in with the reason, and back to the page;
a form edited after its preview cannot apply the old preview (its Confirm goes, and a
forged Confirm is refused with the fresh preview); a viewer sees no write action and the
server refuses one anyway; hostile names are text in every view."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from playwright.async_api import Page

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.clock import Clock
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser import harness

pytestmark = pytest.mark.browser
HOSTILE = """<img src=x onerror="window.pwned=1">"""
PASSWORD = "correct horse battery"
SESSION_MINUTES = 30


def _serve(sqlite_url: str, clock: Clock) -> Iterator[tuple[str, Registry, Settings]]:
    settings = Settings(database_url=sqlite_url, session_minutes=SESSION_MINUTES)
    reg = open_registry(settings)
    reg.clock = clock  # the server's: it shares this process
    Given(reg).company()
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "50", "unit_cost": "2"}])
    accounts = Accounts(reg.store)
    accounts.create("ann", PASSWORD, "admin")
    accounts.create("vic", PASSWORD, "viewer")
    with serving(build_app(reg, settings)) as url:
        yield url, reg, settings


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def served(sqlite_url: str, clock: Clock) -> Iterator[tuple[str, Registry, Settings]]:
    yield from _serve(sqlite_url, clock)


def _at_the_order_form(url: str, steps: Callable[[Page], Awaitable[None]]) -> None:
    """Ann signed in at a new purchase order's form for Acme at MAIN: `steps` there, with
    nothing asked of another site, no dialog and no error on the page all the while."""
    async def run() -> None:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            page = await ctx.new_page()
            await ah.sign_in(page, url, "ann", PASSWORD)
            await page.goto(url + "/tools/create_purchase_order?supplier=Acme&location=MAIN")
            await steps(page)
            assert watch.outside() == [] and watch.dialogs == [] and watch.errors == []

    harness.run(run())


def _pos(reg: Registry) -> list[dict[str, Any]]:
    orders: list[dict[str, Any]] = reg.invoke("list_purchase_orders", {}, ADMIN)["orders"]
    return orders


def test_session_ends_mid_work_and_an_edited_form_cannot_apply(
        served: tuple[str, Registry, Settings], clock: Clock) -> None:
    url, reg, _ = served

    async def steps(page: Page) -> None:
        # 1. Expired mid-work: the Preview press lands on sign-in, with the reason,
        #    and signing in again returns to the form.
        await page.fill("input[name='lines.0.sku']", "M2")
        await page.fill("input[name='lines.0.quantity']", "10")
        clock.move(timedelta(minutes=SESSION_MINUTES))  # its last moment is behind us
        await page.click("#submit")
        await page.wait_for_selector("#sign-in-reason")
        assert "session expired" in await page.inner_text("#sign-in-reason")
        await ah.shot(page, "session-expired")
        assert _pos(reg) == []
        await page.fill("#username", "ann")
        await page.fill("#password", PASSWORD)
        await page.click("#sign-in-form button[type=submit]")
        await page.wait_for_selector("h1:has-text('Create purchase order')")
        assert "supplier=Acme" in page.url

    _at_the_order_form(url, steps)


def test_an_edited_form_cannot_apply_its_old_preview_and_a_revoked_session_ends(
        served: tuple[str, Registry, Settings]) -> None:
    url, reg, _ = served

    async def steps(page: Page) -> None:
        # By keyboard: the first Tab reaches "Skip to content"; Enter in a field
        # previews; Tab from the preview reaches Confirm.
        await page.keyboard.press("Tab")
        assert await page.evaluate("document.activeElement.className") == "skip"
        await page.fill("input[name='lines.0.sku']", "M2")
        await page.fill("input[name='lines.0.quantity']", "10")
        await page.focus("input[name='lines.0.quantity']")
        await page.keyboard.press("Enter")
        await page.wait_for_selector("#preview #summary-text")
        shown = await page.inner_text("#preview")
        assert "Item M2" in shown
        for _ in range(10):
            if await page.evaluate("document.activeElement.id") == "confirm":
                break
            await page.keyboard.press("Tab")
        assert await page.evaluate("document.activeElement.id") == "confirm"

        # 2. Edited after the preview: its Confirm is withdrawn at once.
        await page.fill("input[name='lines.0.quantity']", "500")
        assert await page.locator("#confirm").count() == 0
        assert await page.locator("#stale-hint").is_visible()
        # 3. Even a Confirm that survives the edit (the form changed behind the
        #    script's back) cannot apply the old preview: refused, fresh one shown.
        await ah.preview(page)
        await page.evaluate("""() => { document.querySelector(
            "input[name='lines.0.quantity']").value = '7'; }""")
        await page.click("#confirm")
        await page.wait_for_selector("#stale-notice")
        assert "differ from the previewed" in await page.inner_text("#stale-notice")
        # the notice arrives with an empty #preview that the renderer then draws
        await page.wait_for_selector("#preview #summary-text")
        assert _pos(reg) == []
        fresh = await page.inner_text("#preview")
        assert "7 @ 1" in fresh and "500" not in fresh
        await ah.confirm(page)
        assert [o["lines"][0]["quantity"] for o in _pos(reg)] == ["7"]

        # 4. Revoked: the account is disabled while signed in.
        Accounts(reg.store).set_disabled("ann", True)
        await page.goto(url + "/items")
        await page.wait_for_selector("#sign-in-reason")
        assert "ended" in await page.inner_text("#sign-in-reason")

    _at_the_order_form(url, steps)


def test_a_viewer_sees_no_write_action_and_is_refused(
        served: tuple[str, Registry, Settings]) -> None:
    url, reg, settings = served
    apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "M1", "quantity": "3"}])
    number = _pos(reg)[0]["number"]

    async def run() -> str:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            page = await ctx.new_page()
            await ah.sign_in(page, url, "vic", PASSWORD)
            assert await page.locator(".quick a").count() == 0
            await page.goto(url + f"/purchase-orders/{number}")
            assert await page.locator("#order-actions a").count() == 0
            await page.goto(url + "/items/M1")
            assert await page.locator("#main .actions a").count() == 0
            await page.goto(url + "/tools")
            listed = await page.inner_text("#tool-list")
            assert "Search items" in listed and "Create purchase order" not in listed
            assert await page.locator("#tool-list .badge.write").count() == 0
            await page.goto(url + "/tools/create_purchase_order")
            assert await page.locator("#tool-form").count() == 0
            assert "cannot use this" in await page.inner_text("main")
            await ah.shot(page, "viewer-refused")
            cookies = await ctx.cookies()
            assert watch.outside() == [] and watch.dialogs == []
            return next(c["value"] for c in cookies if c["name"] == "shopfloor_session")

    session = harness.run(run())
    # The server refuses all the same: a forged form post and the API with the token.
    with httpx.Client(base_url=url, cookies={"shopfloor_session": session},
                      headers={"Origin": url}) as client:
        page = client.get("/items").text
        csrf = page.split('"X-CSRF-Token": "')[1].split('"')[0]
        r = client.post("/tools/create_purchase_order/preview",
                        data={"csrf": csrf, "supplier": "Acme", "location": "MAIN",
                              "lines.0.sku": "M1", "lines.0.quantity": "1"})
        assert r.status_code == 403 and "cannot use this" in r.text
        api = client.post("/api/v1/tools/create_purchase_order",
                          headers={"Authorization": f"Bearer {session}"},
                          json={"supplier": "Acme", "location": "MAIN", "preview": False,
                                "lines": [{"sku": "M1", "quantity": "1"}]})
        assert api.status_code == 403 and api.json()["error"]["code"] == "forbidden"
    assert len(_pos(reg)) == 1
    del settings


def test_hostile_names_are_text_in_every_view(served: tuple[str, Registry, Settings]) -> None:
    url, reg, _ = served
    apply(reg, "create_item", sku="EVIL-1", name=HOSTILE, reorder_point="5",
          default_supplier="Acme")
    apply(reg, "create_supplier", name=HOSTILE)
    apply(reg, "create_customer", name=HOSTILE + " Ltd")
    po = apply(reg, "create_purchase_order", supplier=HOSTILE, location="MAIN",
               notes=HOSTILE, lines=[{"sku": "EVIL-1", "quantity": "2"}])
    so = apply(reg, "create_sales_order", customer=HOSTILE + " Ltd", location="MAIN",
               lines=[{"sku": "M1", "quantity": "1"}])
    apply(reg, "create_stock_adjustment", location="MAIN", reason=HOSTILE,
          lines=[{"sku": "EVIL-1", "quantity_delta": "1", "unit_cost": "1"}])
    op = reg.invoke("get_operation_log", {"limit": 1}, ADMIN)["entries"][0]["operation_id"]
    token = Authenticator(reg, Settings(database_url=reg.store.url)).mint(
        "ann", ["admin"], 600)
    views = ["/", "/items", "/items?query=EVIL", "/items/EVIL-1", "/purchase-orders",
             f"/purchase-orders/{po['number']}", "/sales-orders", "/log", f"/log/{op}",
             "/tools/create_purchase_order", "/tools/list_suppliers?run=1",
             "/tools/get_operation_log?run=1", "/sales-orders/" + so["number"], "/jobs",
             "/mrp", "/tools", "/tools/create_stock_adjustment?reason=" + HOSTILE]

    async def run() -> None:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            page = await ctx.new_page()
            await page.goto(url + "/sign-in")
            await page.click("summary")
            await page.fill("#access_token", token)  # a minted API token signs in too
            await page.click("#token-form button")
            await page.wait_for_selector("header.top")
            for path in views:
                await page.goto(url + path)
                assert await page.locator("main img").count() == 0, path
                assert await page.evaluate("() => window.pwned") is None, path
            await page.goto(url + "/items/EVIL-1")
            assert HOSTILE in await page.inner_text("h1")
            await page.goto(url + "/tools/create_purchase_order")
            await page.fill("#f-supplier", HOSTILE)
            await page.fill("#f-location", "MAIN")
            await page.fill("input[name='lines.0.sku']", "EVIL-1")
            await page.fill("input[name='lines.0.quantity']", "1")
            shown = await ah.preview(page)
            assert shown.count(HOSTILE) >= 2  # the supplier and the item's name
            assert await page.locator("main img").count() == 0
            await ah.shot(page, "hostile-preview")
            assert await page.evaluate("() => window.pwned") is None
            assert watch.dialogs == [] and watch.outside() == [] and watch.refusals == []

    harness.run(run())


def test_pick_lists_reach_any_item_and_lists_page_both_ways(
        served: tuple[str, Registry, Settings]) -> None:
    """A catalogue past the old 500-entry pick list: the 518th part is found by typing
    part of its name, in a line added after the page loaded, and the page itself carries
    no catalogue. A list paged forward pages back the same way, and the browser's Back
    lands where it was."""
    url, reg, _ = served
    parts = "".join(f"PART-{n:04d},Bracket size {n:04d}\n" for n in range(520))
    previewed = reg.invoke("import_items", {"csv": "sku,name\n" + parts}, ADMIN)
    job = reg.invoke("import_items", previewed["apply"]["arguments"], ADMIN)["job_id"]
    for _ in range(600):  # the server's worker runs it; a bound on a broken one (30 s)
        if reg.invoke("get_job_status", {"job_id": job}, ADMIN)["status"] == "succeeded":
            break
        time.sleep(0.05)
    assert reg.invoke("get_item", {"sku": "PART-0519"}, ADMIN)["name"] == "Bracket size 0519"

    async def offered(page: Any, pick: str, wanted: list[str]) -> None:
        """The pick list comes to offer exactly these (it is refilled as one types)."""
        values: list[str] = []
        for _ in range(100):
            values = await page.evaluate(
                f"[...document.querySelectorAll('#pick-{pick} option')].map(o => o.value)")
            if values == wanted:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"#pick-{pick} offers {values}, not {wanted}")

    async def run() -> None:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            page = await ctx.new_page()
            await ah.sign_in(page, url, "ann", PASSWORD)
            await page.goto(url + "/tools/create_purchase_order")
            assert await page.locator("datalist option").count() == 0
            await page.focus("#f-location")
            await page.keyboard.type("mai")
            await offered(page, "locations", ["MAIN"])
            await page.click("[data-add-line='lines']")
            assert await page.evaluate("document.activeElement.name") == "lines.1.sku"
            await page.keyboard.type("size 0517")
            await offered(page, "items", ["PART-0517"])
            assert await page.get_attribute("input[name='lines.1.sku']", "list") == "pick-items"
            await page.fill("input[name='lines.1.sku']", "PART-0517")
            await page.fill("input[name='lines.1.quantity']", "3")
            await page.fill("#f-supplier", "Acme")
            await page.fill("#f-location", "MAIN")
            shown = await ah.preview(page)
            assert "Bracket size 0517" in shown
            violations = await ah.axe(page, "pick-list")
            assert violations == [], violations

            await page.goto(url + "/items?query=bracket")
            firsts = []
            for _ in range(3):
                firsts.append(await page.inner_text("tbody tr:first-child td:first-child"))
                await page.click("#next-page")
            assert firsts == ["PART-0000", "PART-0025", "PART-0050"]
            assert await page.inner_text("#page-no") == "Page 4"
            await page.click("#prev-page")
            assert await page.inner_text("tbody tr:first-child td:first-child") == "PART-0050"
            await page.click("#prev-page")
            assert await page.inner_text("tbody tr:first-child td:first-child") == "PART-0025"
            await page.go_back()
            assert await page.inner_text("tbody tr:first-child td:first-child") == "PART-0050"
            await page.click("#prev-page")
            await page.click("#prev-page")
            assert await page.inner_text("tbody tr:first-child td:first-child") == "PART-0000"
            assert await page.locator("#prev-page").count() == 0
            assert "query=bracket" in page.url
            assert watch.outside() == [] and watch.errors == [] and watch.refusals == []

    harness.run(run())


def test_an_item_page_leaves_out_a_price_the_item_never_has(
        served: tuple[str, Registry, Settings]) -> None:
    """A material is not sold and a product not bought: no 'Sales price 0.00' on them."""
    url, reg, settings = served
    token = Authenticator(reg, settings).mint("ann", ["admin"], 600)
    apply(reg, "create_item", sku="SOLD", name="Sold thing", kind="product", sales_price="9")
    with httpx.Client(base_url=url, cookies={"shopfloor_session": token}) as client:
        material, product = client.get("/items/M1").text, client.get("/items/SOLD").text
    assert "Purchase price" in material and "Sales price" not in material
    assert "Sales price" in product and "Purchase price" not in product
