"""How values read to a person: the domain's messages and the surfaces' views say numbers
and statuses the same way, so this sits under both rather than in either."""

from __future__ import annotations

from decimal import Decimal


def fmt(value: Decimal) -> str:
    """Plain notation without trailing zeros: 10, 2.5, -0.125 (never 1E+1 or 2.500000)."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def said(status: str) -> str:
    """A status as a person reads it in a message: `partially received`, not the stored
    `partially_received` (results keep the stored value, for code)."""
    return status.replace("_", " ")
