"""The Accounting page in headless Chromium (issue 31): opened from the menu at 1280 px,
filtered to one document, both files downloaded (the CSV's header first, the beancount
ledger's open directives and the receipt's link), the lock date set through the lock
tool's own preview and Confirm on the page; at 390 px the page scrolls down, never
sideways, with no word broken inside a cell; every view through axe-core."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from playwright.async_api import Page

from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser.test_admin_records import _browse, served

__all__ = ["served"]
pytestmark = pytest.mark.browser


async def downloaded(page: Page, selector: str, folder: Path) -> str:
    async with page.expect_download() as info:
        await page.click(selector)
    got = await info.value
    target = folder / got.suggested_filename
    await got.save_as(str(target))
    return target.read_text("utf-8")


def test_the_accounting_page_on_a_desk_and_on_a_phone(served: tuple[str, Registry],
                                                      tmp_path: Path) -> None:
    url, reg = served
    po = apply(reg, "create_purchase_order", supplier="Glue Works", location="MAIN",
               lines=[{"sku": "CLAMP", "quantity": "10", "unit_price": "7.25"}])["number"]
    apply(reg, "receive_purchase_order", number=po)
    violations: list[dict[str, object]] = []
    wide: list[str] = []
    files: dict[str, str] = {}
    yesterday = (reg.clock().date().toordinal() - 1)
    lock_day = type(reg.clock().date()).fromordinal(yesterday).isoformat()

    async def steps(page: Page) -> None:
        await page.goto(url + "/")
        await page.click("nav a:has-text('Accounting')")
        await page.wait_for_selector("#trial-table")
        await ah.tables_fit(page)
        assert "2110" in await page.inner_text("#grni-balance")
        violations.extend(await ah.axe(page, "accounting"))
        await ah.shot(page, "accounting")

        await page.fill("#a-document", po)
        await page.click("#show-accounting")
        await page.wait_for_url("**document=*")
        rows = await page.locator("#journal-table tbody tr").count()
        assert rows == 2, rows  # the receipt: Inventory and GRNI
        assert "Goods received" in await page.inner_text("#journal-table")

        files["csv"] = await downloaded(page, "#journal-csv", tmp_path)
        files["beancount"] = await downloaded(page, "#journal-beancount", tmp_path)

        await page.fill("#f-lock_date", lock_day)
        await page.fill("#f-reason", "the month is closed")
        shown, applied = await ah.preview_and_confirm(page)
        assert lock_day in shown, shown
        assert f"Lock the books up to {lock_day}" in applied, applied
        await page.goto(url + "/accounting")
        assert lock_day in await page.inner_text("#lock-now")

        await page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/accounting", f"/accounting?document={po}"):
            await ah.fits_a_phone(page, url, path, wide, violations)
        await ah.shot(page, "phone-accounting")

    assert _browse(url, steps, reg) == []
    assert (wide, violations) == ([], [])
    header, *rows = list(csv.reader(io.StringIO(files["csv"])))
    assert header == ["date", "entry", "account", "account_name", "debit", "credit", "currency",
                      "document_type", "document", "partner", "memo"]
    mine = [r for r in rows if r[8] == po]
    assert sorted((r[2], r[4], r[5]) for r in mine) == [("1310", "72.5", "0"),
                                                        ("2110", "0", "72.5")]
    bean = files["beancount"]
    assert 'open Liabilities:2110-Goods-Received-Not-Invoiced' in bean
    assert f"^{po}" in bean and "balance Assets:Inventory" in bean
    assert reg.invoke("get_lock_date", {}, ADMIN)["lock_date"] == lock_day
