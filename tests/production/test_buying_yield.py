"""Recipe yield and by-products (issue 23), on both databases: the worked example's PCB
(3 R10K each, 5% attrition, set-up 15, reels of 50: 80 PCB take 240 x 1.05 = 252 + 15 =
267 -> 300, so PCB costs 300 x 0.02 / 80 = 0.075) and LOG (1 LOG at 100.00 -> 1 PLANK and
2 kg SAWDUST carrying 10%: PLANK 10 @ 90.00, SAWDUST 20 kg @ 5.00)."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import refused, stock_of
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.planning.test_mrp import day, plan_of


def seed(reg: Registry, sku: str, quantity: str, cost: str) -> None:
    Given(reg).stock({sku: (quantity, cost)}, reason="seed")


def pcb(reg: Registry) -> None:
    given = Given(reg)
    given.location()
    given.item("R10K", name="Resistor 10k")
    given.item("PCB", "product", name="Board")
    apply(reg, "update_recipe", sku="PCB", components=[
        {"sku": "R10K", "quantity": "3", "attrition_percent": "5", "setup_quantity": "15",
         "rounding_multiple": "50"}])


def committed(reg: Registry, sku: str) -> D:
    row = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"][0]
    return D(row["committed"])


def test_a_component_with_yield_is_committed_and_consumed_as_planned(
        registry: Registry) -> None:
    pcb(registry)
    recipe = registry.invoke("get_recipe", {"sku": "PCB"}, ADMIN)
    assert recipe["yields"] == {"R10K": "5% attrition, set-up 15, in 50s"}
    seed(registry, "R10K", "1000", "0.02")
    preview = registry.invoke("create_manufacturing_order",
                              {"sku": "PCB", "quantity": "80", "location": "MAIN"}, ADMIN)
    planned = [c for c in preview["changes"] if c["field"] == "planned cost"]
    assert planned[0]["after"] == "€6.00 (€0.075 each)"
    mo = apply(registry, "create_manufacturing_order", sku="PCB", quantity="80",
               location="MAIN")
    assert committed(registry, "R10K") == D(300)
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    assert stock_of(registry, "R10K") == (D(700), D("0.02"))
    assert stock_of(registry, "PCB") == (D(80), D("0.075"))
    assert committed(registry, "R10K") == D(0)
    assert ledger_mismatches(registry) == []


def test_an_order_completed_in_parts_consumes_what_it_would_at_once(
        registry: Registry) -> None:
    pcb(registry)
    seed(registry, "R10K", "1000", "0.02")
    mo = apply(registry, "create_manufacturing_order", sku="PCB", quantity="80",
               location="MAIN")
    apply(registry, "complete_manufacturing_order", number=mo["number"], quantity="40")
    # 40 take 3 x 40 x 1.05 = 126 + 15 = 141 -> 150; the rest take 300 - 150
    assert stock_of(registry, "R10K")[0] == D(850)
    assert committed(registry, "R10K") == D(150)
    done = apply(registry, "complete_manufacturing_order", number=mo["number"])
    assert stock_of(registry, "R10K")[0] == D(700)
    assert committed(registry, "R10K") == D(0)
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert (stock_of(registry, "R10K")[0], committed(registry, "R10K")) == (D(850), D(150))


def test_mrp_orders_what_the_yield_takes(registry: Registry, given: Given) -> None:
    pcb(registry)
    apply(registry, "create_customer", name="Cust")
    given.so({"PCB": ("80", "1")}, customer="Cust", due_date=day(30))
    plan = plan_of(registry)
    assert [(m["sku"], m["quantity"]) for m in plan["manufacturing_orders"]] == [("PCB", "80")]
    lines = [ln for g in plan["purchase_orders"] for ln in g["lines"]]
    assert [(ln["sku"], ln["quantity"]) for ln in lines] == [("R10K", "300")]


def log_and_planks(reg: Registry, shares: list[str]) -> dict[str, Any]:
    given = Given(reg)
    given.location()
    given.item("LOG", name="Log")
    given.item("PLANK", "product", name="Plank")
    given.item("SAWDUST", name="Sawdust", uom="kg")
    given.item("BARK", name="Bark", uom="kg")
    seed(reg, "LOG", "10", "100")
    by = [{"sku": s, "quantity": "2", "cost_share_percent": p}
          for s, p in zip(("SAWDUST", "BARK"), shares, strict=False)]
    return {"sku": "PLANK", "components": [{"sku": "LOG", "quantity": "1"}], "by_products": by}


def test_by_products_take_their_share_of_the_cost(registry: Registry) -> None:
    apply(registry, "update_recipe", **log_and_planks(registry, ["10"]))
    recipe = registry.invoke("get_recipe", {"sku": "PLANK"}, ADMIN)
    assert recipe["by_products"] == [{"sku": "SAWDUST", "quantity": "2",
                                      "cost_share_percent": "10"}]
    mo = apply(registry, "create_manufacturing_order", sku="PLANK", quantity="10",
               location="MAIN")
    done = apply(registry, "complete_manufacturing_order", number=mo["number"])
    assert stock_of(registry, "PLANK") == (D(10), D("90"))
    assert stock_of(registry, "SAWDUST") == (D(20), D("5"))
    assert stock_of(registry, "LOG")[0] == D(0)
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert stock_of(registry, "PLANK")[0] == D(0) and stock_of(registry, "SAWDUST")[0] == D(0)
    assert stock_of(registry, "LOG") == (D(10), D(100))
    assert ledger_mismatches(registry) == []


def test_shares_over_a_hundred_percent_are_refused_naming_the_share(
        registry: Registry) -> None:
    args = log_and_planks(registry, ["60", "50"])
    err = refused(registry, "update_recipe", args)
    assert (err.code, err.field) == ("validation_error", "by_products[1].cost_share_percent")
    err = refused(registry, "update_recipe", {**args, "components": [
        {"sku": "LOG", "quantity": "1", "rounding_multiple": "0"}]})
    assert err.field == "components[0].rounding_multiple"
