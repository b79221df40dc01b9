"""Lot sizing: how much one planned order buys or makes for the net need it was made for.

Lot for lot by default (exactly the net need). The item's rules then apply: an item with
a reorder point is topped up to its maximum, the reorder point plus the reorder quantity
(min/max, as the low-stock list suggests it); any other item orders at least its reorder
quantity (the minimum order); either way in whole packs (`order_multiple`). A period of
supply is applied by the netting, which adds every need of the next N days to the net
need before sizing. The same rules size a planned order, judge whether an order already
placed is bigger than its needs justify (reduce), and round the low-stock list's suggestion.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING

from shopfloor.kernel import units
from shopfloor.kernel.numbers import fmt

if TYPE_CHECKING:  # (a type only: a reorder suggestion need not import the planner's reads)
    from shopfloor.domain.planning.data import ItemData


def packs(quantity: Decimal, multiple: Decimal | None) -> Decimal:
    if not multiple:
        return quantity
    return (quantity / multiple).to_integral_value(rounding=ROUND_CEILING) * multiple


def size_for(net: Decimal, safety: Decimal, minimum: Decimal,
             multiple: Decimal | None) -> Decimal:
    """The order for a net need (the quantity that brings the balance back to the safety
    level): min/max tops up by the reorder quantity, otherwise it is a minimum."""
    if safety > 0:
        return packs(net + minimum, multiple)
    return packs(net if net >= minimum else minimum, multiple)


def size(net: Decimal, rules: ItemData) -> Decimal:
    """size_for with the item's rules (MRP sizes every planned order through here)."""
    if net <= 0:
        return Decimal(0)
    if rules.safety > 0:
        quantity = net + rules.minimum
    else:
        quantity = net if net >= rules.minimum else rules.minimum
    quantity = packs(quantity, rules.multiple) if rules.multiple else quantity
    # as finely as the item is counted: 2.5 of an item counted in whole pieces is 3
    return quantity.quantize(units.quantum(rules.places), rounding=ROUND_CEILING)


def why(net: Decimal, quantity: Decimal, rules: ItemData) -> list[str]:
    """The rules that made an order bigger than the needs it was planned for, in words (a
    period of supply shows in the needs it covers)."""
    out: list[str] = []
    if quantity > net:
        if rules.safety > 0 and rules.minimum > 0:
            out.append(f"up to reorder point {fmt(rules.safety)} + {fmt(rules.minimum)}")
        elif rules.minimum > net:
            out.append(f"minimum order {fmt(rules.minimum)}")
        if rules.multiple and quantity > size_for(net, rules.safety, rules.minimum, None):
            out.append(f"packs of {fmt(rules.multiple)}")
    return out
