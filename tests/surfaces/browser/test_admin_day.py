"""A small manufacturer's whole day through the admin alone (issue 29), in headless
Chromium on the demo company, each screen checked for what its user would check.

A dollar supplier is set up on its page and sells hinges in boxes of 3 (its breaks
previewed in dollars); a purchase order with notes is placed in boxes, printed (the notes,
the box, the dollars on paper) and received in part (the average cost previewed in the
books' euros, the dollar price beside it); a piece of a box goes back ("1 pc of a box of
3", never 0.333333 box); a manufacturing order on a routing is previewed with its planned
cost to the cent and its times in words; a lot label is printed and scanned back; an
operator is made and sees no Users; the receipt is reverted and the log says what it was
in words. No money on any page has five decimals or more; the pages fit a 390 px phone,
their screenshots kept (artifacts/e2e). (MRP run from /mrp, its pages read the same way,
is test_admin_mrp.)

Each part is its own test on its own copy of the demo company, the parts before it said
through the tools (`Given`), so no test walks the whole day."""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pypdf
import pytest
from playwright.async_api import Page

from shopfloor.registry.registry import Registry
from tests.base.test_paper import decoded
from tests.given import Given
from tests.helpers import ADMIN
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser import harness
from tests.surfaces.browser.test_admin_mrp import PHONE, RAW, demo_served, readable
from tests.surfaces.browser.test_admin_records import PASSWORD

__all__ = ["demo_served"]
pytestmark = pytest.mark.browser
SUPPLIER = "Pacific Hinge Co"
# a range in words: "Fri 27 Nov, 10:23-11:55", or over days when it starts late in the
# day ("Fri 27 Nov, 15:21 - Mon 30 Nov, 08:20"): the test runs at any hour
DAY = r"[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}"
IN_WORDS = re.compile(DAY + r"(\u2013\d{2}:\d{2}|\s\u2013\s" + DAY + ")")


async def fill(page: Page, url: str, tool: str, fields: dict[str, str]) -> tuple[str, str]:
    await page.goto(f"{url}/tools/{tool}")
    for name, value in fields.items():
        field = page.locator(f"[name='{name}']")
        if await field.evaluate("(e) => e.tagName") == "SELECT":
            await field.select_option(value)
        else:
            await field.fill(value)
    return await ah.preview_and_confirm(page)


def pdf_text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
                    .split())


FETCH = """async (href) => {
  const r = await fetch(href);
  const bytes = new Uint8Array(await r.arrayBuffer());
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return [r.status, r.headers.get("content-type"), btoa(s)];
}"""


async def pdf_of(page: Page, link: str) -> bytes:
    """The PDF a print link opens, fetched as the browser does (its language and all)."""
    import base64

    href = await page.locator(f".prints a:has-text('{link}')").first.get_attribute("href")
    assert href, link
    status, kind, body = await page.evaluate(FETCH, href)
    assert (status, kind) == (200, "application/pdf"), href
    return base64.b64decode(body)


def _hinges_in_dollar_boxes(reg: Registry) -> None:
    """The dollar supplier selling hinges in boxes of 3, as the first test sets it up."""
    given = Given(reg)
    given.apply("create_supplier", name=SUPPLIER, currency="USD")
    given.apply("set_exchange_rate", currency="USD", rate="0.92")
    given.apply("set_supplier_item", sku="HINGE-35", supplier=SUPPLIER,
                supplier_sku="PH-35-BX3", purchase_unit="box", units_per_purchase_unit="3",
                price_breaks=[{"min_quantity": "1", "unit_price": "5.25"}])


def _day(url: str, reg: Registry, steps: Callable[[Page], Awaitable[None]]) -> None:
    """The steps as olga (a minted session), then the axe check of the last page and no
    outside request, refused script or page error on the way."""
    found: list[dict[str, Any]] = []

    async def run() -> None:
        async with harness.browser() as browser, ah.admin_context(browser, url) as (ctx, watch):
            await ah.signed_in(ctx, url, reg, "olga")
            page = await ctx.new_page()
            await steps(page)
            found.extend(await ah.axe(page, page.url))
            assert watch.outside() == [] and watch.refusals == [] and watch.errors == []

    harness.run(run())
    assert found == [], found


async def phone_fits(page: Page, url: str, paths: list[str], bad: list[str], shot: str) -> None:
    """The day's pages on a phone: nothing wider than the screen."""
    await page.set_viewport_size(PHONE)
    for path in paths:
        await page.goto(url + path)
        try:
            await ah.no_overflow(page)
        except AssertionError as exc:
            bad.append(str(exc))
    await ah.shot(page, shot)


