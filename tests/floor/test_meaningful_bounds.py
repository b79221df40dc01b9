"""Bounds that mean something (issue 30, item 6), on both databases: units logged on an
operation beyond ten times its order, attrition of 100% or more, price breaks whose price
rises with quantity, and unit names typed in fullwidth letters or with a direction
control."""

from __future__ import annotations

from decimal import Decimal as D

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import refused
from tests.floor.test_shop_floor import _mo, _world
from tests.given import Given
from tests.helpers import ADMIN, apply


def test_units_logged_on_an_operation_are_bounded_by_the_order(registry: Registry) -> None:
    _world(registry)
    mo = _mo(registry, quantity=3, start="2027-03-01T08:00:00Z")
    err = refused(registry, "record_operation_time", {
        "number": mo["number"], "sequence": 10, "minutes": 5, "quantity": "1000000"})
    assert (err.code, err.field) == ("validation_error", "quantity")
    assert "at most 10 times" in err.message
    # a little over the order is said, not refused
    preview = registry.invoke("record_operation_time", {
        "number": mo["number"], "sequence": 10, "minutes": 5, "quantity": "4"}, ADMIN)
    assert [(w["code"], w["field"]) for w in preview["warnings"]] == [("over_order",
                                                                       "quantity")]
    logged = apply(registry, "record_operation_time", number=mo["number"], sequence=10,
                   minutes=5, quantity="4")
    assert D(logged["logged_minutes"]) == 5
    # the bound counts what is already logged: 4 + 27 > 30
    err = refused(registry, "record_operation_time", {
        "number": mo["number"], "sequence": 10, "minutes": 5, "quantity": "27"})
    assert err.field == "quantity"
    apply(registry, "record_operation_time", number=mo["number"], sequence=10, minutes=5,
          quantity="26")


def test_attrition_is_below_a_hundred_percent(registry: Registry) -> None:
    _world(registry)
    for bad in ("100", "1000", "99999999"):
        err = refused(registry, "update_recipe", {"sku": "TABLE", "components": [
            {"sku": "BOARD", "quantity": "2", "attrition_percent": bad}]})
        assert (err.code, err.field) == ("validation_error", "components[0].attrition_percent")
    apply(registry, "update_recipe", sku="TABLE", components=[
        {"sku": "BOARD", "quantity": "2", "attrition_percent": "99.5"}])


def _terms(breaks: list[tuple[str, str]]) -> dict[str, object]:
    return {"sku": "RESA", "supplier": "Alpha", "purchase_unit": "box",
            "units_per_purchase_unit": "100",
            "price_breaks": [{"min_quantity": q, "unit_price": p} for q, p in breaks]}


def buyer(given: Given) -> Given:
    """MAIN, and supplier Alpha for the resistor RESA."""
    given.location()
    given.supplier("Alpha")
    given.item("RESA", name="Resistor")
    return given


def test_a_price_break_that_raises_the_price_is_refused_naming_it(registry: Registry,
                                                                  given: Given) -> None:
    buyer(given)
    err = refused(registry, "set_supplier_item",
                  _terms([("1", "4.00"), ("10", "3.50"), ("100", "3.60")]))
    assert (err.code, err.field) == ("validation_error", "price_breaks[2].unit_price")
    assert "from 100" in err.message
    apply(registry, "set_supplier_item", **_terms([("1", "4.00"), ("10", "3.50"),
                                                   ("100", "3.50")]))


def test_unit_names_are_normalised_like_keys(registry: Registry, given: Given) -> None:
    buyer(given)
    wide = "\uff42\uff4f\uff58"  # "box" in fullwidth letters
    done = apply(registry, "set_supplier_item", **{**_terms([("1", "4")]),
                                                    "purchase_unit": wide})
    assert done["purchase_unit"] == "box"
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESA", "unit": "box", "quantity": "2"}])
    assert (po["lines"][0]["unit"], po["lines"][0]["quantity"]) == ("box", "2")
    err = refused(registry, "set_supplier_item", {**_terms([("1", "4")]),
                                                  "purchase_unit": "b\u202eox"})
    assert (err.code, err.field) == ("validation_error", "purchase_unit")
    made = apply(registry, "create_item", sku="WIRE", name="Wire", kind="material",
                 uom="\uff4b\uff47")
    assert (made["uom"], made["precision"]) == ("kg", 3)
    err = refused(registry, "create_item", {"sku": "W2", "name": "W", "uom": "k\u200bg"})
    assert (err.code, err.field) == ("validation_error", "uom")
    got = registry.invoke("get_item", {"sku": "RESA"}, ADMIN)
    assert (got["uom"], got["precision"]) == ("pcs", 0)
