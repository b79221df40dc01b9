"""How numbers read to a person: the domain's messages and the surfaces' views say them
the same way, so this sits under both rather than in either (statuses: statuses.py)."""

from __future__ import annotations

from decimal import Decimal


def fmt(value: Decimal) -> str:
    """Plain notation without trailing zeros: 10, 2.5, -0.125 (never 1E+1 or 2.500000)."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")
