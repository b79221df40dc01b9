"""MRP on the demo company, judged as a planner would: every suggestion says why and
when, dates are feasible, and the plan closes the gaps it found (applied, then planned
again, it suggests nothing more)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal as D
from typing import Any

from shopfloor.app import demo
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN
from tests.planning.test_mrp import run_job

TODAY = date(2026, 12, 1)


def _suggestions(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [*plan["manufacturing_orders"],
            *(ln for group in plan["purchase_orders"] for ln in group["lines"])]


def test_demo_plan_is_one_a_planner_accepts(registry: Registry) -> None:
    demo.load(registry, ADMIN, today=TODAY)
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    plan = job["result"]
    suggestions = _suggestions(plan)
    assert plan["manufacturing_orders"] and plan["purchase_orders"]
    lead = {s["sku"]: timedelta(days=registry.invoke("get_item", {"sku": s["sku"]},
                                                     ADMIN)["lead_time_days"])
            for s in suggestions}
    for s in suggestions:
        due = date.fromisoformat(s.get("due_date") or s["need_date"])
        start = date.fromisoformat(s["start_date"])
        assert D(s["quantity"]) > 0 and s["covers"], s   # every order says what it is for
        assert start >= TODAY, s                      # nothing starts in the past
        assert due - start >= lead[s["sku"]], s       # every order gets its lead time
        assert s.get("late", False) == ("needed_by" in s), s  # a late one says when needed
        if s.get("late"):
            assert date.fromisoformat(s["needed_by"]) < due
    for group in plan["purchase_orders"]:
        assert group["supplier"], group               # every demo item has a supplier
    # Each dependent need is a planned order of the plan, dated on that order's start; the
    # quantities an order covers never exceed it.
    starts = {m["ref"]: m["start_date"] for m in plan["manufacturing_orders"]}
    for s in suggestions:
        for kind, document, need_date, *_ in s["covers"]:
            if kind == "planned_order":
                assert starts[document] == need_date, s
        assert sum(D(n[3]) for n in s["covers"]) <= D(s["quantity"]), s
    # Two waves of one product three weeks apart are two orders, each on its own date.
    by_sku: dict[str, list[str]] = {}
    for m in plan["manufacturing_orders"]:
        by_sku.setdefault(m["sku"], []).append(m["due_date"])
    assert all(len(set(dates)) == len(dates) for dates in by_sku.values()), by_sku

    preview = registry.invoke("apply_mrp_plan", {"job_id": job["job_id"]}, ADMIN)
    applied = registry.invoke("apply_mrp_plan", preview["apply"]["arguments"], ADMIN)
    assert len(applied["manufacturing_orders"]) == len(plan["manufacturing_orders"])
    assert len(applied["purchase_orders"]) == len(plan["purchase_orders"])
    again = run_job(registry, "run_mrp", today=TODAY.isoformat())["result"]
    assert _suggestions(again) == [], _suggestions(again)
    # the apply flags nothing new: what is left is about the demo's own orders
    assert again["messages"] == plan["messages"]
