"""The shop floor's edit forms start from the record, in headless Chromium: a work centre
(`/tools/modify_work_centre?code=...`, its shifts a line table whose days are a list in a
cell) and a routing (`/tools/update_routing?sku=...`). Each opens filled; saving sends only
what the person changed, read back through the registry: nothing else moved."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply
from tests.surfaces.browser import admin_harness as ah
from tests.surfaces.browser.test_admin_records import _browse, served

__all__ = ["served"]
pytestmark = pytest.mark.browser
CALENDAR = [{"days": ["mon", "tue", "wed", "thu", "fri"], "start": "07:00", "end": "15:30"},
            {"days": ["sat"], "start": "08:00", "end": "12:00"}]


def centres(reg: Registry) -> None:
    apply(reg, "create_work_centre", code="SAW", name="Saw", hourly_cost="31.5", capacity=2,
          efficiency_percent="90", calendar=CALENDAR, closed_dates=["2026-12-24"],
          time_zone="Europe/Berlin")
    apply(reg, "create_work_centre", code="PACK", name="Packing bench")


def test_renaming_a_work_centre_keeps_its_shifts_and_then_one_shift_changes(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    centres(reg)
    before = reg.invoke("get_work_centre", {"code": "SAW"}, ADMIN)

    async def steps(page: Page) -> None:
        await page.goto(url + "/work-centres/SAW")
        await page.click("main a:has-text('Edit work centre')")
        assert "code=SAW" in page.url
        assert await page.input_value("#f-name") == "Saw"
        assert await page.input_value("#f-hourly_cost") == "31.5"
        assert await page.input_value("#f-capacity") == "2"
        assert await page.input_value("#f-efficiency_percent") == "90"
        assert await page.input_value("#f-time_zone") == "Europe/Berlin"
        assert await page.input_value("#f-closed_dates") == "2026-12-24"
        assert await page.input_value("[name='calendar.0.days']") == "mon, tue, wed, thu, fri"
        assert await page.input_value("[name='calendar.0.end']") == "15:30"
        assert await page.input_value("[name='calendar.1.days']") == "sat"
        await page.fill("#f-name", "Band saw")
        _, done = await ah.preview_and_confirm(page)
        assert done.startswith("Applied") and "name" in done
        assert "calendar" not in done and "closed" not in done  # untouched: not sent

        await page.goto(url + "/tools/modify_work_centre?code=SAW")
        assert await page.input_value("#f-name") == "Band saw"
        await page.fill("[name='calendar.1.end']", "13:00")
        _, done = await ah.preview_and_confirm(page)
        assert done.startswith("Applied") and "calendar" in done and "name" not in done

    assert _browse(url, steps, reg) == []
    after = reg.invoke("get_work_centre", {"code": "SAW"}, ADMIN)
    assert after["name"] == "Band saw"
    assert after["calendar"] == [CALENDAR[0], {**CALENDAR[1], "end": "13:00"}]
    assert {k: v for k, v in after.items() if k not in ("name", "calendar")} == \
        {k: v for k, v in before.items() if k not in ("name", "calendar")}
    assert reg.invoke("get_work_centre", {"code": "PACK"}, ADMIN)["name"] == "Packing bench"


def test_a_routing_edit_changes_one_operation_and_keeps_the_other(
        served: tuple[str, Registry]) -> None:
    url, reg = served
    centres(reg)
    apply(reg, "update_routing", sku="BOX", operations=[
        {"sequence": 10, "name": "Cut", "work_centre": "SAW", "setup_minutes": "12.5",
         "run_minutes": "0.75"},
        {"sequence": 20, "name": "Pack", "work_centre": "PACK", "run_minutes": "2"}])
    before = reg.invoke("get_routing", {"sku": "BOX"}, ADMIN)["operations"]

    async def steps(page: Page) -> None:
        await page.goto(url + "/items/BOX")
        await page.click("#main a:has-text('Edit routing')")
        assert "sku=BOX" in page.url
        assert await page.input_value("[name='operations.0.name']") == "Cut"
        assert await page.input_value("[name='operations.0.work_centre']") == "SAW"
        assert await page.input_value("[name='operations.0.setup_minutes']") == "12.5"
        assert await page.input_value("[name='operations.0.run_minutes']") == "0.75"
        assert await page.input_value("[name='operations.1.sequence']") == "20"
        assert await page.input_value("[name='operations.1.work_centre']") == "PACK"
        await page.fill("[name='operations.1.run_minutes']", "2.5")
        _, done = await ah.preview_and_confirm(page)
        assert done.startswith("Applied")

    assert _browse(url, steps, reg) == []
    after = reg.invoke("get_routing", {"sku": "BOX"}, ADMIN)["operations"]
    assert after[0] == before[0]
    assert after[1] == {**before[1], "run_minutes": "2.5"}


def test_an_untouched_routing_form_changes_nothing(served: tuple[str, Registry]) -> None:
    """Saved as it opened, the routing is sent as it was (the tool's one field): the
    same operations, none dropped or defaulted."""
    url, reg = served
    centres(reg)
    apply(reg, "update_routing", sku="BOX", operations=[
        {"sequence": 10, "name": "Cut", "work_centre": "SAW", "setup_minutes": "12.5",
         "run_minutes": "0.75"}])
    before = reg.invoke("get_routing", {"sku": "BOX"}, ADMIN)

    async def steps(page: Page) -> None:
        await page.goto(url + "/tools/update_routing?sku=BOX")
        assert await page.input_value("[name='operations.0.setup_minutes']") == "12.5"
        _, done = await ah.preview_and_confirm(page)
        assert done.startswith("Applied")

    assert _browse(url, steps, reg) == []
    assert reg.invoke("get_routing", {"sku": "BOX"}, ADMIN) == before
