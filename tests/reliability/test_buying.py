"""Buying in the supplier's terms (issue 23), on both databases: supplier items and their
checks, purchase lines in the supplier's unit, currencies, and the worked example's
figures, each computed by hand in the issue."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply, snapshot


def world(reg: Registry) -> None:
    apply(reg, "create_location", code="MAIN", name="Main")
    apply(reg, "create_supplier", name="Alpha")
    apply(reg, "create_supplier", name="Beta")
    apply(reg, "create_supplier", name="Wires Inc", currency="USD")
    apply(reg, "create_item", sku="RESA", name="Resistor A", kind="material")
    apply(reg, "create_item", sku="WIRE", name="Wire", kind="material")


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


@pytest.mark.parametrize(("change", "field"), [
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
])
def test_bad_supplier_terms_are_coded_errors_naming_the_field(
        registry: Registry, change: dict[str, Any], field: str) -> None:
    world(registry)
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
