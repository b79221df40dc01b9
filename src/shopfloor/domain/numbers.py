"""Decimal formatting and arithmetic rules shared by every document."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

COST_QUANTUM = Decimal("0.000001")
ZERO = Decimal(0)


def fmt(value: Decimal) -> str:
    """Plain notation without trailing zeros: 10, 2.5, -0.125 (never 1E+1 or 2.500000)."""
    if value == 0:
        return "0"
    text = format(value.normalize(), "f")
    return text


def said(status: str) -> str:
    """A status as a person reads it in a message: `partially received`, not the stored
    `partially_received` (results keep the stored value, for code)."""
    return status.replace("_", " ")


def cost(value: Decimal) -> Decimal:
    return value.quantize(COST_QUANTUM, rounding=ROUND_HALF_EVEN)
