"""A plan as the job card polls it: bounded, so one status reply stays well inside what an
MCP event may carry (1 MiB) however big the company. The stored plan stays whole (apply
reads it there); the card shows the first orders, the most urgent messages, and says how
many there are in all."""

from __future__ import annotations

from typing import Any

ORDERS = 200    # manufacturing orders, and purchase lines, shown
MESSAGES = 100
COVERS = 8     # needs shown per order
URGENCY = {"review": 0, "expedite": 1, "reduce": 2, "cancel": 3, "defer": 4}
"""Which action messages a bounded card shows first: an order the plan could not size,
then supply arriving after its need; within an action, the plan's order (items from the
top of the bills down)."""


def urgent_first(flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(flags, key=lambda m: URGENCY.get(m.get("action", ""), len(URGENCY)))


def _order(o: dict[str, Any]) -> dict[str, Any]:
    covers = o.get("covers") or []
    if len(covers) <= COVERS:
        return o
    return {**o, "covers": covers[:COVERS], "covers_total": len(covers)}


def for_card(plan: dict[str, Any]) -> dict[str, Any]:
    made = plan.get("manufacturing_orders") or []
    groups = plan.get("purchase_orders") or []
    flags = plan.get("messages") or []
    lines = sum(len(g["lines"]) for g in groups)
    if len(made) <= ORDERS and lines <= ORDERS and len(flags) <= MESSAGES and all(
            len(o.get("covers") or []) <= COVERS for o in made):
        return plan
    budget = ORDERS
    shown_groups = []
    for g in groups:
        if budget <= 0:
            break
        shown_groups.append({**g, "lines": [_order(ln) for ln in g["lines"][:budget]]})
        budget -= len(shown_groups[-1]["lines"])
    return {**plan, "manufacturing_orders": [_order(o) for o in made[:ORDERS]],
            "purchase_orders": shown_groups, "messages": urgent_first(flags)[:MESSAGES],
            "shown": {"manufacturing_orders": [min(len(made), ORDERS), len(made)],
                      "purchase_lines": [min(lines, ORDERS), lines],
                      "messages": [min(len(flags), MESSAGES), len(flags)]}}
