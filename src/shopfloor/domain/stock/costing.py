"""Moving-average costing as plain arithmetic over plain values.

The ledger (`ledger.py`) reads a balance, asks here what a movement does to its value and
at what unit cost and value the movement is booked, and writes the answer: the rule has
no database in it, so its tests need none.

The value is the truth: a balance's value is the sum of its rows' values, each rounded
once to the value quantum (six places) where it is made, so sums never drift; the average
is value / on hand, rounded, for showing and for pricing the next issue. Stock that
leaves at the average takes its share of the value (the last unit out takes what is
left, so nothing stays on an empty balance). What a document means to move and what the
stock can carry may differ: stock leaving at a cost of its own never takes more than the
stock holds, and stock coming onto a negative balance re-prices it; the difference is the
row's `variance` (the document's value minus the row's), which the ledger records outside
the stock books.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from shopfloor.kernel.numbers import ZERO, cost


class Costed(NamedTuple):
    """What one movement does: the row's value and unit cost, and the value the document
    moved beyond it (positive: an expense, negative: a gain)."""

    value: Decimal
    unit_cost: Decimal
    variance: Decimal = ZERO


def average(on_hand: Decimal, value: Decimal, fallback: Decimal) -> Decimal:
    """The average to show and to issue the next unit at: value / on hand; with nothing on
    hand, the last one known."""
    return cost(value / on_hand) if on_hand != 0 else fallback


def incoming(on_hand: Decimal, value: Decimal, average_cost: Decimal, quantity: Decimal,
             unit_cost: Decimal | None, exact: Decimal | None = None) -> Costed:
    """Stock comes in at `unit_cost` (None: at the current average) or with an `exact`
    value (stock coming back at the value it left with), added to the balance's. Onto a
    negative balance, whose cost is unknown, the balance is re-priced at the incoming cost;
    the difference went with the stock that left while it was negative (a variance)."""
    in_cost = cost(average_cost if unit_cost is None else unit_cost)
    meant = cost(quantity * in_cost) if exact is None else exact
    shown = in_cost if exact is None else cost(exact / quantity)
    if on_hand >= 0:
        return Costed(meant, shown)
    row = cost((on_hand + quantity) * (meant / quantity)) - value
    return Costed(row, shown, meant - row)


def outgoing(on_hand: Decimal, value: Decimal, average_cost: Decimal,
             quantity: Decimal) -> Costed:
    """Stock leaves at the average: its share of the value; the last unit out takes all
    that is left. `quantity` is negative. Below zero (where the location allows it) the
    missing units leave at the last average."""
    after = on_hand + quantity
    if on_hand <= 0:
        return Costed(cost(quantity * average_cost), average_cost)
    if after <= 0:
        return Costed(cost(after * average_cost) - value, average_cost)
    return Costed(cost(quantity * value / on_hand), cost(value / on_hand))


def outgoing_at(on_hand: Decimal, value: Decimal, average_cost: Decimal, quantity: Decimal,
                exit_cost: Decimal) -> Costed:
    """Stock leaves at a cost of its own (a receipt's goods going back at the cost they
    came in with), and what stays keeps the rest. It never takes more than the stock holds
    (what stays is never valued below zero) and never leaves value on an empty balance:
    the difference from `quantity x exit_cost` is the variance."""
    leaving = cost(exit_cost)
    meant = cost(quantity * leaving)
    after = on_hand + quantity
    if on_hand <= 0:
        return Costed(meant, leaving)
    # all of it when nothing stays; else never more than the stock holds
    row = (cost(after * average_cost) - value if after <= 0
           else -min(-meant, max(value, ZERO)))
    return Costed(row, leaving, meant - row)


def residue(on_hand: Decimal, value: Decimal) -> Decimal:
    """What of a balance's value no quantity x unit cost makes: the rounding left when all
    of `on_hand` leaves at its average (value / on hand, rounded), say 0.000001 of 15.400002
    for 3.493 kg at 4.408818. The last unit out takes it, so the balance empties to 0; it
    is a rounding, not a cost of the goods, and is recorded as one."""
    if on_hand <= 0:
        return ZERO
    return value - cost(on_hand * cost(value / on_hand))


def unbalanced(on_hand: Decimal, value: Decimal) -> bool:
    """A balance no posting may leave: value on an empty balance, or a negative average."""
    return (value != 0) if on_hand == 0 else (value / on_hand < 0)