def test_a_dollar_supplier_and_an_order_in_boxes_printed_and_received_in_part(
        demo_served: tuple[str, Registry]) -> None:
    url, reg = demo_served
    bad: list[str] = []

    async def steps(page: Page) -> None:
        # -- a supplier in dollars, set on its page, selling hinges in boxes of 3
        await fill(page, url, "create_supplier", {"name": SUPPLIER})
        await fill(page, url, "set_exchange_rate", {"currency": "USD", "rate": "0.92"})
        await page.goto(url + "/suppliers/" + SUPPLIER.replace(" ", "%20"))
        await page.click("#partner-actions a:has-text('Edit')")
        await page.wait_for_selector("#tool-form")
        await page.fill("#f-currency", "USD")
        shown, _ = await ah.preview_and_confirm(page)
        assert "USD" in shown, shown
        shown, _ = await fill(page, url, "set_supplier_item", {
            "sku": "HINGE-35", "supplier": SUPPLIER, "supplier_sku": "PH-35-BX3",
            "purchase_unit": "box", "units_per_purchase_unit": "3",
            "price_breaks.0.min_quantity": "1", "price_breaks.0.unit_price": "5.25"})
        assert "US$5.25" in shown and "€5.25" not in shown, shown  # the breaks in dollars

        # -- a purchase order in boxes, with notes, printed and received in part
        await fill(page, url, "create_purchase_order", {
            "supplier": SUPPLIER, "location": "MAIN", "notes": "Deliver to gate 2, ask Dana",
            "reference": "PH-ORDER-881", "lines.0.sku": "HINGE-35",
            "lines.0.quantity": "4", "lines.0.unit": "box"})
        number = reg.invoke("list_purchase_orders", {"limit": 500}, ADMIN)["orders"]
        po = next(o for o in number if o["partner"] == SUPPLIER)["number"]
        await page.goto(f"{url}/purchase-orders/{po}")
        main = await page.inner_text("main")
        assert "Deliver to gate 2, ask Dana" in main and "PH-ORDER-881" in main
        assert "US$21.00" in main and "box" in main, main  # 4 box at US$5.25
        await readable(page, "po page", bad)
        paper = pdf_text(await pdf_of(page, "Purchase order"))
        assert "Deliver to gate 2, ask Dana" in paper, paper
        assert "PH-35-BX3" in paper.replace("- ", "-"), paper  # (a cell may wrap at its -)
        today = re.search(r"\b\d{1,2} [A-Z][a-z]{2} 20\d\d\b", main)  # as on screen
        assert today and today.group() in paper, (today, paper)
        assert "box" in paper and "$21.00" in paper and "USD" in paper, paper
        await page.click("#order-actions a:has-text('Receive')")
        await page.wait_for_selector("#tool-form")
        await page.fill("[name='lines.0.quantity']", "1")
        shown, _ = await ah.preview_and_confirm(page)
        # the stock's cost in the books' euros, the dollar price beside it at its rate
        assert re.search(r"€1\.\d{2,4}\s*(→|->)\s*€1\.\d{2,4}", shown), shown
        assert "US$5.25/box = €1.61/pcs at 0.92" in shown, shown
        assert "1 box (3 pcs)" in shown, shown
        await page.goto(f"{url}/purchase-orders/{po}")
        assert "Partially received" in await page.inner_text("h1")
        await phone_fits(page, url, ["/suppliers/" + SUPPLIER.replace(" ", "%20")], bad,
                         "day-supplier-phone")

    _day(url, reg, steps)
    assert bad == [], bad


def test_a_piece_of_a_box_goes_back_and_the_log_reverts_return_and_receipt(
        demo_served: tuple[str, Registry]) -> None:
    url, reg = demo_served
    _hinges_in_dollar_boxes(reg)
    po = Given(reg).apply("create_purchase_order", supplier=SUPPLIER, location="MAIN",
                          lines=[{"sku": "HINGE-35", "quantity": "4", "unit": "box"}])["number"]
    Given(reg).apply("receive_purchase_order", number=po,
                     lines=[{"sku": "HINGE-35", "quantity": "1"}])
    bad: list[str] = []

    async def steps(page: Page) -> None:
        # a piece of that box goes back: said in pieces of a box, never 0.333333 box
        await page.goto(f"{url}/purchase-orders/{po}")
        await page.click("#order-actions a:has-text('Return to supplier')")
        await page.wait_for_selector("#tool-form")
        await page.fill("[name='reason']", "one hinge bent")
        await page.fill("[name='lines.0.quantity']", "1")
        await page.fill("[name='lines.0.unit']", "pcs")
        await page.fill("[name='notes']", "Photo of the bent hinge sent to Dana")
        await page.fill("[name='reference']", "RMA-5531")
        shown, _ = await ah.preview_and_confirm(page)
        assert "1 pc of a box of 3" in shown and "0.333333" not in shown, shown
        assert "value €1.61" in shown, shown  # the stock's value, in the books' euros
        await page.goto(f"{url}/purchase-orders/{po}")
        main = await page.inner_text("main")
        assert "1 pc of a box of 3" in main and "0.333333" not in main, main
        returns = await page.inner_text("#returns")  # the return's notes, on its order
        assert "Photo of the bent hinge sent to Dana" in returns and "RMA-5531" in returns
        assert "€1.61" in returns, returns
        await readable(page, "po page after return", bad)
        await page.click("#returns a")  # the return's own page, its note a link away
        ret = await page.inner_text("main")
        assert "1 pc of a box of 3" in ret and "0.333333" not in ret and "RMA-5531" in ret
        assert "Pacific Hinge Co" in ret and "€1.61" in ret, ret
        await readable(page, "return page", bad)
        note = pdf_text(await pdf_of(page, "Return note"))
        assert "1 pc of a box of 3" in note and "RMA-5531" in note, note

        # -- the return, then the receipt, reverted from the log: said in words, no tool
        # name or UUID; the piece of a box goes back on the order, then the box
        for what, gone in (("Return", "1 pc of a box of 3"), ("Receive", "1 box (3 pcs)")):
            await page.goto(url + "/log")
            row = page.locator("#log-table tbody tr", has_text=po).filter(has_text=what)
            await row.first.locator("a:has-text('Revert')").click()
            await page.wait_for_selector("#tool-form")
            await page.fill("[name='reason']", "booked on the wrong order")
            shown, done = await ah.preview_and_confirm(page)
            assert "_order" not in shown + done and "_return" not in shown + done, shown
            assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-", shown + done), shown
            assert po in shown and gone in shown, shown
        await page.goto(f"{url}/purchase-orders/{po}")
        assert "Open" in await page.inner_text("h1")
        await phone_fits(page, url, [f"/purchase-orders/{po}", "/items/HINGE-35"], bad,
                         "day-item-phone")

    _day(url, reg, steps)
    order = reg.invoke("get_purchase_order", {"number": po}, ADMIN)
    line = order["lines"][0]
    assert (line["done_quantity"], line["returned_quantity"]) == ("0", "0"), line
    assert bad == [], bad


