"""MRP chooses the supplier (issue 23), on both databases: the worked example's RESA
(Alpha in boxes of 100 at 4.00, 3.50 from 10 boxes, 10 days; Beta in bags of 25 at
1.25, 3 days), the preferred supplier, the fastest when none is in time, and a plan
applied as one purchase order per supplier in the supplier's unit."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import alpha_and_beta, refused, stock_of, world
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import TODAY, day, plan_of, run_job


def need(reg: Registry, quantity: str, days: int, sku: str = "RESA") -> None:
    given = Given(reg)
    given.customer(f"C{sku}{days}")
    given.so({sku: (quantity, "1")}, f"C{sku}{days}", due_date=day(days))


def groups(plan: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {g["supplier"]: g["lines"] for g in plan["purchase_orders"]}


def test_cheapest_in_time_then_the_only_one_in_time(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    need(registry, "1030", 20)
    plan = plan_of(registry)
    [group] = plan["purchase_orders"]
    assert (group["supplier"], group["currency"]) == ("Alpha", "EUR")
    [line] = group["lines"]
    assert (line["sku"], line["unit"], line["quantity"], line["unit_price"], line["late"]) \
        == ("RESA", "box", "11", "3.5", False)
    assert D(line["quantity"]) * D(line["unit_price"]) == D("38.50")
    assert "cheapest in time" in line["why"] and "Beta: 42 bag at 1.25 = 52.5" in line["why"]
    assert (line["stock_quantity"], line["need_date"], line["start_date"]) == \
        ("1100", day(20), day(10))
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    applied = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    [number] = applied["purchase_orders"]
    po = registry.invoke("get_purchase_order", {"number": number}, ADMIN)
    assert po["partner"] == "Alpha"
    assert [(ln["sku"], ln["unit"], ln["quantity"], ln["unit_price"]) for ln in po["lines"]] \
        == [("RESA", "box", "11", "3.5")]
    apply(registry, "receive_purchase_order", number=number)
    assert stock_of(registry, "RESA") == (D(1100), D("0.035"))
    assert plan_of(registry)["purchase_orders"] == []  # covered: nothing more to buy


def test_the_same_need_in_five_days_goes_to_beta(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    need(registry, "1030", 5)
    [line] = groups(plan_of(registry))["Beta"]
    assert (line["unit"], line["quantity"], line["unit_price"], line["late"]) == \
        ("bag", "42", "1.25", False)
    assert line["stock_quantity"] == "1050"


def test_preferred_if_in_time_else_the_fastest_flagged_late(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry, preferred="Beta")
    need(registry, "1030", 20)
    [line] = groups(plan_of(registry))["Beta"]
    assert (line["quantity"], line["late"]) == ("42", False)
    assert line["why"].startswith("preferred, in time")
    # preferred but not in time: the cheapest in time instead
    alpha_and_beta(registry, preferred="Alpha")
    apply(registry, "set_supplier_item", sku="RESA", supplier="Alpha", purchase_unit="box",
          units_per_purchase_unit="100", lead_time_days=30, preferred=True,
          price_breaks=[{"min_quantity": "1", "unit_price": "1"}])
    [line] = groups(plan_of(registry))["Beta"]
    assert line["why"].startswith("cheapest in time")


def test_none_in_time_goes_to_the_fastest_and_says_late(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    need(registry, "1030", 2)
    [line] = groups(plan_of(registry))["Beta"]
    assert (line["quantity"], line["late"], line["needed_by"]) == ("42", True, day(2))
    assert line["need_date"] == day(3) and line["why"].startswith("none in time")


def test_breaks_minimum_and_multiple_and_one_order_per_supplier(registry: Registry) -> None:
    world(registry)
    alpha_and_beta(registry)
    apply(registry, "create_item", sku="CAP", name="Capacitor", kind="material")
    # 9 boxes at 4.00 = 36 costs more than 10 at 3.50 = 35: ordering up to the break wins
    apply(registry, "set_supplier_item", sku="CAP", supplier="Alpha", purchase_unit="box",
          units_per_purchase_unit="10", lead_time_days=1,
          price_breaks=[{"min_quantity": "1", "unit_price": "4"},
                        {"min_quantity": "10", "unit_price": "3.5"}])
    # Beta: at least 12 packs, in sixes, at 2.90: 12 x 2.90 = 34.80 is cheaper still
    apply(registry, "set_supplier_item", sku="CAP", supplier="Beta", purchase_unit="pack",
          units_per_purchase_unit="10", lead_time_days=1, minimum_order="12",
          order_multiple="6", price_breaks=[{"min_quantity": "0", "unit_price": "2.9"}])
    need(registry, "85", 10, "CAP")
    need(registry, "1030", 20)
    plan = plan_of(registry)
    got = groups(plan)
    assert [ln["sku"] for ln in got["Alpha"]] == ["RESA"]
    [cap] = got["Beta"]
    assert (cap["unit"], cap["quantity"], cap["unit_price"]) == ("pack", "12", "2.9")
    apply(registry, "set_supplier_item", sku="CAP", supplier="Beta", purchase_unit="pack",
          units_per_purchase_unit="10", lead_time_days=1, minimum_order="12",
          order_multiple="6", price_breaks=[{"min_quantity": "0", "unit_price": "3"}])
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    [cap] = groups(job["result"])["Alpha"][:1] if groups(job["result"])["Alpha"][0]["sku"] \
        == "CAP" else groups(job["result"])["Alpha"][1:]
    assert (cap["unit"], cap["quantity"], cap["unit_price"]) == ("box", "10", "3.5")
    applied = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    assert len(applied["purchase_orders"]) == 1  # one supplier, one order
    po = registry.invoke("get_purchase_order", {"number": applied["purchase_orders"][0]},
                         ADMIN)
    assert sorted((ln["sku"], ln["unit"], ln["quantity"]) for ln in po["lines"]) == [
        ("CAP", "box", "10"), ("RESA", "box", "11")]


def test_a_default_supplier_in_dollars_is_planned_and_priced_in_dollars(
        registry: Registry) -> None:
    world(registry)
    apply(registry, "create_item", sku="CABLE", name="Cable", kind="material",
          purchase_price="1.84", default_supplier="Wires Inc")
    need(registry, "100", 20, "CABLE")
    err = refused(registry, "create_purchase_order", {
        "supplier": "Wires Inc", "location": "MAIN", "lines": [{"sku": "CABLE",
                                                                "quantity": "1"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].unit_price")
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from=day(-1))
    [group] = plan_of(registry)["purchase_orders"]
    assert (group["supplier"], group["currency"]) == ("Wires Inc", "USD")
    assert [(ln["sku"], ln["unit"], ln["quantity"], ln["unit_price"]) for ln in group["lines"]] \
        == [("CABLE", None, "100", "2")]


def test_a_dollar_default_supplier_with_no_rate_is_priced_and_labelled_in_euros(
        registry: Registry) -> None:
    """No USD rate: the plan cannot say the price in dollars, so it says it in the
    company's money and labels it so; applied once a rate is set, the order is in the
    supplier's dollars at that rate."""
    world(registry)
    apply(registry, "create_item", sku="CABLE", name="Cable", kind="material",
          purchase_price="1.84", default_supplier="Wires Inc", lead_time_days=30)
    need(registry, "100", 20, "CABLE")
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    [group] = job["result"]["purchase_orders"]
    assert (group["supplier"], group["currency"]) == ("Wires Inc", "EUR")
    [line] = group["lines"]
    assert (line["unit"], line["quantity"], line["unit_price"], line["late"]) == \
        (None, "100", "1.84", True)
    assert "no USD rate, priced in EUR" in line["why"]
    err = refused(registry, "apply_mrp_plan", {"job_id": job["job_id"]})
    assert err.code == "validation_error" and err.field.endswith("unit_price")
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from="2000-01-01")
    [number] = apply(registry, "apply_mrp_plan", job_id=job["job_id"])["purchase_orders"]
    po = registry.invoke("get_purchase_order", {"number": number}, ADMIN)
    assert (po["partner"], po["currency"], po["lines"][0]["unit_price"]) == \
        ("Wires Inc", "USD", "2")
    # a line in time from a default supplier says so too
    need(registry, "100", 60, "CABLE")
    [line] = lines_in(plan_of(registry))
    assert (line["late"], line["why"]) == (False, "the item's default supplier")


