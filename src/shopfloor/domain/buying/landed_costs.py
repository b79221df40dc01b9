"""How a landed cost (freight, duty, insurance) is shared over a purchase order's lines.

Each line's base is what it brought in: its received value in the company currency, its
received stock quantity, or that quantity's weight. Shares are money, rounded to the
cent, and the rounding residue goes on the largest share: the shares always sum to the
amount exactly, so nothing is lost and nothing made up between the document and the
books. Plain arithmetic over plain values, tested without a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from typing import NamedTuple

from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost

BASES = ("value", "quantity", "weight")
CENT = Decimal("0.01")


class Received(NamedTuple):
    """What one purchase line brought in: stock quantity, value (company currency) and
    the item's weight per stock unit (None: never given)."""

    sku: str
    quantity: Decimal
    value: Decimal
    weight: Decimal | None


def base(line: Received, allocate_by: str) -> Decimal:
    """A line's weight in the allocation; a line with no weight is refused by weight
    rather than guessed at zero (it would carry none of the freight)."""
    if allocate_by == "value":
        return line.value
    if allocate_by == "quantity":
        return line.quantity
    if line.weight is None:
        raise ValidationFailed(f"{line.sku} has no weight: set it on the item, or allocate "
                               "by value or quantity", field="allocate_by")
    return line.quantity * line.weight


def allocate(amount: Decimal, bases: Sequence[Decimal]) -> list[Decimal]:
    """Shares of `amount` in proportion to `bases`, each to the nearest cent, the residue
    on the largest (the first of equals), so that they sum to `amount` exactly. A residue
    below what the largest holds (many lines, a few cents) spills on to the next largest:
    no share is ever below zero."""
    total = sum(bases, ZERO)
    if total <= 0 or any(b < 0 for b in bases):
        raise ValidationFailed("what was received weighs nothing by this base: allocate by "
                               "another", field="allocate_by")
    shares = [(amount * b / total).quantize(CENT, rounding=ROUND_HALF_EVEN) for b in bases]
    residue = amount - sum(shares, ZERO)
    for at in sorted(range(len(shares)), key=lambda i: (-shares[i], i)):
        if residue == 0:
            break
        taken = max(residue, -shares[at])
        shares[at] += taken
        residue -= taken
    return shares


def in_company(amount: Decimal, rate: Decimal) -> Decimal:
    """The amount in the company currency, to the ledger's quantum (as a receipt's cost)."""
    return cost(amount * rate)
