"""A plan a planner ticks order by order (issue 29): each planned order has a ref in its
plan, `apply_mrp_plan` applies exactly the refs named, remembers what each became, and a
later part pegs its orders to the ones an earlier part made. Both databases."""

from __future__ import annotations

import re

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import TODAY, _world, run_job, sell


def _orders(plan: dict[str, object]) -> list[dict[str, object]]:
    return [*plan["manufacturing_orders"],  # type: ignore[misc]
            *(ln for g in plan["purchase_orders"] for ln in g["lines"])]  # type: ignore[attr-defined]


def test_two_of_three_orders_for_one_item_applied_by_ref_the_third_left(
        registry: Registry) -> None:
    _world(registry)
    sell(registry, "P", "3", 60)  # a third wave: P is made three times
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    plan = job["result"]
    refs = [str(o["ref"]) for o in _orders(plan)]
    assert all(re.fullmatch(r"P\d+", r) for r in refs) and len(set(refs)) == len(refs)
    first, second, third = (m for m in plan["manufacturing_orders"] if m["sku"] == "P")

    done = apply(registry, "apply_mrp_plan", job_id=job["job_id"],
                 refs=[first["ref"], third["ref"]])
    assert done["purchase_orders"] == [] and len(done["manufacturing_orders"]) == 2
    made = [registry.invoke("get_manufacturing_order", {"number": n}, ADMIN)
            for n in done["manufacturing_orders"]]
    assert [(m["sku"], m["due_date"], m["quantity"]) for m in made] == [
        ("P", first["due_date"], first["quantity"]), ("P", third["due_date"], third["quantity"])]
    stored = registry.invoke("get_job", {"job_id": job["job_id"]}, ADMIN)["result"]
    assert stored["made"] == {first["ref"]: made[0]["number"], third["ref"]: made[1]["number"]}
    assert stored["applied"] == []  # P's second order is still to apply: P is not done

    # the same ref again makes nothing: refused, naming refs; so is a ref not in the plan
    for wrong, said in (([first["ref"]], "already applied"), (["P999"], "P999")):
        with pytest.raises(ShopfloorError) as info:
            apply(registry, "apply_mrp_plan", job_id=job["job_id"], refs=wrong)
        assert info.value.field == "refs" and said in info.value.message, info.value.message

    # the rest: the intermediate's orders peg to the P orders the first part made
    rest = apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    assert len(rest["manufacturing_orders"]) == len(plan["manufacturing_orders"]) - 2
    left = [registry.invoke("get_manufacturing_order", {"number": n}, ADMIN)
            for n in rest["manufacturing_orders"]]
    assert [m["due_date"] for m in left if m["sku"] == "P"] == [second["due_date"]]
    pegged = {p["document"] for n in rest["manufacturing_orders"] for p in registry.invoke(
        "get_manufacturing_order", {"number": n}, ADMIN)["pegs"] if p["need"] ==
        "manufacturing_order"}
    assert {made[0]["number"], made[1]["number"]} <= pegged, pegged
    stored = registry.invoke("get_job", {"job_id": job["job_id"]}, ADMIN)["result"]
    assert set(stored["made"]) == set(refs)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    assert info.value.code == "conflict" and "already applied" in info.value.message


def test_a_reverted_part_leaves_its_orders_to_apply_again(registry: Registry) -> None:
    _world(registry)
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    plan = job["result"]
    first, second = (m for m in plan["manufacturing_orders"] if m["sku"] == "P")
    kept = apply(registry, "apply_mrp_plan", job_id=job["job_id"], refs=[first["ref"]])
    undone = apply(registry, "apply_mrp_plan", job_id=job["job_id"], refs=[second["ref"]])
    apply(registry, "revert_operation", operation_id=undone["operation_id"])
    stored = registry.invoke("get_job", {"job_id": job["job_id"]}, ADMIN)["result"]
    # the reverted order is no longer made (its order is cancelled): it can be applied again
    assert stored["made"] == {first["ref"]: kept["manufacturing_orders"][0]}
    again = apply(registry, "apply_mrp_plan", job_id=job["job_id"], refs=[second["ref"]])
    assert len(again["manufacturing_orders"]) == 1
    assert again["manufacturing_orders"] != undone["manufacturing_orders"]
