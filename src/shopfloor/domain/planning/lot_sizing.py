"""Lot sizing: how much one planned order buys or makes for the net need it was made for.

Lot for lot by default (exactly the net need). The item's rules then apply in order: the
minimum order (`reorder_quantity`), whole packs (`order_multiple`); a period of supply
is applied by the netting, which adds every need of the next N days to the net need
before sizing. The same function sizes a planned order, judges whether an order already
placed is bigger than its needs justify (reduce), and rounds list_low_stock's suggestion.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from typing import Protocol

from shopfloor.domain.numbers import fmt


class Rules(Protocol):
    @property
    def minimum(self) -> Decimal: ...
    @property
    def multiple(self) -> Decimal | None: ...


def size(net: Decimal, rules: Rules) -> Decimal:
    if net <= 0:
        return Decimal(0)
    minimum, multiple = rules.minimum, rules.multiple
    quantity = net if net >= minimum else minimum
    if multiple:
        quantity = (quantity / multiple).to_integral_value(rounding=ROUND_CEILING) * multiple
    return quantity


def why(net: Decimal, quantity: Decimal, rules: Rules, period: int) -> list[str]:
    """The rules that made an order bigger than its net need, in words."""
    out = []
    if period:
        out.append(f"covers {period} days of supply")
    if quantity > net:
        if rules.minimum > net:
            out.append(f"minimum order {fmt(rules.minimum)}")
        if rules.multiple and quantity % rules.multiple == 0 and quantity > max(
                net, rules.minimum):
            out.append(f"packs of {fmt(rules.multiple)}")
    return out
