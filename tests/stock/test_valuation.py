"""get_stock_valuation against figures worked out by hand, on both databases.

A small company's January and February: an opening count, a receipt, a transfer, a
shipment; then an adjustment, a price correction of a receipt part of which had shipped
(the rest revalued, the shipped share a variance) and a completion. Each operation's
ledger rows (and variances) are dated to its day, so the values at each day's end and
each month's flows can be checked: per location, in total, and opening + flows = value
to the last digit, whichever side of the ledger the figures are summed from.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal as D
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from shopfloor.kernel.errors import ValidationFailed
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import StockMovement, Variance
from shopfloor.tools import valuation as valuation_tools
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import serving_registry

JAN_5, JAN_10, FEB_3 = (datetime(2026, 1, 5, 9, tzinfo=UTC), datetime(2026, 1, 10, 23, 59, 59,
                                                                      tzinfo=UTC),
                        datetime(2026, 2, 3, 15, tzinfo=UTC))
PASSWORD = "valuation password"
FLOWS = ("received", "shipped", "consumed", "produced", "transferred", "adjusted", "revalued")


def on(registry: Registry, when: datetime, result: dict[str, Any]) -> None:
    """Date an applied operation's ledger rows and variances to `when`."""
    with registry.store.writing() as s:
        for table in (StockMovement, Variance):
            s.execute(update(table).where(table.operation_id == result["operation_id"])
                      .values(created_at=when))
        s.commit()


def valuation(registry: Registry, **args: Any) -> dict[str, Any]:
    return registry.invoke("get_stock_valuation", args, ADMIN)


def figures(result: dict[str, Any]) -> dict[tuple[str, str], tuple[D, D]]:
    return {(r["sku"], r["location"]): (D(r["quantity"]), D(r["value"]))
            for r in result["rows"]}


def period(result: dict[str, Any]) -> dict[tuple[str, str], dict[str, D]]:
    """Each row's period figures, zeros left out."""
    return {(r["sku"], r["location"]): {k: D(v) for k, v in r["period"].items() if D(v)}
            for r in result["rows"]}


def company(registry: Registry) -> None:
    given = Given(registry).company()
    given.recipe("P1", {"M1": "1"})
    on(registry, JAN_5, given.stock({"M1": ("10", "1")}, reason="opening count"))
    po = given.po({"M1": ("10", "3"), "M2": ("10", "2")})["number"]
    on(registry, JAN_5, apply(registry, "receive_purchase_order", number=po))
    # M1 at MAIN: 20 @ 2.00 = 40.00; M2: 10 @ 2.00 = 20.00
    on(registry, JAN_10, apply(registry, "create_stock_transfer", from_location="MAIN",
                               to_location="SHOP", lines=[{"sku": "M1", "quantity": "5"}]))
    so = apply(registry, "create_sales_order", customer="Bob", location="MAIN", lines=[
        {"sku": "M1", "quantity": "4", "unit_price": "9"},
        {"sku": "M2", "quantity": "2", "unit_price": "9"}])["number"]
    on(registry, JAN_10, apply(registry, "fulfill_order", number=so))
    # M1: MAIN 11 @ 2 = 22.00, SHOP 5 @ 2 = 10.00; M2: 8 @ 2 = 16.00
    on(registry, FEB_3, apply(registry, "create_stock_adjustment", location="MAIN",
                              reason="breakage", lines=[{"sku": "M1", "quantity_delta": "-1"}]))
    on(registry, FEB_3, apply(registry, "correct_purchase_receipt", number=po, sku="M2",
                              unit_price="2.5"))
    # M2's 8 still here are re-priced (+4.00); the 2 shipped cost 1.00 more: a variance
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="2",
               location="MAIN")["number"]
    on(registry, FEB_3, apply(registry, "complete_manufacturing_order", number=mo))
    # M1 at MAIN: 10 - 2 = 8 @ 2 = 16.00; P1: 2 @ 2 = 4.00


