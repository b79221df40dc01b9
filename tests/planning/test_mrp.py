"""MRP by hand: time-phased records a planner can check line by line, on both databases.

A three-level bill (P = 2 I, I = 3 M) with two waves of customer demand three weeks
apart: every level gets one order per wave, each on its own date, the components of each
order needed on the day it starts. Stock on hand goes to the earliest need; a purchase
already on order is netted on its date. The plan applied in one transaction and planned
again suggests nothing and flags nothing. Jobs cancel and rebuild.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot

TODAY = date(2026, 12, 1)


def day(n: int) -> str:
    return (TODAY + timedelta(days=n)).isoformat()


def run_job(reg: Registry, tool: str, **args: Any) -> dict[str, Any]:
    started = reg.invoke(tool, args, ADMIN)
    if started.get("preview"):
        started = reg.invoke(tool, started["apply"]["arguments"], ADMIN)
    assert worker_for(reg).run_one(started["job_id"])
    job = reg.invoke("get_job", {"job_id": started["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", job
    return job


def plan_of(reg: Registry, **args: Any) -> dict[str, Any]:
    return run_job(reg, "run_mrp", today=TODAY.isoformat(), **args)["result"]


def lines_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [ln for g in plan["purchase_orders"] for ln in g["lines"]]


def brief(order: dict[str, Any]) -> tuple[str, str, str, str]:
    due = order.get("due_date") or order["need_date"]
    return order["sku"], order["quantity"], order["start_date"], due


def covers(order: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    """(document, date, quantity) of each need a planned order covers."""
    return [(c[1], c[2], c[3]) for c in order["covers"]]


def replan_is_empty(reg: Registry, job_id: str, **args: Any) -> None:
    preview = reg.invoke("apply_mrp_plan", {"job_id": job_id, **args}, ADMIN)
    reg.invoke("apply_mrp_plan", preview["apply"]["arguments"], ADMIN)
    again = plan_of(reg, **args)
    assert again["manufacturing_orders"] == [] and again["purchase_orders"] == [], again
    assert again["messages"] == [], again["messages"]


def base(reg: Registry) -> Given:
    """MAIN, supplier Acme and customer Bob."""
    given = Given(reg)
    given.location()
    given.supplier()
    given.customer()
    return given


def sell(reg: Registry, sku: str, quantity: str, due: int, location: str = "MAIN") -> str:
    return str(apply(reg, "create_sales_order", customer="Bob", location=location,
                     due_date=day(due),
                     lines=[{"sku": sku, "quantity": quantity, "unit_price": "1"}])["number"])


def stock(reg: Registry, location: str = "MAIN", **quantities: str) -> None:
    Given(reg).stock(quantities, location)


def _world(reg: Registry) -> tuple[str, str, str]:
    given = base(reg)
    given.item("P", "product", name="Product", lead_time_days=2)
    given.item("I", "intermediate", name="Intermediate", lead_time_days=3)
    given.item("M", name="Material", lead_time_days=5, default_supplier="Acme",
               purchase_price="1.5")
    given.recipe("P", {"I": "2"})
    given.recipe("I", {"M": "3"})
    given.stock({"P": "1", "I": "2", "M": "4"})
    first = sell(reg, "P", "5", 10)
    second = sell(reg, "P", "7", 31)             # a second wave, three weeks later
    po = given.po({"M": "10"}, expected_date=day(3))["number"]
    return first, second, po


def test_two_waves_through_three_levels_by_hand(registry: Registry) -> None:
    so1, so2, po = _world(registry)
    plan = plan_of(registry)
    assert plan["scope"].startswith("all locations as one pool")
    mos = plan["manufacturing_orders"]
    # P: 1 on hand goes to SO1 (day 10), 4 left to make; SO2 (day 31) gets its own order.
    # Lead time 2: each starts two days before it is due.
    assert [brief(m) for m in mos if m["sku"] == "P"] == [
        ("P", "4", day(8), day(10)), ("P", "7", day(29), day(31))]
    p1, p2 = (m for m in mos if m["sku"] == "P")
    assert covers(p1) == [(so1, day(10), "4")] and covers(p2) == [(so2, day(31), "7")]
    # I: dependent demand 8 on day 8 (P1's start) and 14 on day 29 (P2's start); the 2 on
    # hand go to the first; lead time 3.
    assert [brief(m) for m in mos if m["sku"] == "I"] == [
        ("I", "6", day(5), day(8)), ("I", "14", day(26), day(29))]
    i1, i2 = (m for m in mos if m["sku"] == "I")
    assert covers(i1) == [(p1["ref"], day(8), "6")] and covers(i2) == [(p2["ref"], day(29), "14")]
    assert i1["covers"][0][0] == "planned_order"
    # M: 18 on day 5 (I1's start) and 42 on day 26. 4 on hand plus the 10 arriving on
    # day 3 (netted on its date, before the need) leave 4 to buy; lead time 5.
    assert [brief(ln) for ln in lines_of(plan)] == [
        ("M", "4", day(0), day(5)), ("M", "42", day(21), day(26))]
    m1, m2 = lines_of(plan)
    assert covers(m1) == [(i1["ref"], day(5), "4")] and m1["late"] is False
    assert plan["messages"] == []  # the purchase on order arrives in time and is all used

    # The textbook record of M, with the plan's planned orders in.
    record = registry.invoke("get_projected_stock", {"sku": "M", "today": TODAY.isoformat(),
                                                     "include_planned": True}, ADMIN)
    assert [(r["date"], r["document"], r["incoming"], r["outgoing"], r["balance"])
            for r in record["rows"]] == [
        (day(3), po, "10", "0", "14"),
        (day(5), m1["ref"], "4", "0", "18"), (day(5), i1["ref"], "0", "18", "0"),
        (day(26), m2["ref"], "42", "0", "42"), (day(26), i2["ref"], "0", "42", "0")]


def test_apply_keeps_the_pegs_and_a_replan_is_empty(registry: Registry) -> None:
    so1, so2, _ = _world(registry)
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job["job_id"], only=["NOPE"])
    assert info.value.code == "validation_error" and info.value.field == "only"
    assert snapshot(registry) == before

    preview = registry.invoke("apply_mrp_plan", {"job_id": job["job_id"]}, ADMIN)
    makes = sorted(c["after"] for c in preview["changes"] if c["field"] == "make")
    assert makes == ["14 I at MAIN", "4 P at MAIN", "6 I at MAIN", "7 P at MAIN"]
    fors = [c["after"] for c in preview["changes"] if c["field"] == "for"]
    assert f"{so1} {day(10)} 4" in fors and f"{so2} {day(31)} 7" in fors
    done = registry.invoke("apply_mrp_plan", preview["apply"]["arguments"], ADMIN)
    # M is planned twice: an order holds one line per item, so two purchase orders
    assert len(done["purchase_orders"]) == 2 and len(done["manufacturing_orders"]) == 4
    first = registry.invoke("get_purchase_order", {"number": done["purchase_orders"][0]}, ADMIN)
    assert [(ln["sku"], ln["quantity"], ln["expected_date"]) for ln in first["lines"]] == \
        [("M", "4", day(5))]
    p1, p2, i1, i2 = (registry.invoke("get_manufacturing_order", {"number": n}, ADMIN)
                      for n in done["manufacturing_orders"])
    assert (p1["sku"], p1["due_date"]) == ("P", day(10))
    assert [(g["need"], g["document"], g["date"], g["quantity"]) for g in p1["pegs"]] == \
        [("sales_order", so1, day(10), "4")]
    # a component's order names the parent order created in the same apply
    assert [(g["need"], g["document"], g["date"]) for g in i1["pegs"]] == \
        [("manufacturing_order", p1["number"], day(8))]
    assert [(g["document"], g["date"]) for g in p2["pegs"]] == [(so2, day(31))]
    assert [(g["document"], g["date"]) for g in i2["pegs"]] == [(p2["number"], day(29))]
    assert [(g["document"], g["quantity"]) for g in first["pegs"]] == [(i1["number"], "4")]
    again = plan_of(registry)
    assert again["manufacturing_orders"] == [] and again["purchase_orders"] == []
    assert again["messages"] == []
    job_now = registry.invoke("get_job", {"job_id": job["job_id"]}, ADMIN)
    assert job_now["applied_operation"] == done["operation_id"]

    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job["job_id"])
    assert info.value.code == "conflict" and info.value.field == "job_id"
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("apply_mrp_plan", {**preview["apply"]["arguments"],
                                           "idempotency_key": "another"}, ADMIN)
    assert info.value.code == "stale_preview"
    assert snapshot(registry) == before


def test_on_hand_goes_to_the_earliest_need(registry: Registry) -> None:
    base(registry)
    apply(registry, "create_item", sku="X", name="X", lead_time_days=2,
          default_supplier="Acme")
    stock(registry, X="5")
    early, late = sell(registry, "X", "4", 10), sell(registry, "X", "4", 30)
    [line] = lines_of(plan_of(registry))
    # 5 on hand: 4 to the day-10 order, 1 to the day-30 one, which needs 3 more
    assert brief(line) == ("X", "3", day(28), day(30))
    assert covers(line) == [(late, day(30), "3")]
    record = registry.invoke("get_projected_stock", {"sku": "X", "today": TODAY.isoformat()},
                             ADMIN)
    assert [(r["document"], r["balance"]) for r in record["rows"]] == [(early, "1"),
                                                                        (late, "-3")]
    assert record["first_short"] == day(30)


def test_late_receipt_is_expedited_and_unneeded_ones_cancelled(registry: Registry,
                                                               given: Given) -> None:
    """2 on hand, 6 sold for day 3: the 10 on order arrive on day 9, so no new order, but
    that purchase to bring forward to day 3 and down to the 4 needed; a second purchase
    nothing needs is to cancel; one arriving weeks before its need is to defer."""
    base(registry)
    apply(registry, "create_item", sku="X", name="Timed", default_supplier="Acme",
          lead_time_days=1, purchase_price="1")
    apply(registry, "create_item", sku="Y", name="Early", default_supplier="Acme")
    stock(registry, X="2")
    so = sell(registry, "X", "6", 3)
    so_y = sell(registry, "Y", "10", 30)
    late = given.po({"X": "10"}, expected_date=day(9))["number"]
    spare = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
                  expected_date=day(12), lines=[{"sku": "X", "quantity": "5"},
                                                {"sku": "Y", "quantity": "10",
                                                 "expected_date": day(2)}])["number"]
    plan = plan_of(registry)
    assert plan["manufacturing_orders"] == [] and plan["purchase_orders"] == []
    got = {(m["sku"], m["document"], m["action"]): m for m in plan["messages"]}
    assert set(got) == {("X", late, "expedite"), ("X", late, "reduce"),
                        ("X", spare, "cancel"), ("Y", spare, "defer")}
    expedite = got["X", late, "expedite"]
    assert (expedite["expected"], expedite["move_to"]) == (day(9), day(3))
    assert expedite["need"] == {"kind": "sales_order", "document": so, "date": day(3),
                                "quantity": "4"}
    assert got["X", late, "reduce"]["to"] == "4"
    defer = got["Y", spare, "defer"]   # the line's own date, not the order's day 12
    assert (defer["expected"], defer["move_to"], defer["need"]["document"]) == \
        (day(2), day(30), so_y)


def test_location_plans_only_its_own_stock(registry: Registry, given: Given) -> None:
    base(registry)
    given.location("SHOP")
    apply(registry, "create_item", sku="X", name="X", default_supplier="Acme",
          lead_time_days=1)
    stock(registry, "SHOP", X="10")
    sell(registry, "X", "6", 5)
    assert lines_of(plan_of(registry)) == []       # one pool: the shop's 10 cover it
    job = run_job(registry, "run_mrp", today=TODAY.isoformat(), location="MAIN")
    plan = job["result"]
    assert plan["scope"].startswith("location MAIN only") and plan["deliver_to"] == "MAIN"
    [line] = lines_of(plan)
    assert brief(line) == ("X", "6", day(4), day(5))
    assert lines_of(plan_of(registry, location="SHOP")) == []
    replan_is_empty(registry, job["job_id"], location="MAIN")


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
    assert ledger_mismatches(registry)
    job = run_job(registry, "rebuild_balances")
    assert len(job["result"]["corrections"]) == 3
    assert not ledger_mismatches(registry)
    assert D(registry.invoke("get_stock", {"sku": "P"}, ADMIN)["balances"][0]["committed"]) == 12


def test_purchase_lines_keep_their_own_dates(registry: Registry) -> None:
    """A line's own date wins over its order's; a line without one follows the order,
    when the order's date moves too; MRP and the projected record read the line's."""
    base(registry)
    for sku in ("A", "B"):
        apply(registry, "create_item", sku=sku, name=sku, default_supplier="Acme")
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               expected_date=day(20), lines=[{"sku": "A", "quantity": "5",
                                              "expected_date": day(4)},
                                             {"sku": "B", "quantity": "5"}])
    assert [(ln["sku"], ln["expected_date"]) for ln in po["lines"]] == \
        [("A", day(4)), ("B", day(20))]
    apply(registry, "modify_purchase_order", number=po["number"], expected_date=day(25))

    def dates(sku: str) -> list[str]:
        rec = registry.invoke("get_projected_stock", {"sku": sku, "today": TODAY.isoformat()},
                              ADMIN)
        return [r["date"] for r in rec["rows"]]

    assert (dates("A"), dates("B")) == ([day(4)], [day(25)])
    sell(registry, "A", "5", 30)
    got = {(m["sku"], m["action"]): m for m in plan_of(registry)["messages"]}
    assert set(got) == {("A", "defer"), ("B", "cancel")}    # nothing needs B
    assert (got["A", "defer"]["expected"], got["A", "defer"]["move_to"]) == (day(4), day(30))
