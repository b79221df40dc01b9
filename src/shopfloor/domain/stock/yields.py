"""Recipe yield: what making some units of a product really takes of one component.

per unit x units, plus the attrition lost on the way, plus a set-up quantity used once
per order, rounded up to the component's rounding multiple (a reel, a sheet): 3 per PCB,
5%, set-up 15, reels of 50 -> 80 PCB take 240 x 1.05 = 252 + 15 = 267 -> 300. A run of
completions takes the difference of the cumulative figures, each rounded up to how finely
the component is counted, so an order completed in parts consumes, in total, exactly what
it would in one, and never half a piece on the way (0.5 a unit: 1, 0, 1, 0). No database.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from typing import Any, NamedTuple

from shopfloor.kernel import units as counted_in
from shopfloor.kernel.numbers import HUNDRED, fmt

_STEP = Decimal("0.000001")


class Yield(NamedTuple):
    attrition_percent: Decimal = Decimal(0)
    setup_quantity: Decimal = Decimal(0)
    rounding_multiple: Decimal | None = None

    @property
    def plain(self) -> bool:
        return not (self.attrition_percent or self.setup_quantity or self.rounding_multiple)


PLAIN = Yield()


def gross(per: Decimal, units: Decimal, y: Yield = PLAIN) -> Decimal:
    """What `units` of the product take of the component, all told."""
    if units <= 0:
        return Decimal(0)
    if y.plain:
        return per * units
    q = per * units * (1 + y.attrition_percent / HUNDRED) + y.setup_quantity
    if y.rounding_multiple:
        q = (q / y.rounding_multiple).to_integral_value(rounding=ROUND_CEILING) \
            * y.rounding_multiple
    # past 10^21 a millionth is beyond Decimal's 28 digits: the figure stays whole, and
    # what stores it refuses it as too large (base.limits), naming its field
    return q.quantize(_STEP, rounding=ROUND_CEILING) if q.adjusted() < 21 else q


def between(per: Decimal, done: Decimal, more: Decimal, y: Yield = PLAIN,
            places: int | None = None) -> Decimal:
    """What `more` units take after `done` were already made (or scrapped); given the
    `places` the component is counted to, in quantities of it (the cumulative figures
    rounded up, so the parts add up to the whole)."""
    if places is not None:
        return up(gross(per, done + more, y), places) - up(gross(per, done, y), places)
    if y.plain:
        return per * more
    return gross(per, done + more, y) - gross(per, done, y)


def stored(q: Decimal) -> Decimal:
    """`q` as the ledger keeps it: finer than a millionth is below anything stored, so it
    moves as stored (0.1 x 0.333333 g is 0.033333 g); past 10^21, as it is."""
    return q.quantize(_STEP, rounding=ROUND_HALF_EVEN) if q.adjusted() < 21 else q


def up(q: Decimal, places: int) -> Decimal:
    """`q`, as stored, rounded up to a quantity counted to `places`."""
    q = stored(q)
    return q.quantize(counted_in.quantum(places), rounding=ROUND_CEILING) \
        if q.adjusted() < 21 else q


def down(q: Decimal, places: int) -> Decimal:
    """`q`, as stored, rounded down to a quantity counted to `places`."""
    q = stored(q)
    return q.quantize(counted_in.quantum(places), rounding=ROUND_FLOOR) \
        if q.adjusted() < 21 else q


def of(row: Any) -> Yield:
    """A recipe line's or an order component's yield (both carry the three columns)."""
    return Yield(row.attrition_percent or Decimal(0), row.setup_quantity or Decimal(0),
                 row.rounding_multiple or None)


def said(y: Yield) -> str | None:
    """A yield in words for the change log (None: plain)."""
    if y.plain:
        return None
    parts = [f"{fmt(y.attrition_percent)}% attrition"] if y.attrition_percent else []
    if y.setup_quantity:
        parts.append(f"set-up {fmt(y.setup_quantity)}")
    if y.rounding_multiple:
        parts.append(f"in {fmt(y.rounding_multiple)}s")
    return ", ".join(parts)