def test_values_at_each_days_end_and_now(registry: Registry) -> None:
    company(registry)
    jan_5 = {("M1", "MAIN"): (D(20), D(40)), ("M2", "MAIN"): (D(10), D(20))}
    jan_10 = {("M1", "MAIN"): (D(11), D(22)), ("M1", "SHOP"): (D(5), D(10)),
              ("M2", "MAIN"): (D(8), D(16))}
    now = {("M1", "MAIN"): (D(8), D(16)), ("M1", "SHOP"): (D(5), D(10)),
           ("M2", "MAIN"): (D(8), D(20)), ("P1", "MAIN"): (D(2), D(4))}
    for day, want, total in (("2026-01-04", {}, 0), ("2026-01-05", jan_5, 60),
                             ("2026-01-10", jan_10, 48), ("2026-01-31", jan_10, 48),
                             ("2026-02-03", now, 50), ("2030-01-01", now, 50)):
        got = valuation(registry, date=day)
        assert figures(got) == want, day
        assert D(got["total"]["value"]) == total, day
    current = valuation(registry)
    assert figures(current) == now and D(current["total"]["value"]) == 50
    assert all(r["period"] is None for r in current["rows"])
    shop = valuation(registry, location="SHOP", date="2026-01-10")
    assert figures(shop) == {("M1", "SHOP"): (D(5), D(10))} and shop["total"]["value"] == "10"
    made = valuation(registry, kind="product")
    assert figures(made) == {("P1", "MAIN"): (D(2), D(4))}
    assert figures(valuation(registry, sku="M2", date="2026-01-10")) == {
        ("M2", "MAIN"): (D(8), D(16))}


def test_a_months_flows_add_up_to_its_closing_value(registry: Registry) -> None:
    company(registry)
    jan = valuation(registry, start="2026-01-01", date="2026-01-31")
    assert period(jan) == {
        ("M1", "MAIN"): {"adjusted": D(10), "received": D(30), "transferred": D(-10),
                         "shipped": D(-8)},
        ("M1", "SHOP"): {"transferred": D(10)},
        ("M2", "MAIN"): {"received": D(20), "shipped": D(-4)}}
    feb = valuation(registry, start="2026-02-01", date="2026-02-28")
    assert period(feb) == {
        ("M1", "MAIN"): {"opening": D(22), "adjusted": D(-2), "consumed": D(-4)},
        ("M1", "SHOP"): {"opening": D(10)},
        ("M2", "MAIN"): {"opening": D(16), "revalued": D(4), "variances": D(1)},
        ("P1", "MAIN"): {"produced": D(4)}}
    assert {k: D(v) for k, v in feb["total"].items() if D(v)} == {
        "value": D(50), "opening": D(48), "adjusted": D(-2), "consumed": D(-4),
        "revalued": D(4), "produced": D(4), "variances": D(1)}
    both = valuation(registry, start="2026-01-01")  # to today
    for result in (jan, feb, both):
        for row in [*result["rows"], result["total"]]:
            p = row.get("period", row)
            assert D(p["opening"]) + sum(D(p[k]) for k in FLOWS) == D(row["value"])
    assert figures(feb) == figures(valuation(registry))
    assert figures(jan) == figures(valuation(registry, date="2026-01-31"))
    assert both["total"]["opening"] == "0" and both["total"]["value"] == "50"
    assert D(both["total"]["variances"]) == 1


def test_pages_carry_the_totals_of_every_row(registry: Registry,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    company(registry)
    asked = ({}, {"date": "2026-01-10"}, {"start": "2026-02-01"})
    wholes = [valuation(registry, **args) for args in asked]
    assert all(w["next_cursor"] is None and len(w["rows"]) > 2 for w in wholes)
    monkeypatch.setattr(valuation_tools, "PAGE", 1)
    for args, whole in zip(asked, wholes, strict=True):
        seen, cursor = [], None
        while True:
            page = valuation(registry, **args, **({"cursor": cursor} if cursor else {}))
            assert page["total"] == whole["total"] and len(page["rows"]) == 1
            seen += page["rows"]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == whole["rows"]


def test_lots_are_valued_apart(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="LOT", name="Lotted", batch_tracked=True)
    for lot, price in (("A", "1"), ("B", "3")):
        po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
                   lines=[{"sku": "LOT", "quantity": "5", "unit_price": price}])["number"]
        apply(registry, "receive_purchase_order", number=po,
              lines=[{"sku": "LOT", "quantity": "5", "lots": [{"lot": lot}]}])
    for args in ({}, {"date": "2030-01-01"}, {"start": "2020-01-01"}):
        row = valuation(registry, **args)["rows"][0]
        assert (row["sku"], row["quantity"], row["value"]) == ("LOT", "10", "20")
        assert row["lots"] == {"A": "5", "B": "15"}


