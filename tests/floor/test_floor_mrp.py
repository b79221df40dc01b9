"""MRP dates made items with a routing through the routing and the calendars (infinite
capacity), backward from the end of the need date; lead time stays the fallback."""

from __future__ import annotations

from typing import Any

from shopfloor.app.wiring import worker_for
from shopfloor.registry.registry import Registry
from tests.floor.test_shop_floor import _world
from tests.given import Given
from tests.helpers import ADMIN, apply


def _plan(reg: Registry, today: str) -> dict[str, Any]:
    started = reg.invoke("run_mrp", {"today": today}, ADMIN)
    assert worker_for(reg).run_one(started["job_id"])
    job = reg.invoke("get_job", {"job_id": started["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", job["message"]
    return dict(job["result"])


def _demand(reg: Registry, sku: str, due: str) -> None:
    given = Given(reg)
    given.customer("Bob")
    given.so({sku: ("100", "50")}, due_date=due)


def test_a_planned_order_starts_as_its_routing_needs_not_its_lead_time(
        registry: Registry) -> None:
    _world(registry)
    apply(registry, "modify_item", sku="TABLE", lead_time_days=10)
    _demand(registry, "TABLE", "2027-03-03")
    plan = _plan(registry, "2027-03-01")
    [mo] = [o for o in plan["manufacturing_orders"] if o["sku"] == "TABLE"]
    # Assemble 315 min back from Wed 16:00 -> Wed 10:45; Cut 230 -> Tue 14:55
    assert (mo["start_date"], mo["due_date"], mo.get("late")) == \
        ("2027-03-02", "2027-03-03", None)


def test_an_order_that_cannot_start_in_time_starts_today_and_is_late(
        registry: Registry) -> None:
    _world(registry)
    _demand(registry, "TABLE", "2027-03-01")
    plan = _plan(registry, "2027-03-01")
    [mo] = [o for o in plan["manufacturing_orders"] if o["sku"] == "TABLE"]
    # from Monday: Cut to 11:50, Assemble to Tue 09:05
    assert (mo["start_date"], mo["due_date"], mo["late"], mo["needed_by"]) == \
        ("2027-03-01", "2027-03-02", True, "2027-03-01")


def test_an_item_without_a_routing_keeps_its_lead_time(registry: Registry) -> None:
    _world(registry)
    apply(registry, "update_routing", sku="TABLE", operations=[])
    apply(registry, "modify_item", sku="TABLE", lead_time_days=3)
    _demand(registry, "TABLE", "2027-03-10")
    plan = _plan(registry, "2027-03-01")
    [mo] = [o for o in plan["manufacturing_orders"] if o["sku"] == "TABLE"]
    assert (mo["start_date"], mo["due_date"]) == ("2027-03-07", "2027-03-10")
