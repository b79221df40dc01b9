"""Quantities the rules derive are quantities of their unit too (issue 30), on both
databases: WIDGET takes 0.5 of a SCREW counted in whole pieces, so an order of 3 (1.5
screws) is refused where it is made, naming `quantity` and the screw, unless its recipe
line rounds; an order of 4 completed in parts consumes whole screws each time (1, 0, 1,
0) and 2 in all; by-products, attrition, corrections of a completion and MRP's planned
orders are held to the same rule."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import refused
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand
from tests.production.test_buying_yield import committed


def _widget(reg: Registry, *, per: str = "0.5", **line: Any) -> None:
    given = Given(reg)
    given.location()
    given.item("SCREW", name="Screw")
    given.item("WIDGET", "product", name="Widget")
    given.apply("update_recipe", sku="WIDGET",
                components=[{"sku": "SCREW", "quantity": per, **line}])
    given.stock({"SCREW": ("10", "1")})


def _make(reg: Registry, quantity: str) -> str:
    return str(apply(reg, "create_manufacturing_order", sku="WIDGET", quantity=quantity,
                     location="MAIN")["number"])


def _complete(reg: Registry, number: str, quantity: str) -> None:
    apply(reg, "complete_manufacturing_order", number=number, quantity=quantity)


def test_an_order_that_would_take_part_of_a_piece_is_refused_naming_it(
        registry: Registry) -> None:
    _widget(registry)
    err = refused(registry, "create_manufacturing_order",
                  {"sku": "WIDGET", "quantity": "3", "location": "MAIN"})
    assert (err.code, err.field) == ("validation_error", "quantity"), err.to_payload()
    assert "1.5 pcs of SCREW" in err.message and "rounding multiple" in err.message
    assert err.details == {"sku": "SCREW", "needs": "1.5", "precision": 0}


def test_completed_in_parts_it_consumes_whole_pieces_and_all_it_said(
        registry: Registry) -> None:
    _widget(registry)
    number = _make(registry, "4")
    assert committed(registry, "SCREW") == D(2)
    seen = []
    for _ in range(4):
        _complete(registry, number, "1")
        seen.append((on_hand(registry, "SCREW"), committed(registry, "SCREW")))
    assert seen == [(D(9), D(1)), (D(9), D(1)), (D(8), D(0)), (D(8), D(0))]
    assert on_hand(registry, "WIDGET") == D(4)
    assert ledger_mismatches(registry) == []


def test_a_recipe_line_that_rounds_makes_any_quantity(registry: Registry) -> None:
    _widget(registry, rounding_multiple="1")
    number = _make(registry, "3")
    assert committed(registry, "SCREW") == D(2)
    _complete(registry, number, "3")
    assert (on_hand(registry, "SCREW"), committed(registry, "SCREW")) == (D(8), D(0))
    assert ledger_mismatches(registry) == []


def test_attrition_that_takes_part_of_a_piece_is_refused(registry: Registry, given: Given) -> None:
    _widget(registry, per="1", attrition_percent="10")
    err = refused(registry, "create_manufacturing_order",
                  {"sku": "WIDGET", "quantity": "3", "location": "MAIN"})
    assert (err.field, err.details["needs"]) == ("quantity", "3.3")
    given.stock({"SCREW": "10"}, reason="more")
    number = _make(registry, "10")  # 11 screws
    _complete(registry, number, "5")  # 5.5 of them: 6 taken
    assert (on_hand(registry, "SCREW"), committed(registry, "SCREW")) == (D(14), D(5))
    _complete(registry, number, "5")
    assert (on_hand(registry, "SCREW"), committed(registry, "SCREW")) == (D(9), D(0))
    assert ledger_mismatches(registry) == []


def test_a_by_product_that_would_be_part_of_a_piece_is_refused_and_given_whole(
        registry: Registry, given: Given) -> None:
    _widget(registry, per="1")
    apply(registry, "create_item", sku="CHIP", name="Chip", kind="material")
    given.recipe("WIDGET", {"SCREW": "1"},
                 by_products=[{"sku": "CHIP", "quantity": "0.5", "cost_share_percent": "10"}])
    err = refused(registry, "create_manufacturing_order",
                  {"sku": "WIDGET", "quantity": "3", "location": "MAIN"})
    assert (err.code, err.field) == ("validation_error", "quantity")
    assert "1.5 pcs of CHIP" in err.message
    number = _make(registry, "4")
    chips = []
    for _ in range(4):
        _complete(registry, number, "1")
        chips.append(on_hand(registry, "CHIP"))
    assert chips == [D(0), D(1), D(1), D(2)]
    assert ledger_mismatches(registry) == []


def test_a_completion_corrected_down_gives_back_whole_pieces(registry: Registry) -> None:
    _widget(registry)
    number = _make(registry, "4")
    _complete(registry, number, "4")
    assert on_hand(registry, "SCREW") == D(8)
    apply(registry, "correct_manufacturing_order", number=number, completed_quantity="3")
    assert on_hand(registry, "SCREW") == D(8)  # 3 took ceil(1.5) = 2 as 4 did
    apply(registry, "correct_manufacturing_order", number=number, completed_quantity="2")
    assert on_hand(registry, "SCREW") == D(9)
    assert ledger_mismatches(registry) == []


def test_a_planned_order_that_would_take_part_of_a_piece_is_refused_naming_it(
        registry: Registry, given: Given) -> None:
    from tests.planning.test_mrp import TODAY, base, run_job, sell
    base(registry)
    apply(registry, "create_item", sku="P", name="Product", kind="product")
    apply(registry, "create_item", sku="M", name="Material", default_supplier="Acme",
          purchase_price="1")
    given.recipe("P", {"M": "0.5"})
    sell(registry, "P", "3", 10)
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    ref = job["result"]["manufacturing_orders"][0]["ref"]
    # the plan says so beside the order, before anyone applies it
    review = [m for m in job["result"]["messages"] if m["action"] == "review"]
    assert [(m["document"], m["sku"]) for m in review] == [(ref, "P")], review
    assert "1.5 of M" in review[0]["reason"] and "rounding multiple" in review[0]["reason"]
    err = refused(registry, "apply_mrp_plan", {"job_id": job["job_id"]})
    assert (err.code, err.field) == ("validation_error", "refs"), err.to_payload()
    assert f"planned order {ref}" in err.message and "1.5 pcs of M" in err.message
    # the rest of the plan applies without it
    buy = [ln["ref"] for g in job["result"]["purchase_orders"] for ln in g["lines"]]
    apply(registry, "apply_mrp_plan", job_id=job["job_id"], refs=buy)
    pos = registry.invoke("list_purchase_orders", {}, ADMIN)["orders"]
    assert [(ln["sku"], ln["quantity"]) for po in pos for ln in po["lines"]] == [("M", "2")]


def test_minimum_order_and_multiple_are_held_to_the_purchase_unit(
        registry: Registry) -> None:
    apply(registry, "create_supplier", name="Acme")
    apply(registry, "create_item", sku="BOLT", name="Bolt", kind="material")
    terms = {"sku": "BOLT", "supplier": "Acme", "purchase_unit": "pcs",
             "units_per_purchase_unit": "1", "price_breaks": [
                 {"min_quantity": "1", "unit_price": "1"}]}
    for name in ("minimum_order", "order_multiple"):
        err = refused(registry, "set_supplier_item", {**terms, name: "2.5"})
        assert (err.code, err.field) == ("validation_error", name), err.to_payload()
        assert err.details == {"precision": 0}
    # a box of 10 pieces is the supplier's unit: half a box is a quantity of it
    apply(registry, "set_supplier_item", **{**terms, "purchase_unit": "box",
                                            "units_per_purchase_unit": "10",
                                            "minimum_order": "2.5", "order_multiple": "0.5"})


def test_reorder_point_quantity_and_multiple_are_held_to_the_unit(
        registry: Registry) -> None:
    apply(registry, "create_item", sku="BOLT", name="Bolt", kind="material")
    for name in ("reorder_point", "reorder_quantity", "order_multiple"):
        err = refused(registry, "modify_item", {"sku": "BOLT", name: "2.5"})
        assert (err.code, err.field) == ("validation_error", name), err.to_payload()
        err = refused(registry, "create_item", {"sku": f"N{len(name)}", "name": "N",
                                                "kind": "material", name: "0.5"})
        assert (err.code, err.field) == ("validation_error", name), err.to_payload()
    apply(registry, "modify_item", sku="BOLT", uom="kg", reorder_point="2.5")