@pytest.mark.parametrize(("args", "field"), [
    ({"start": "2026-02-01", "date": "2026-01-31"}, "start"),
    ({"cursor": "not-a-cursor"}, "cursor"),
    ({"sku": "NOPE"}, "sku"),
    ({"location": "NOWHERE", "date": "2026-01-01"}, "location"),
])
def test_bad_input_names_its_field(registry: Registry, given: Given, args: dict[str, Any],
                                   field: str) -> None:
    given.company()
    with pytest.raises(ValidationFailed if field in ("start", "cursor") else Exception) as err:
        valuation(registry, **args)
    assert getattr(err.value, "field", None) == field


def test_the_admin_page_and_the_csv_an_accountant_takes_away(registry: Registry, given: Given,
                                                             db_url: str) -> None:
    company(registry)
    apply(registry, "create_item", sku="=HYPERLINK(1)", name="@sum")
    given.stock({"=HYPERLINK(1)": ("1", "1")}, location="SHOP", reason="found")
    feb = {"start": "2026-02-01", "date": "2026-02-28"}
    with serving_registry(registry, db_url, ("vera", PASSWORD, "viewer")) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        signed = c.post("/sign-in", data={"username": "vera", "password": PASSWORD,
                                          "next": "/valuation"})
        assert signed.status_code == 303 and signed.headers["location"] == "/valuation"
        page = c.get("/valuation", params=feb)
        assert page.status_code == 200 and 'id="valuation-table"' in page.text
        body = page.text.split('id="valuation-table"')[1]
        assert 'href="/items/P1"' in body
        total = body.split('id="valuation-total"')[1].split("</tr>")[0]
        for figure in ("48", "-2", "-4", "4", "50", "1"):  # opening ... value, variances
            assert f'class="money" data-value="{figure}"' in total, figure
        assert 'href="/valuation.csv?date=2026-02-28&amp;start=2026-02-01"' in page.text
        assert 'class="money" data-value="51"' in c.get("/valuation").text  # now, with the new item
        bad = c.get("/valuation", params={"start": "2026-03-01", "date": "2026-02-01"})
        assert bad.status_code == 400

        sheet = c.get("/valuation.csv", params=feb)
        assert sheet.status_code == 200 and sheet.headers["content-type"].startswith("text/csv")
        assert "attachment" in sheet.headers["content-disposition"]
        lines = list(csv.reader(io.StringIO(sheet.text)))
        header, rows, footer = lines[0], lines[1:-1], lines[-1]
        assert header == ["sku", "name", "location", "lot", "quantity", "opening", *FLOWS,
                          "value", "variances", "currency"]
        tool = valuation(registry, **feb)
        assert [r[:3] for r in rows] == [[t["sku"], t["name"], t["location"]]
                                         for t in tool["rows"]]
        for line, row in zip(rows, tool["rows"], strict=True):
            figures_of = dict(zip(header, line, strict=True))
            assert D(figures_of["quantity"]) == D(row["quantity"])
            assert D(figures_of["value"]) == D(row["value"])
            assert all(D(figures_of[k]) == D(v) for k, v in row["period"].items())
        assert footer[0] == "total"
        assert footer[-1] == "EUR" and all(line[-1] == "EUR" for line in rows)
        assert {k: D(v) for k, v in zip(header[5:-1], footer[5:-1], strict=True)} == {
            k: D(v) for k, v in tool["total"].items()}

        now = list(csv.reader(io.StringIO(c.get("/valuation.csv").text)))
        assert ["'=HYPERLINK(1)", "'@sum", "SHOP", "", "1", "1", "EUR"] in now
        assert now[-1] == ["total", "", "", "", "", "51", "EUR"]
