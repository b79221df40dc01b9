"""Lot sizing and safety stock by hand, on both databases: each rule alone, what each
planned order covers, and the plan applied then planned again (nothing more, no flags)."""

from __future__ import annotations

from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN
from tests.planning.test_mrp import TODAY as T
from tests.planning.test_mrp import (
    base,
    brief,
    covers,
    day,
    lines_of,
    plan_of,
    replan_is_empty,
    run_job,
    sell,
    stock,
)


def _item(reg: Registry, sku: str, **fields: Any) -> None:
    Given(reg).item(sku, name=sku, default_supplier="Acme", purchase_price="1", **fields)


def _job(reg: Registry) -> tuple[str, dict[str, Any]]:
    job = run_job(reg, "run_mrp", today=T.isoformat())
    return job["job_id"], job["result"]


def test_minimum_order_covers_later_needs_from_its_surplus(registry: Registry) -> None:
    base(registry)
    _item(registry, "L", reorder_quantity="25", lead_time_days=3)
    a, b = sell(registry, "L", "4", 10), sell(registry, "L", "10", 20)
    job_id, plan = _job(registry)
    [line] = lines_of(plan)
    # 4 needed on day 10, at least 25 bought; the 21 over it cover day 20's 10
    assert brief(line) == ("L", "25", day(7), day(10))
    assert covers(line) == [(a, day(10), "4"), (b, day(20), "10")]
    assert line["sizing"] == ["minimum order 25"]
    replan_is_empty(registry, job_id)


def test_order_multiple_rounds_up_to_whole_packs(registry: Registry) -> None:
    base(registry)
    _item(registry, "SCREW", order_multiple="100")
    _item(registry, "BOLT", order_multiple="12", reorder_quantity="30")
    sell(registry, "SCREW", "130", 5)
    sell(registry, "BOLT", "5", 5)
    job_id, plan = _job(registry)
    got = {ln["sku"]: ln for ln in lines_of(plan)}
    assert got["SCREW"]["quantity"] == "200" and got["SCREW"]["sizing"] == ["packs of 100"]
    # at least 30, in dozens: 36
    assert got["BOLT"]["quantity"] == "36"
    assert got["BOLT"]["sizing"] == ["minimum order 30", "packs of 12"]
    replan_is_empty(registry, job_id)


def test_period_of_supply_covers_the_next_days_needs(registry: Registry) -> None:
    base(registry)
    _item(registry, "W", supply_period_days=14, lead_time_days=2)
    d5, d12 = sell(registry, "W", "3", 5), sell(registry, "W", "4", 12)
    d19, d40 = sell(registry, "W", "5", 19), sell(registry, "W", "6", 40)
    job_id, plan = _job(registry)
    # day 5's order covers days 5 and 12 (within 14 days); day 19 starts another; day 40 a
    # third
    assert [brief(ln) for ln in lines_of(plan)] == [
        ("W", "7", day(3), day(5)), ("W", "5", day(17), day(19)), ("W", "6", day(38), day(40))]
    assert [covers(ln) for ln in lines_of(plan)] == [
        [(d5, day(5), "3"), (d12, day(12), "4")], [(d19, day(19), "5")],
        [(d40, day(40), "6")]]
    replan_is_empty(registry, job_id)


def test_needs_of_one_day_are_one_order(registry: Registry) -> None:
    base(registry)
    _item(registry, "D", lead_time_days=1)
    a, b = sell(registry, "D", "2", 6), sell(registry, "D", "3", 6)
    [line] = lines_of(plan_of(registry))
    assert brief(line) == ("D", "5", day(5), day(6))
    assert sorted(covers(line)) == sorted([(a, day(6), "2"), (b, day(6), "3")])


def test_safety_stock_is_a_need_and_planning_up_to_it_orders_once(registry: Registry) -> None:
    """Reorder point 10, reorder quantity 25, 12 on hand, 4 sold for day 20: the safety
    stock holds 10 of the 12; day 20 takes the other 2 and needs 2 more, bought up to the
    maximum (min/max: 10 + 25 - 8 = 27)."""
    base(registry)
    _item(registry, "R", reorder_point="10", reorder_quantity="25", lead_time_days=7)
    _item(registry, "Z", reorder_point="5", lead_time_days=7)
    stock(registry, R="12")
    so = sell(registry, "R", "4", 20)
    job_id, plan = _job(registry)
    got = {ln["sku"]: ln for ln in lines_of(plan)}
    assert brief(got["R"]) == ("R", "27", day(13), day(20))
    assert covers(got["R"]) == [(so, day(20), "2")]
    assert got["R"]["sizing"] == ["up to reorder point 10 + 25"]
    # nothing on hand and nothing sold: the safety stock itself, as soon as it can come
    assert brief(got["Z"]) == ("Z", "5", day(0), day(7)) and got["Z"]["late"] is False
    assert got["Z"]["covers"] == [["safety_stock", None, day(7), "5"]]
    replan_is_empty(registry, job_id)
    # the record never goes below the safety stock after the apply
    record = registry.invoke("get_projected_stock", {"sku": "R", "today": T.isoformat()},
                             ADMIN)
    assert record["below_safety"] is None and record["end_balance"] == "35"


def test_a_need_already_late_keeps_its_date_and_is_flagged(registry: Registry) -> None:
    base(registry)
    _item(registry, "L", lead_time_days=4)
    sell(registry, "L", "3", -2)
    job_id, plan = _job(registry)
    [line] = lines_of(plan)
    assert (line["need_date"], line["start_date"], line["late"], line["needed_by"]) == \
        (day(4), day(0), True, day(-2))
    replan_is_empty(registry, job_id)



def test_low_stock_suggests_what_mrp_orders_in_whole_packs(registry: Registry) -> None:
    """Reorder point 10, reorder quantity 5, packs of 12, 1 on hand: up to 15 is 14 more,
    two packs: 24, from list_low_stock and from MRP alike."""
    base(registry)
    _item(registry, "B", reorder_point="10", reorder_quantity="5", order_multiple="12")
    stock(registry, B="1")
    [low] = registry.invoke("list_low_stock", {}, ADMIN)["items"]
    assert (low["sku"], low["suggested_quantity"]) == ("B", "24")
    job_id, plan = _job(registry)
    [line] = lines_of(plan)
    assert line["quantity"] == "24"
    assert line["sizing"] == ["up to reorder point 10 + 5", "packs of 12"]
    replan_is_empty(registry, job_id)
    assert registry.invoke("list_low_stock", {}, ADMIN)["items"][0]["suggested_quantity"] == "0"