def lines_in(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [ln for g in plan["purchase_orders"] for ln in g["lines"]]


def test_a_plan_with_two_suppliers_raises_two_orders_in_their_terms(
        registry: Registry) -> None:
    """Alpha (euros, boxes of 100) for RESA, Wires Inc (dollars, reels of 50) for WIRE:
    one order each, in its supplier's currency and unit, at its price."""
    world(registry)
    alpha_and_beta(registry)
    apply(registry, "set_supplier_item", sku="WIRE", supplier="Wires Inc", purchase_unit="reel",
          units_per_purchase_unit="50", lead_time_days=5,
          price_breaks=[{"min_quantity": "1", "unit_price": "90"}])
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from="2000-01-01")
    need(registry, "1030", 20)
    need(registry, "120", 20, "WIRE")
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    assert {(g["supplier"], g["currency"]) for g in job["result"]["purchase_orders"]} == {
        ("Alpha", "EUR"), ("Wires Inc", "USD")}
    applied = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    pos = [registry.invoke("get_purchase_order", {"number": n}, ADMIN)
           for n in applied["purchase_orders"]]
    assert sorted((po["partner"], po["currency"], po["total"],
                   [(ln["sku"], ln["unit"], ln["quantity"], ln["unit_price"])
                    for ln in po["lines"]]) for po in pos) == [
        ("Alpha", "EUR", "38.5", [("RESA", "box", "11", "3.5")]),
        ("Wires Inc", "USD", "270", [("WIRE", "reel", "3", "90")])]
    for po in pos:
        apply(registry, "receive_purchase_order", number=po["number"])
    assert stock_of(registry, "RESA") == (D(1100), D("0.035"))
    assert stock_of(registry, "WIRE") == (D(150), D("1.656"))  # 90 / 50 x 0.92
