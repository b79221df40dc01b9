"""Action messages on orders already placed, read off the pegging.

- expedite: the first need an order covers comes before the order arrives (and after the
  earliest day a new order could come, so an order placed late, as fast as its lead time
  allows, is not nagged about forever);
- defer: it arrives more than DEFER_DAYS before the first need it covers (never for
  safety stock: early is what safety stock wants);
- cancel: no need draws on it at all;
- reduce: needs draw on part of it and it is bigger than the lot-sizing rules make an
  order for those needs.

Each message names the order, the date it should move to (or the quantity it should
become) and the need behind it. A plan applied and run again flags nothing: its orders
arrive the day their first need is due, sized by the same rules.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from shopfloor.domain.planning import lot_sizing
from shopfloor.domain.planning.data import MADE, PLANNED, SAFETY, Need
from shopfloor.domain.planning.netting import Netted
from shopfloor.kernel.numbers import ZERO, fmt

DEFER_DAYS = 7

# A plan prints hundreds of thousands of dates and quantities drawn from few values.
iso = lru_cache(maxsize=4096)(date.isoformat)
num = lru_cache(maxsize=65536)(fmt)


def need_out(need: Need, quantity: Decimal) -> dict[str, Any]:
    """A peg as the plan shows it: what the need is, when, how much of it."""
    out: dict[str, Any] = {"kind": need.kind, "document": need.document,
                           "date": iso(need.due or need.date), "quantity": num(quantity)}
    if need.kind == MADE:  # a planned parent's item is its order's; a placed one's, here
        out["for"] = need.parent
    return out


def describe(need: Need, quantity: Decimal) -> str:
    when = (need.due or need.date).isoformat()
    if need.kind == SAFETY:
        return f"safety stock by {when}: {fmt(quantity)}"
    if need.kind == PLANNED:
        return f"planned order {need.document} for {need.parent} (starts {when}): {fmt(quantity)}"
    if need.kind == MADE:
        return f"{need.document} for {need.parent} (starts {when}): {fmt(quantity)}"
    if need.document is None:
        return f"stock owed now: {fmt(quantity)}"
    return f"{need.document} (due {when}): {fmt(quantity)}"


def for_item(netted: Netted, today: date) -> list[dict[str, Any]]:
    item = netted.item
    earliest = today + timedelta(days=item.lead)
    out: list[dict[str, Any]] = []
    for layer in netted.placed:
        assert layer.receipt is not None
        expected = layer.receipt.expected
        base = {"sku": item.sku, "document": layer.document, "kind": layer.kind,
                "expected": expected.isoformat() if expected else None,
                "quantity": fmt(layer.quantity)}
        if not layer.pegs:
            out.append({**base, "action": "cancel", "need": None,
                        "reason": f"nothing needs {layer.document}'s {fmt(layer.quantity)} "
                                  f"{item.sku}"})
            continue
        need, took = layer.pegs[0]
        if layer.date > max(need.date, earliest):
            move = max(need.date, today)
            out.append({**base, "action": "expedite", "move_to": move.isoformat(),
                        "need": need_out(need, took),
                        "reason": f"arrives {layer.date.isoformat()}, needed {move.isoformat()}"
                                  f" for {describe(need, took)}"})
        elif need.kind != SAFETY and (need.date - layer.date).days > DEFER_DAYS:
            out.append({**base, "action": "defer", "move_to": need.date.isoformat(),
                        "need": need_out(need, took),
                        "reason": f"arrives {layer.date.isoformat()}, first needed "
                                  f"{need.date.isoformat()} for {describe(need, took)}"})
        used = sum((q for _, q in layer.pegs), ZERO)
        if layer.left > 0:
            enough = lot_sizing.size(used, item)
            if enough < layer.quantity:
                out.append({**base, "action": "reduce", "to": fmt(enough),
                            "need": need_out(need, took),
                            "reason": f"only {fmt(used)} of {fmt(layer.quantity)} is needed"
                                      + (f" (ordered as {fmt(enough)})" if enough > used
                                         else "")})
    return out
