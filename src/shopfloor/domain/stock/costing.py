"""Moving-average costing as plain arithmetic over plain values.

The ledger (`ledger.py`) reads a balance, asks here what a movement does to its average
and at what unit cost the movement is booked, and writes the answer: the rule has no
database in it, so its tests need none. Every figure is rounded to the cost quantum once,
where it is stored.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from shopfloor.kernel.numbers import ZERO, cost


class Costed(NamedTuple):
    """What one movement does: the balance's new average, and the unit cost it moves at."""

    average: Decimal
    unit_cost: Decimal


def incoming(on_hand: Decimal, average: Decimal, quantity: Decimal,
             unit_cost: Decimal | None) -> Costed:
    """Stock comes in at `unit_cost` (None: at the current average) and re-averages
    with what is there. Onto nothing (or a negative balance, whose cost is unknown) the
    incoming cost becomes the average."""
    in_cost = average if unit_cost is None else unit_cost
    after = on_hand + quantity
    if on_hand <= 0 or after == 0:
        return Costed(cost(in_cost), cost(in_cost))
    return Costed(cost((on_hand * average + quantity * in_cost) / after), cost(in_cost))


def outgoing(average: Decimal) -> Costed:
    """Stock leaves at the current average, which does not change."""
    return Costed(average, average)


def outgoing_at(on_hand: Decimal, average: Decimal, quantity: Decimal,
                exit_cost: Decimal) -> Costed:
    """Stock leaves at a cost of its own (a receipt reversed, a supplier return: back at
    the cost it came in with), and what stays is re-averaged. `quantity` is negative.
    What stays can never be valued below zero; issue "Books that balance" replaces this
    floor with a recorded variance."""
    leaving = cost(exit_cost)
    after = on_hand + quantity
    if after <= 0:
        return Costed(average, leaving)
    rest = on_hand * average + quantity * leaving
    return Costed(cost(max(ZERO, rest) / after), leaving)
