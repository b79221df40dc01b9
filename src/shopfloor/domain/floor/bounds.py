"""How many units the floor may log against an order's operation.

An operation of an order of 3 that reports 1,000,000 units is a typing slip, not output:
the count feeds the floor's progress and its costs. A little over the order's quantity
is real (spares, a reworked unit counted twice), so it is said, not refused; beyond
`TOLERANCE` times the order's quantity it is refused, naming the field.
"""

from __future__ import annotations

from decimal import Decimal

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt

TOLERANCE = Decimal(10)
"""The most an operation may log, as a multiple of its order's quantity."""


def logged_quantity(op: Op, number: str, ordered: Decimal, logged: Decimal,
                    quantity: Decimal, fld: str = "quantity") -> None:
    """Refuse (or warn about) `quantity` more units logged on top of `logged`, on an order
    of `ordered`."""
    after = logged + quantity
    if after > ordered * TOLERANCE:
        raise ValidationFailed(
            f"{fmt(after)} units logged on {number}, an order of {fmt(ordered)}: at most "
            f"{fmt(TOLERANCE)} times the order's quantity ({fmt(ordered * TOLERANCE)})",
            field=fld, details={"ordered": fmt(ordered), "limit": fmt(ordered * TOLERANCE)})
    if after > ordered:
        op.warn("over_order", f"{fmt(after)} units logged on {number}, more than the "
                f"{fmt(ordered)} ordered", fld=fld)
