"""The admin in people's words (issue 29), on both databases: a dollar order's log entry
reads in dollars, a manufacturing order's planned cost in money, the valuation sheet
reads back by csv.DictReader to the tool's exact figures, and a role is offered only what
it can use (no Users for an operator, no Revert on an entry that cannot be reverted)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from decimal import Decimal as D
from html import unescape

import pytest
from starlette.testclient import TestClient

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.http import create_app
from tests.given import Given
from tests.helpers import ADMIN, apply

pytestmark = pytest.mark.quick


@pytest.fixture
def app(registry: Registry, given: Given, db_url: str) -> Iterator[TestClient]:
    given.company()
    made = create_app(registry, Settings(database_url=db_url, currency="EUR"))
    with TestClient(made, headers={"Accept-Language": "en-GB"}) as client:
        client.app_state = made.state  # type: ignore[attr-defined]
        yield client


def _as(client: TestClient, name: str, role: str) -> TestClient:
    client.cookies.set("shopfloor_session",
                       client.app_state.auth.mint(name, [role], 600))  # type: ignore[attr-defined]
    return client


def test_a_dollar_orders_log_entry_reads_in_dollars(app: TestClient,
                                                     registry: Registry, given: Given) -> None:
    """It read "TOTAL EUR1,020.00 · CURRENCY USD"."""
    apply(registry, "create_supplier", name="Far Away Co", currency="USD")
    made = given.po({"M1": ("1200", "0.85")}, supplier="Far Away Co")
    assert made["summary"].endswith("total US$1,020.00"), made["summary"]
    page = unescape(_as(app, "pat", "admin").get(f"/log/{made['operation_id']}").text)
    result = page.split("<h2>Result</h2>", 1)[1]
    assert 'data-value="1020">US$1,020.00<' in result, result
    assert "€" not in result


def test_a_manufacturing_orders_planned_cost_reads_as_money(app: TestClient,
        registry: Registry, given: Given) -> None:
    """It read "332.027971": the page's planned cost has the currency's two decimals."""
    given.stock({"M1": ("3", "1.000001")}, reason="count")
    given.recipe("P1", {"M1": "1"})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="3",
               location="MAIN")
    page = unescape(_as(app, "pat", "admin").get(f"/manufacturing-orders/{mo['number']}").text)
    planned = page.split("<h2>Planned cost</h2>", 1)[1].split("</dl>", 1)[0]
    assert ">€3.00<" in planned and "3.000003" not in re.sub(r'data-value="[^"]*"', "",
                                                              planned), planned


def test_the_valuation_sheet_starts_with_its_header_and_reads_back_exactly(
        app: TestClient, registry: Registry, given: Given) -> None:
    given.stock({"M1": ("3", "5.302129"), "M2": ("2", "2.000001")}, reason="count")
    sheet = _as(app, "vera", "viewer").get("/valuation.csv").text
    rows = list(csv.DictReader(io.StringIO(sheet)))
    tool = registry.invoke("get_stock_valuation", {}, ADMIN)
    by_sku = {r["sku"]: r for r in rows if r["sku"] != "total"}
    assert set(by_sku) == {"M1", "M2"}
    for row in tool["rows"]:
        got = by_sku[row["sku"]]
        assert D(got["quantity"]) == D(row["quantity"]) and got["value"] == row["value"]
        assert got["currency"] == "EUR" and got["location"] == row["location"]
    assert by_sku["M1"]["value"] == "15.906387"  # exact, never rounded to cents
    total = next(r for r in rows if r["sku"] == "total")
    assert total["value"] == tool["total"]["value"] and total["currency"] == "EUR"


def test_an_operator_is_not_offered_users(app: TestClient) -> None:
    home = _as(app, "olga", "operator").get("/").text
    assert 'href="/users"' not in home
    assert 'href="/users"' in _as(app, "pat", "admin").get("/").text


def test_revert_is_offered_only_where_the_entry_can_be_reverted(app: TestClient,
        registry: Registry, given: Given) -> None:
    moved = given.stock({"M1": ("2", "1")}, reason="count")
    undone = apply(registry, "revert_operation", operation_id=moved["operation_id"])
    assert undone["summary"].startswith("Revert: Adjust stock ADJ-"), undone["summary"]
    assert moved["operation_id"] not in undone["summary"]
    admin = _as(app, "pat", "admin")
    log = unescape(admin.get("/log").text)
    rows = {m.group(1): m.group(0) for m in re.finditer(
        r'<a href="/log/([^"]+)">Details</a>.*?</td>', log)}
    revert_row = rows[undone["operation_id"]]
    assert "/tools/revert_operation" not in revert_row
    assert 'aria-disabled="true"' in revert_row and 'title="Cannot be reverted: ' in revert_row
    assert "/tools/revert_operation" in rows[moved["operation_id"]]
    entry = admin.get(f"/log/{undone['operation_id']}").text
    assert "Revert this operation" not in entry


def test_a_nested_record_in_a_table_reads_in_words() -> None:
    """An MRP message read "Kind: safety_stock, Date: 2026-11-29"."""
    from shopfloor.surfaces.admin.display import Shower
    from shopfloor.ui.formats import Formats

    html = unescape(str(Shower(Formats("en_GB"), {}).table(
        [{"sku": "M1", "why": {"kind": "safety_stock", "date": "2026-11-29"}}])))
    cell = re.sub(r"<[^>]+>", "", html.split('data-label="Why"', 1)[1].split("</td>", 1)[0])
    assert cell == ">Kind: Safety stock, Date: 29 Nov 2026", cell


def test_a_manufacturing_orders_times_read_as_ranges(app: TestClient,
                                                    registry: Registry, given: Given) -> None:
    """Its planned start and finish read "Mon 1 Mar, 08:00-08:40", not two timestamps."""
    apply(registry, "create_work_centre", code="CUT", name="Cutting", hourly_cost="30.00")
    given.recipe("P1", {"M1": "1"})
    apply(registry, "update_routing", sku="P1", operations=[
        {"sequence": 10, "name": "Cut", "work_centre": "CUT", "setup_minutes": 10,
         "run_minutes": 10}])
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="3",
               location="MAIN", start="2027-03-01T08:00:00Z")
    page = unescape(_as(app, "pat", "admin").get(f"/manufacturing-orders/{mo['number']}").text)
    text = re.sub(r"<[^>]+>", " ", page)
    assert text.count("Mon 1 Mar, 08:00\u201308:40") == 2, text  # the order, its operation
    assert "2027-03-01T08" not in text


def test_an_orders_history_names_operations_without_their_ids(app: TestClient,
        registry: Registry, given: Given) -> None:
    made = given.po({"M1": ("2", "1")})
    page = _as(app, "pat", "admin").get(f"/purchase-orders/{made['number']}").text
    history = page.split("<h2>History</h2>", 1)[1]
    link = f'<a href="/log/{made["operation_id"]}" title="{made["operation_id"]}">Details</a>'
    assert link in history
    assert re.sub(r"<[^>]+>", "", history).count(made["operation_id"]) == 0
