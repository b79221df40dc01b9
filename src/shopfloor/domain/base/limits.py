"""What the database can hold: every quantity and cost a write stores or derives.

SQLite keeps a decimal as a 64-bit integer of millionths (at most about 9.2e12), and
PostgreSQL as NUMERIC(24, 6) (below 1e18). One limit for both, well inside the smaller,
so a derived figure (a component's need for a large order, a rolled-up cost) is refused
as bad input naming the field, before it can overflow a column or a later sum.
"""

from __future__ import annotations

from decimal import Decimal

from shopfloor.kernel.errors import ValidationFailed

LIMIT = Decimal(10) ** 12


def storable(value: Decimal, fld: str | None) -> Decimal:
    if -LIMIT < value < LIMIT:
        return value
    raise ValidationFailed(
        f"{fld or 'a quantity'}: the result, {value:.0f}, is beyond what Shopfloor stores "
        f"(less than 10^12 in size)", field=fld, details={"limit": "1000000000000"})
