"""Quantities finer than their unit are refused wherever they are given (issue 30), on
both databases: SAND is counted in kg to 3 places, so 0.0005 kg is refused by every tool
that takes a quantity of it, naming the field, with the code a purchase line's refusal
has; 0.001 kg, its smallest step, is taken. An item that sets its own precision is held
to it."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import refused
from tests.given import Given
from tests.helpers import ADMIN, apply, on_hand


def _world(reg: Registry) -> dict[str, str]:
    given = Given(reg)
    given.location("MAIN")
    given.location("SHOP")
    given.customer("Bob")
    given.item("SAND", name="Sand", uom="kg")
    given.item("GRIT", name="Grit", uom="kg", batch_tracked=True)
    given.item("BAG", "product", name="Bag of sand", uom="kg")
    given.recipe("BAG", {"SAND": "1"})
    given.work_centre("WC", name="Bench")
    given.routing("BAG", [{"sequence": 10, "name": "Fill", "work_centre": "WC",
                           "run_minutes": "1"}])
    given.stock({"SAND": ("100", "2"), "GRIT": {
        "quantity": "10", "unit_cost": "1",
        "lots": [{"lot": "G1", "quantity": "5"}, {"lot": "G2", "quantity": "5"}]}})
    mo = given.mo("BAG", "10")
    done = given.mo("BAG", "2", complete=True)
    so = given.so({"SAND": "5"}, fulfil=True)
    adj = given.stock({"SAND": "1"}, reason="found")
    return {"mo": mo["number"], "done": done["number"], "so": so["number"],
            "adj": adj["number"]}


# tool -> (arguments with {q} where the quantity goes, the field that names it)
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("create_manufacturing_order", {"sku": "BAG", "quantity": "{q}", "location": "MAIN"},
     "quantity"),
    ("complete_manufacturing_order", {"number": "{mo}", "quantity": "{q}"}, "quantity"),
    ("complete_manufacturing_order", {"number": "{mo}", "quantity": "1", "scrap": "{q}"},
     "scrap"),
    ("complete_manufacturing_order", {"number": "{mo}", "quantity": "1",
                                      "consumed": [{"sku": "SAND", "quantity": "{q}"}]},
     "consumed[0].quantity"),
    ("record_operation_time", {"number": "{mo}", "sequence": 10, "minutes": "1",
                               "quantity": "{q}"}, "quantity"),
    ("correct_manufacturing_order", {"number": "{done}", "completed_quantity": "{q}"},
     "completed_quantity"),
    ("correct_manufacturing_order", {"number": "{done}",
                                     "consumed": [{"sku": "SAND", "quantity": "{q}"}]},
     "consumed[0].quantity"),
    ("create_stock_adjustment", {"location": "MAIN", "reason": "r", "lines": [
        {"sku": "SAND", "quantity_delta": "{q}"}]}, "lines[0].quantity_delta"),
    ("create_stock_adjustment", {"location": "MAIN", "reason": "count", "lines": [
        {"sku": "SAND", "counted_quantity": "{q}"}]}, "lines[0].counted_quantity"),
    ("create_stock_adjustment", {"location": "MAIN", "reason": "r", "lines": [
        {"sku": "GRIT", "quantity_delta": "{q}", "unit_cost": "1",
         "lots": [{"lot": "G2", "quantity": "{q}"}]}]}, "lines[0].quantity_delta"),
    ("update_stock_adjustment", {"number": "{adj}", "lines": [
        {"sku": "SAND", "quantity_delta": "{q}"}]}, "lines[0].quantity_delta"),
    ("create_stock_transfer", {"from_location": "MAIN", "to_location": "SHOP", "lines": [
        {"sku": "SAND", "quantity": "{q}"}]}, "lines[0].quantity"),
    ("create_stock_transfer", {"from_location": "MAIN", "to_location": "SHOP", "lines": [
        {"sku": "GRIT", "quantity": "2", "lots": [{"lot": "G1", "quantity": "{q}"},
                                                  {"lot": "G2", "quantity": "{r}"}]}]},
     "lines[0].lots[0].quantity"),
    ("correct_shipment", {"number": "{so}", "sku": "SAND", "quantity": "{q}"}, "quantity"),
    ("update_recipe", {"sku": "BAG", "components": [
        {"sku": "SAND", "quantity": "1", "setup_quantity": "{q}"}]},
     "components[0].setup_quantity"),
]


def _fill(value: Any, refs: dict[str, str]) -> Any:
    if isinstance(value, str) and value.startswith("{"):
        return refs[value[1:-1]]
    if isinstance(value, list):
        return [_fill(v, refs) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, refs) for k, v in value.items()}
    return value


@pytest.mark.parametrize(("tool", "args", "field"), CASES,
                         ids=[f"{t}-{f}" for t, _, f in CASES])
def test_a_quantity_finer_than_its_unit_is_refused_naming_the_field(
        registry: Registry, tool: str, args: dict[str, Any], field: str) -> None:
    refs = _world(registry)
    err = refused(registry, tool, _fill(args, {**refs, "q": "1.0005", "r": "0.9995"}))
    assert (err.code, err.field) == ("validation_error", field), err.to_payload()
    assert "to 3 decimal places" in err.message and err.details == {"precision": 3}
    # its smallest step is a quantity: the preview takes it
    preview = registry.invoke(tool, _fill(args, {**refs, "q": "1.001", "r": "0.999"}), ADMIN)
    assert preview["preview"] is True


def test_an_items_own_precision_holds_on_every_tool(registry: Registry) -> None:
    _world(registry)
    apply(registry, "modify_item", sku="SAND", precision=1)
    err = refused(registry, "create_stock_transfer", {
        "from_location": "MAIN", "to_location": "SHOP",
        "lines": [{"sku": "SAND", "quantity": "0.25"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")
    assert "to 1 decimal place" in err.message
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "SAND", "quantity": "0.5"}])
    assert on_hand(registry, "SAND", "SHOP") == D("0.5")
