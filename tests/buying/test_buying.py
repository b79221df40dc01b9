"""Buying in the supplier's terms (issue 23), on both databases: supplier items and their
checks, purchase lines in the supplier's unit, currencies, and the worked example's
figures, each computed by hand in the issue."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.paper import Printer
from shopfloor.ui.paper import path_of
from tests.base.test_paper import text_of
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot


def world(reg: Registry) -> None:
    given = Given(reg)
    given.location()
    for name in ("Alpha", "Beta"):
        given.supplier(name)
    given.supplier("Wires Inc", currency="USD")
    given.item("RESA", name="Resistor A")
    given.item("WIRE", name="Wire")


def alpha_and_beta(reg: Registry, *, preferred: str | None = None) -> None:
    apply(reg, "set_supplier_item", sku="RESA", supplier="Alpha", purchase_unit="box",
          units_per_purchase_unit="100", lead_time_days=10, preferred=preferred == "Alpha",
          price_breaks=[{"min_quantity": "1", "unit_price": "4.00"},
                        {"min_quantity": "10", "unit_price": "3.50"}])
    apply(reg, "set_supplier_item", sku="RESA", supplier="Beta", purchase_unit="bag",
          units_per_purchase_unit="25", lead_time_days=3, preferred=preferred == "Beta",
          price_breaks=[{"min_quantity": "1", "unit_price": "1.25"}])


def refused(reg: Registry, tool: str, args: dict[str, Any]) -> ShopfloorError:
    before = snapshot(reg)
    with pytest.raises(ShopfloorError) as info:
        apply(reg, tool, **args)
    assert snapshot(reg) == before
    return info.value


def test_an_item_has_as_many_suppliers_as_set_and_setting_again_replaces_one(
        registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    rows = registry.invoke("list_supplier_items", {"sku": "RESA"}, ADMIN)["supplier_items"]
    assert [(r["supplier"], r["purchase_unit"], r["units_per_purchase_unit"]) for r in rows] \
        == [("Alpha", "box", "100"), ("Beta", "bag", "25")]
    assert rows[0]["price_breaks"] == [{"min_quantity": "1", "unit_price": "4"},
                                       {"min_quantity": "10", "unit_price": "3.5"}]
    apply(registry, "set_supplier_item", sku="RESA", supplier="Beta", purchase_unit="reel",
          units_per_purchase_unit="500", price_breaks=[{"min_quantity": "0",
                                                        "unit_price": "20"}], preferred=True)
    rows = registry.invoke("list_supplier_items", {"sku": "RESA"}, ADMIN)["supplier_items"]
    assert [(r["supplier"], r["purchase_unit"], r["preferred"]) for r in rows] \
        == [("Alpha", "box", False), ("Beta", "reel", True)]
    assert registry.invoke("list_supplier_items", {"supplier": "Alpha"},
                           ADMIN)["supplier_items"][0]["sku"] == "RESA"
    apply(registry, "remove_supplier_item", sku="RESA", supplier="Beta")
    rows = registry.invoke("list_supplier_items", {"sku": "RESA"}, ADMIN)["supplier_items"]
    assert [r["supplier"] for r in rows] == ["Alpha"]
    err = refused(registry, "remove_supplier_item", {"sku": "RESA", "supplier": "Beta"})
    assert (err.code, err.field) == ("not_found", "supplier")


GOOD = {"sku": "RESA", "supplier": "Alpha", "purchase_unit": "box",
        "units_per_purchase_unit": "100",
        "price_breaks": [{"min_quantity": "1", "unit_price": "4"}]}


BAD_TERMS: list[tuple[dict[str, Any], str]] = [
    ({"units_per_purchase_unit": "0"}, "units_per_purchase_unit"),
    ({"units_per_purchase_unit": "-5"}, "units_per_purchase_unit"),
    ({"price_breaks": [{"min_quantity": "1", "unit_price": "-1"}]},
     "price_breaks[0].unit_price"),
    ({"price_breaks": [{"min_quantity": "10", "unit_price": "3"},
                       {"min_quantity": "1", "unit_price": "4"}]},
     "price_breaks[1].min_quantity"),
    ({"price_breaks": [{"min_quantity": "5", "unit_price": "3"},
                       {"min_quantity": "5", "unit_price": "2"}]},
     "price_breaks[1].min_quantity"),
    ({"price_breaks": []}, "price_breaks"),
    ({"minimum_order": "-1"}, "minimum_order"),
    ({"order_multiple": "0"}, "order_multiple"),
    ({"lead_time_days": -1}, "lead_time_days"),
    ({"supplier": "Nobody"}, "supplier"),
    ({"sku": "NOPE"}, "sku"),
]


def test_bad_supplier_terms_are_coded_errors_naming_the_field(registry: Registry) -> None:
    world(registry)
    for change, field in BAD_TERMS:
        err = refused(registry, "set_supplier_item", {**GOOD, **change})
        assert err.field == field, err.to_payload()
        assert err.code in ("validation_error", "not_found")


def test_partners_carry_an_iso_currency(registry: Registry) -> None:
    world(registry)
    sups = registry.invoke("list_suppliers", {}, ADMIN)["suppliers"]
    assert {s["name"]: s["currency"] for s in sups} == {"Alpha": None, "Beta": None,
                                                        "Wires Inc": "USD"}
    apply(registry, "create_customer", name="Yen Co", currency="JPY")
    for bad in ("usd", "ABC"):
        err = refused(registry, "create_customer", {"name": "Bad", "currency": bad})
        assert (err.code, err.field) == ("validation_error", "currency")
    err = refused(registry, "set_exchange_rate", {"currency": "XYZ", "rate": "1"})
    assert (err.code, err.field) == ("validation_error", "currency")
    err = refused(registry, "set_exchange_rate", {"currency": "EUR", "rate": "1"})
    assert (err.code, err.field) == ("validation_error", "currency")
    err = refused(registry, "set_exchange_rate", {"currency": "USD", "rate": "0"})
    assert err.field == "rate"


def stock_of(reg: Registry, sku: str) -> tuple[D, D]:
    row = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"][0]
    return D(row["on_hand"]), D(row["average_cost"])


def test_a_purchase_line_in_boxes_is_received_in_pieces(registry: Registry) -> None:
    """Worked example: 11 boxes of 100 at 3.50 a box -> 1,100 pcs at 0.035."""
    world(registry)
    alpha_and_beta(registry)
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESA", "unit": "box", "quantity": "11"}])
    line = po["lines"][0]
    assert (line["unit"], line["quantity"], line["unit_price"]) == ("box", "11", "3.5")
    assert po["total"] == "38.5"
    # part of it, in boxes, then the rest
    got = apply(registry, "receive_purchase_order", number=po["number"],
                lines=[{"sku": "RESA", "quantity": "4"}])
    assert got["lines"][0]["done_quantity"] == "4"
    assert stock_of(registry, "RESA") == (D(400), D("0.035"))
    err = refused(registry, "receive_purchase_order",
                  {"number": po["number"], "lines": [{"sku": "RESA", "quantity": "8"}]})
    assert err.field == "lines[0].quantity"
    got = apply(registry, "receive_purchase_order", number=po["number"])
    assert (got["status"], got["lines"][0]["done_quantity"]) == ("received", "11")
    assert stock_of(registry, "RESA") == (D(1100), D("0.035"))
    moves = registry.invoke("list_stock_movements", {"sku": "RESA"}, ADMIN)["movements"]
    assert sorted((m["quantity"], m["unit_cost"]) for m in moves) == [
        ("400", "0.035"), ("700", "0.035")]
    apply(registry, "revert_operation", operation_id=got["operation_id"])
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    assert (got["status"], got["lines"][0]["done_quantity"]) == ("partially_received", "4")
    assert stock_of(registry, "RESA") == (D(400), D("0.035"))


def test_a_unit_the_supplier_does_not_sell_in_is_refused_naming_the_line(
        registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    for supplier, unit in (("Alpha", "bag"), ("Wires Inc", "box")):
        err = refused(registry, "create_purchase_order", {
            "supplier": supplier, "location": "MAIN",
            "lines": [{"sku": "RESA", "unit": unit, "quantity": "1"}]})
        assert (err.code, err.field) == ("validation_error", "lines[0].unit")


def test_a_receipt_in_dollars_books_the_company_currency_at_the_days_rate(
        registry: Registry, given: Given) -> None:
    """Worked example: USD at 0.92: 100 WIRE at 2.00 USD -> 100 @ 1.84."""
    world(registry)
    po = given.po({"WIRE": ("100", "2.00")}, supplier="Wires Inc")
    assert (po["currency"], po["total"]) == ("USD", "200")
    err = refused(registry, "receive_purchase_order", {"number": po["number"]})
    assert (err.code, err.field) == ("validation_error", "currency")
    apply(registry, "set_exchange_rate", currency="USD", rate="0.5", valid_from="2000-01-01")
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92")  # today: wins
    apply(registry, "set_exchange_rate", currency="USD", rate="9", valid_from="2999-01-01")
    apply(registry, "receive_purchase_order", number=po["number"])
    assert stock_of(registry, "WIRE") == (D(100), D("1.84"))
    # the document keeps its dollars
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    assert (got["currency"], got["lines"][0]["unit_price"]) == ("USD", "2")


def test_a_rate_set_again_for_its_day_replaces_it(registry: Registry, given: Given) -> None:
    world(registry)
    apply(registry, "set_exchange_rate", currency="USD", rate="0.5")
    out = apply(registry, "set_exchange_rate", currency="USD", rate="0.92")
    assert (out["rate"], out["company_currency"]) == ("0.92", "EUR")
    po = given.po({"WIRE": ("10", "2")}, supplier="Wires Inc")
    apply(registry, "receive_purchase_order", number=po["number"])
    assert stock_of(registry, "WIRE") == (D(10), D("1.84"))


def test_modifying_an_order_in_boxes_keeps_its_terms(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESA", "unit": "box", "quantity": "9"}])
    assert po["lines"][0]["unit_price"] == "4"  # below the 10-box break
    got = apply(registry, "modify_purchase_order", number=po["number"],
                lines=[{"sku": "RESA", "unit": "box", "quantity": "12"}])
    assert (got["lines"][0]["quantity"], got["lines"][0]["unit_price"], got["total"]) == \
        ("12", "3.5", "42")
    # another supplier's terms cannot be kept by the lines as they are
    err = refused(registry, "modify_purchase_order", {"number": po["number"],
                                                      "supplier": "Beta"})
    assert (err.code, err.field) == ("conflict", "supplier")
    got = apply(registry, "modify_purchase_order", number=po["number"], supplier="Beta",
                lines=[{"sku": "RESA", "unit": "bag", "quantity": "48"}])
    assert (got["partner"], got["lines"][0]["unit"], got["lines"][0]["quantity"]) == \
        ("Beta", "bag", "48")
    apply(registry, "receive_purchase_order", number=po["number"])
    assert stock_of(registry, "RESA") == (D(1200), D("0.05"))


def test_modifying_a_received_order_keeps_what_went_back(registry: Registry, given: Given) -> None:
    """A line's returned quantity survives its order's lines being given again (it was
    reset to nothing before, so a return could be counted twice)."""
    world(registry)
    po = given.po({"WIRE": ("10", "1")}, supplier="Alpha")
    apply(registry, "receive_purchase_order", number=po["number"],
          lines=[{"sku": "WIRE", "quantity": "6"}])
    apply(registry, "create_supplier_return", number=po["number"], reason="bent",
          lines=[{"sku": "WIRE", "quantity": "2"}])
    got = apply(registry, "modify_purchase_order", number=po["number"],
                lines=[{"sku": "WIRE", "quantity": "8", "unit_price": "1"}])
    assert (got["lines"][0]["done_quantity"], got["lines"][0]["returned_quantity"]) == \
        ("6", "2")


def test_a_dollar_companys_books_are_in_dollars_from_its_first_open(db_url: str) -> None:
    """SHOPFLOOR_CURRENCY at a database's first open is the currency of its books: a
    dollar supplier's receipt needs no rate there, a euro supplier's does; a later
    setting does not change books already kept."""
    reg = open_registry(Settings(database_url=db_url, currency="USD"))
    try:
        world(reg)
        apply(reg, "create_supplier", name="Euro GmbH", currency="EUR")
        usd = apply(reg, "create_purchase_order", supplier="Wires Inc", location="MAIN",
                    lines=[{"sku": "WIRE", "quantity": "10", "unit_price": "2.00"}])
        apply(reg, "receive_purchase_order", number=usd["number"])  # no rate asked
        assert stock_of(reg, "WIRE") == (D(10), D(2))
        eur = apply(reg, "create_purchase_order", supplier="Euro GmbH", location="MAIN",
                    lines=[{"sku": "RESA", "quantity": "10", "unit_price": "1.00"}])
        err = refused(reg, "receive_purchase_order", {"number": eur["number"]})
        assert (err.code, err.field) == ("validation_error", "currency")
        out = apply(reg, "set_exchange_rate", currency="EUR", rate="1.10")
        assert out["company_currency"] == "USD"
        apply(reg, "receive_purchase_order", number=eur["number"])
        assert stock_of(reg, "RESA") == (D(10), D("1.1"))
    finally:
        reg.store.dispose()
    again = open_registry(Settings(database_url=db_url, currency="EUR"))  # set differently
    try:
        out = apply(again, "set_exchange_rate", currency="GBP", rate="1.25")
        assert out["company_currency"] == "USD"
        # and paper shows the books' money: a supplier without a currency bills in dollars
        po = apply(again, "create_purchase_order", supplier="Alpha", location="MAIN",
                   lines=[{"sku": "RESA", "quantity": "3", "unit_price": "2"}])
        printer = Printer(again, Settings(database_url=db_url, currency="EUR"))
        text = text_of(printer.pdf(ADMIN, path_of("purchase_order", po["number"])))
        assert "Total USD" in text and "$6.00" in text and "€" not in text, text
    finally:
        again.store.dispose()
