"""Decimal formatting and arithmetic rules shared by every document."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from shopfloor.kernel.text import fmt

__all__ = ["COST_QUANTUM", "HUNDRED", "ZERO", "cost", "fmt"]

COST_QUANTUM = Decimal("0.000001")
ZERO = Decimal(0)
# Percentages (efficiency, attrition, cost shares) are stored as 0-100, not 0-1.
HUNDRED = Decimal(100)


def cost(value: Decimal) -> Decimal:
    return value.quantize(COST_QUANTUM, rounding=ROUND_HALF_EVEN)
