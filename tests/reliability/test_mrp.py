"""MRP by hand: a 3-level recipe, committed and on-order stock counted once, lead times
pushing dates back; then the plan applied in one transaction; jobs cancel and rebuild."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.app import worker_for
from shopfloor.registry.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply, ledger_matches_balances, snapshot

TODAY = date(2026, 12, 1)


def day(n: int) -> str:
    return (TODAY + timedelta(days=n)).isoformat()


def _world(reg: Registry) -> None:
    apply(reg, "create_location", code="MAIN", name="Main")
    apply(reg, "create_supplier", name="Acme")
    apply(reg, "create_customer", name="Bob")
    apply(reg, "create_item", sku="P", name="Product", kind="product", lead_time_days=2)
    apply(reg, "create_item", sku="I", name="Intermediate", kind="intermediate",
          lead_time_days=3)
    apply(reg, "create_item", sku="M", name="Material", lead_time_days=5,
          default_supplier="Acme", purchase_price="1.5")
    apply(reg, "create_item", sku="R", name="Reorder only", reorder_point="10",
          reorder_quantity="25", default_supplier="Acme", purchase_price="2")
    apply(reg, "update_recipe", sku="P", components=[{"sku": "I", "quantity": "2"}])
    apply(reg, "update_recipe", sku="I", components=[{"sku": "M", "quantity": "3"}])
    apply(reg, "create_stock_adjustment", location="MAIN", reason="opening", lines=[
        {"sku": "P", "quantity_delta": "1"}, {"sku": "I", "quantity_delta": "2"},
        {"sku": "M", "quantity_delta": "4"}, {"sku": "R", "quantity_delta": "12"}])
    apply(reg, "create_sales_order", customer="Bob", location="MAIN", due_date=day(10),
          lines=[{"sku": "P", "quantity": "5", "unit_price": "10"}])
    apply(reg, "create_sales_order", customer="Bob", location="MAIN", due_date=day(20),
          lines=[{"sku": "R", "quantity": "4", "unit_price": "3"}])
    apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "M", "quantity": "10"}])
    apply(reg, "create_manufacturing_order", sku="I", quantity="1", location="MAIN")


def run_job(reg: Registry, tool: str, **args: Any) -> dict[str, Any]:
    started = reg.invoke(tool, args, ADMIN)
    if started.get("preview"):
        started = reg.invoke(tool, started["apply"]["arguments"], ADMIN)
    assert worker_for(reg).run_one(started["job_id"])
    job = reg.invoke("get_job", {"job_id": started["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", job
    return job


def test_three_level_plan_by_hand(registry: Registry) -> None:
    _world(registry)
    plan = run_job(registry, "run_mrp", today=TODAY.isoformat())["result"]
    rows = {r["sku"]: r for r in plan["items"]}
    # P: 1 on hand - 5 committed (SO) = -4  -> make 4
    assert (rows["P"]["level"], rows["P"]["projected"], rows["P"]["planned"]) == (0, "-4", "4")
    # I: 2 on hand + 1 on order (open MO) - 8 for the planned P (4 x 2) = -5 -> make 5
    assert rows["I"]["committed"] == "0" and rows["I"]["on_order"] == "1"
    assert (rows["I"]["dependent_demand"], rows["I"]["projected"], rows["I"]["planned"]) == \
        ("8", "-5", "5")
    # M: 4 on hand - 3 committed (open MO for I) + 10 on order - 15 for planned I = -4 -> buy 4
    assert (rows["M"]["level"], rows["M"]["committed"], rows["M"]["on_order"]) == (2, "3", "10")
    assert (rows["M"]["projected"], rows["M"]["planned"]) == ("-4", "4")
    # R: 12 - 4 committed = 8 <= reorder point 10 -> up to 10 + 25 (min/max): 35 - 8 = 27
    assert (rows["R"]["projected"], rows["R"]["planned"]) == ("8", "27")

    mos = {m["sku"]: m for m in plan["manufacturing_orders"]}
    assert (mos["P"]["quantity"], mos["P"]["due_date"], mos["P"]["start_date"]) == \
        ("4", day(10), day(8))                          # lead time 2 days
    assert (mos["I"]["quantity"], mos["I"]["due_date"], mos["I"]["start_date"]) == \
        ("5", day(8), day(5))                           # needed when P starts; 3 days
    assert any("SO-00001" in r for r in mos["P"]["reasons"])
    assert any("planned MO for P" in r for r in mos["I"]["reasons"])
    [acme] = plan["purchase_orders"]
    lines = {ln["sku"]: ln for ln in acme["lines"]}
    assert acme["supplier"] == "Acme"
    assert (lines["M"]["quantity"], lines["M"]["need_date"], lines["M"]["start_date"]) == \
        ("4", day(5), day(0))                           # needed when I starts; 5 days
    # R dips below its reorder point when the day-20 order ships: order for then, not late
    assert (lines["R"]["quantity"], lines["R"]["need_date"], lines["R"]["late"]) == \
        ("27", day(20), False)


def test_apply_plan_creates_every_order_in_one_transaction(registry: Registry) -> None:
    _world(registry)
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job["job_id"], only=["NOPE"])
    assert info.value.code == "validation_error" and info.value.field == "only"
    assert snapshot(registry) == before

    preview = registry.invoke("apply_mrp_plan", {"job_id": job["job_id"]}, ADMIN)
    assert preview["preview"] is True
    created = [c for c in preview["changes"] if c["field"] == "status" and c["before"] is None]
    assert len(created) == 3  # 1 purchase order (M, R) + 2 manufacturing orders
    makes = sorted(c["after"] for c in preview["changes"] if c["field"] == "make")
    assert makes == ["4 P at MAIN", "5 I at MAIN"]  # the card shows what each order makes
    done = registry.invoke("apply_mrp_plan", preview["apply"]["arguments"], ADMIN)
    assert len(done["purchase_orders"]) == 1 and len(done["manufacturing_orders"]) == 2
    po = registry.invoke("get_purchase_order", {"number": done["purchase_orders"][0]}, ADMIN)
    assert {(ln["sku"], ln["quantity"]) for ln in po["lines"]} == {("M", "4"), ("R", "27")}
    again = run_job(registry, "run_mrp", today=TODAY.isoformat())["result"]
    assert again["manufacturing_orders"] == [] and again["purchase_orders"] == []
    job_now = registry.invoke("get_job", {"job_id": job["job_id"]}, ADMIN)
    assert job_now["applied_operation"] == done["operation_id"]

    # The same plan again, without a token or with the first preview's (now spent and
    # stale) token, under a new idempotency key: refused, nothing written twice.
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    assert info.value.code == "conflict" and info.value.field == "job_id"
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("apply_mrp_plan", {"job_id": job["job_id"]}, ADMIN)  # the preview
    assert info.value.code == "conflict"
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("apply_mrp_plan", {**preview["apply"]["arguments"],
                                           "idempotency_key": "another"}, ADMIN)
    assert info.value.code == "stale_preview"
    assert snapshot(registry) == before


def test_cancel_and_rebuild_jobs(registry: Registry) -> None:
    _world(registry)
    started = registry.invoke("run_mrp", {}, ADMIN)
    cancelled = apply(registry, "cancel_job", job_id=started["job_id"])
    assert cancelled["status"] == "cancelled"
    assert not worker_for(registry).run_one(started["job_id"])
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "cancel_job", job_id=started["job_id"])
    assert info.value.code == "conflict"

    from sqlalchemy import text

    with registry.store.writing() as s:  # damage a balance behind the ledger's back
        s.execute(text("UPDATE balances SET on_hand = on_hand + 7"))
        s.commit()
    assert ledger_matches_balances(registry)
    job = run_job(registry, "rebuild_balances")
    assert len(job["result"]["corrections"]) == 4
    assert not ledger_matches_balances(registry)
    assert D(registry.invoke("get_stock", {"sku": "P"}, ADMIN)["balances"][0]["committed"]) == 5


def test_supply_arriving_after_the_need_is_flagged_to_expedite(registry: Registry) -> None:
    """Totals net to enough (2 + 10 on order - 6 sold = 6), but the sale ships on day 3
    and the purchase lands on day 9: no new order, and that purchase to bring forward."""
    _world(registry)
    apply(registry, "create_item", sku="X", name="Timed", default_supplier="Acme",
          lead_time_days=1, purchase_price="1")
    apply(registry, "create_stock_adjustment", location="MAIN", reason="opening",
          lines=[{"sku": "X", "quantity_delta": "2"}])
    apply(registry, "create_sales_order", customer="Bob", location="MAIN", due_date=day(3),
          lines=[{"sku": "X", "quantity": "6", "unit_price": "3"}])
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               expected_date=day(9), lines=[{"sku": "X", "quantity": "10"}])
    plan = run_job(registry, "run_mrp", today=TODAY.isoformat())["result"]
    assert "X" not in {r["sku"] for r in plan["items"]}  # nothing new to order
    [flag] = plan["exceptions"]
    assert flag == {"sku": "X", "action": "expedite", "document": po["number"],
                    "expected": day(9), "needed_by": day(3), "short": "4",
                    "reason": "SO-00003 (due " + day(3) + ")"}


def test_reorder_point_alone_is_not_late(registry: Registry) -> None:
    """Stock at its reorder point with no dated demand: order now, due when the lead time
    allows; a need already past keeps its date and is due after its lead time."""
    apply(registry, "create_location", code="MAIN", name="Main")
    apply(registry, "create_supplier", name="Acme")
    apply(registry, "create_customer", name="Bob")
    apply(registry, "create_item", sku="R", name="Reorder", reorder_point="5",
          reorder_quantity="20", lead_time_days=7, default_supplier="Acme")
    apply(registry, "create_item", sku="L", name="Late", lead_time_days=4,
          default_supplier="Acme")
    apply(registry, "create_sales_order", customer="Bob", location="MAIN", due_date=day(-2),
          lines=[{"sku": "L", "quantity": "3", "unit_price": "1"}])
    plan = run_job(registry, "run_mrp", today=TODAY.isoformat())["result"]
    lines = {ln["sku"]: ln for g in plan["purchase_orders"] for ln in g["lines"]}
    assert (lines["R"]["need_date"], lines["R"]["start_date"], lines["R"]["late"]) == \
        (day(7), day(0), False)
    assert (lines["L"]["need_date"], lines["L"]["start_date"], lines["L"]["late"],
            lines["L"]["needed_by"]) == (day(4), day(0), True, day(-2))