def test_a_manufacturing_order_on_a_routing_costed_to_the_cent_and_timed_in_words(
        demo_served: tuple[str, Registry]) -> None:
    url, reg = demo_served
    bad: list[str] = []

    async def steps(page: Page) -> None:
        await fill(page, url, "create_work_centre", {
            "code": "BENCH", "name": "Assembly bench", "hourly_cost": "42.1234"})
        await fill(page, url, "update_routing", {
            "sku": "STOOL-BAR", "operations.0.sequence": "10", "operations.0.name": "Glue up",
            "operations.0.work_centre": "BENCH", "operations.0.setup_minutes": "15",
            "operations.0.run_minutes": "7.3"})
        shown, _ = await fill(page, url, "create_manufacturing_order", {
            "sku": "STOOL-BAR", "quantity": "6", "location": "MAIN",
            "notes": "Use the darker oak first"})
        assert not RAW.search(shown) and re.search(r"€\d[\d,]*\.\d{2}\b", shown), shown
        assert IN_WORDS.search(shown), shown
        mo = reg.invoke("list_manufacturing_orders", {"limit": 500}, ADMIN)["orders"]
        made = max((o for o in mo if o["sku"] == "STOOL-BAR"), key=lambda o: o["id"])
        await page.goto(f"{url}/manufacturing-orders/{made['number']}")
        main = await page.inner_text("main")
        assert "Use the darker oak first" in main and "Planned" in main
        assert IN_WORDS.search(main), main  # the planned times, as the preview said them
        assert await page.locator("#order-actions a:has-text('Log time: 10 Glue up')").count()
        await readable(page, "mo page", bad)
        await phone_fits(page, url, [f"/manufacturing-orders/{made['number']}"], bad,
                         "day-mo-phone")

    _day(url, reg, steps)
    assert bad == [], bad


def test_a_lot_label_scans_back_and_an_operator_sees_no_users(
        demo_served: tuple[str, Registry]) -> None:
    url, reg = demo_served

    async def steps(page: Page) -> None:
        # -- a lot label, scanned back to its lot
        lots = reg.invoke("list_lots", {"sku": "OIL-HARDWAX"}, ADMIN)["lots"]
        await page.goto(url + "/items/OIL-HARDWAX")
        label = await pdf_of(page, f"Lot {lots[0]['lot']} label")
        scans = decoded(label)
        assert len(scans) == 1, scans
        found = reg.invoke("find_by_code", {"code": scans[0][1]}, ADMIN)["matches"]
        assert [(m["kind"], m["key"]) for m in found] == [("lot", lots[0]["lot"])], found
        # -- an operator, made on the form, whose nav offers no Users
        await fill(page, url, "create_user", {"username": "omar", "role": "operator",
                                              "password": PASSWORD})

    _day(url, reg, steps)

    async def as_omar() -> None:
        async with harness.browser() as browser, \
                ah.admin_context(browser, url, width=390, height=844) as (ctx, _):
            await ah.signed_in(ctx, url, reg, "omar", "operator")
            page = await ctx.new_page()
            await page.goto(url + "/")
            nav = await page.inner_text("header.top")
            assert "Users" not in nav and "Items" in nav, nav
            await page.goto(url + "/users")
            assert "admin" in (await page.inner_text("main")).lower()

    harness.run(as_omar())
    assert [u["role"] for u in reg.invoke("list_users", {}, ADMIN)["users"]
            if u["username"] == "omar"] == ["operator"]
