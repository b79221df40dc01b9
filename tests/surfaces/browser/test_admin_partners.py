"""The partners' pages and the letterhead in headless Chromium (issue 29): a supplier's
currency changed on its page through its Edit form; the letterhead's logo picked as a
file (the browser sends its bytes as base64); at 390 px the Suppliers and Customers lists,
a partner's page, the item page's supplier items and the Company page are cards, with no
sideways scroll and no word broken inside a cell; every page through axe-core."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page

from shopfloor.registry.registry import Registry
from tests.base.test_company_profile import png
from tests.helpers import ADMIN, apply
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser.test_admin_records import _browse, served

__all__ = ["served"]
pytestmark = pytest.mark.browser


def test_partners_and_letterhead_on_a_desk_and_on_a_phone(served: tuple[str, Registry],
                                                           tmp_path: Path) -> None:
    url, reg = served
    apply(reg, "create_supplier", name="Pacific Adhesives Incorporated", currency="USD",
          contact="Dana Lee", address="9 Harbour Road\nPortland, OR 97201",
          payment_terms_days=45, tax_id="US-99-1234567")
    apply(reg, "set_supplier_item", sku="GLUE", supplier="Pacific Adhesives Incorporated",
          supplier_sku="PA-GLUE-25KG", purchase_unit="drum", units_per_purchase_unit="25",
          lead_time_days=14, price_breaks=[{"min_quantity": "1", "unit_price": "71.5"},
                                           {"min_quantity": "10", "unit_price": "68.25"}])
    apply(reg, "create_purchase_order", supplier="Pacific Adhesives Incorporated",
          location="MAIN", reference="PA-ORDER-55512",
          lines=[{"sku": "GLUE", "quantity": "2", "unit": "drum"}])
    apply(reg, "create_sales_order", customer="Café Linde", location="MAIN",
          reference="CL-PO-2026-0042", lines=[{"sku": "CLAMP", "quantity": "1"}])
    logo = tmp_path / "logo.png"
    logo.write_bytes(png(60, 20))
    violations: list[dict[str, object]] = []
    wide: list[str] = []

    async def steps(page: Page) -> None:
        await page.goto(url + "/suppliers/Glue%20Works")
        await page.click("#partner-actions a:has-text('Edit')")
        await page.wait_for_selector("#tool-form")
        await page.fill("#f-currency", "CHF")
        shown, _ = await ah.preview_and_confirm(page)
        assert "CHF" in shown, shown
        violations.extend(await ah.axe(page, "modify_supplier"))

        await page.goto(url + "/company")
        await page.click("#edit-letterhead")
        await page.wait_for_selector("#tool-form")
        await page.fill("#f-name", "Brightwood Joinery Ltd")
        await page.set_input_files("input[type=file][data-base64=logo]", str(logo))
        await page.wait_for_function(
            "() => document.querySelector('input[type=hidden][name=logo]').value.length > 0")
        await ah.preview_and_confirm(page)
        await page.goto(url + "/company")
        assert await page.locator("#letterhead img.letterhead-logo").count() == 1

        await page.set_viewport_size({"width": 390, "height": 844})
        for path in ("/suppliers", "/customers", "/suppliers/Pacific%20Adhesives%20Incorporated",
                     "/customers/Caf%C3%A9%20Linde", "/items/GLUE", "/company"):
            await ah.fits_a_phone(page, url, path, wide, violations)
            await ah.shot(page, "phone" + path.replace("/", "-").replace("%", ""))

    assert _browse(url, steps, reg) == []
    assert (wide, violations) == ([], [])
    assert reg.invoke("get_supplier", {"name": "Glue Works"}, ADMIN)["currency"] == "CHF"
    got = reg.invoke("get_company_profile", {}, ADMIN)
    assert (got["name"], got["logo_type"]) == ("Brightwood Joinery Ltd", "image/png")
