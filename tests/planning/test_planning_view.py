"""A big plan reaches the job card bounded (one MCP event carries at most 1 MiB), saying
how much of it is shown; the stored plan, which the apply reads, stays whole."""

from __future__ import annotations

import json
from typing import Any

from shopfloor.domain.planning import view


def _order(n: int, covers: int) -> dict[str, Any]:
    return {"ref": f"P{n}", "sku": f"SKU-{n:06d}", "quantity": "12", "start_date": "2026-12-01",
            "due_date": "2026-12-09",
            "covers": [["planned_order", f"P{n + k}", "2026-12-09", "1"]
                       for k in range(covers)]}


def test_a_big_plan_is_bounded_for_the_card_and_says_so() -> None:
    plan = {"scope": "all", "manufacturing_orders": [_order(n, 30) for n in range(50_000)],
            "purchase_orders": [{"supplier": f"S{s}", "warning": None,
                                 "lines": [_order(n, 3) for n in range(2_000)]}
                                for s in range(20)],
            "messages": [{"sku": "X", "action": "cancel", "reason": "x" * 100}] * 9_000}
    shown = view.for_card(plan)
    assert len(json.dumps(shown)) < 400_000
    assert shown["shown"] == {"manufacturing_orders": [200, 50_000],
                              "purchase_lines": [200, 40_000], "messages": [100, 9_000]}
    first = shown["manufacturing_orders"][0]
    assert len(first["covers"]) == 8 and first["covers_total"] == 30
    assert sum(len(g["lines"]) for g in shown["purchase_orders"]) == 200
    assert len(plan["manufacturing_orders"][0]["covers"]) == 30  # the stored plan untouched


def test_a_small_plan_goes_as_it_is() -> None:
    plan = {"manufacturing_orders": [_order(1, 2)], "purchase_orders": [], "messages": []}
    assert view.for_card(plan) is plan


def test_a_bounded_card_shows_the_most_urgent_messages_first() -> None:
    flags = [{"sku": f"C{n}", "action": "cancel"} for n in range(150)] + \
        [{"sku": "D1", "action": "defer"}, {"sku": "E1", "action": "expedite"},
         {"sku": "R1", "action": "reduce"}, {"sku": "E2", "action": "expedite"}]
    plan = {"manufacturing_orders": [], "purchase_orders": [], "messages": flags}
    shown = view.for_card(plan)["messages"]
    assert [m["sku"] for m in shown[:4]] == ["E1", "E2", "R1", "C0"]  # stable within one
    assert len(shown) == view.MESSAGES and all(m["sku"] != "D1" for m in shown)
    assert plan["messages"] is flags and flags[0]["sku"] == "C0"  # the stored plan untouched
