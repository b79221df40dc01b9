"""Units of measure: how finely each is counted, and how a unit's name is written.

A quantity is only as exact as the unit it is counted in: pieces are whole, a scale
weighs to the gram, a tape measures to the millimetre. So every unit has a precision in
decimal places (pcs 0; kg, m, l 3; any other unit 6, the most the database keeps), an
item may set its own, and a quantity derived from another unit (3.3 lb in kg) is rounded
to it once, where it is made, so that every later figure is a sum of exact ones. A
supplier's purchase unit keeps up to `PURCHASE_PLACES`: its quantities are the
supplier's own, never derived.

A unit's name is a key people type (`box` typed in fullwidth letters is `box`), so it is
stored in the same form as one (see keys.py).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from shopfloor.kernel import keys

MOST_PLACES = 6
PURCHASE_PLACES = MOST_PLACES
DEFAULT_PLACES = {"pcs": 0, "kg": 3, "m": 3, "l": 3}
NAME_LIMIT = 16
_QUANTA = tuple(Decimal(1).scaleb(-p) for p in range(MOST_PLACES + 1))


def default_precision(unit: str) -> int:
    """The decimal places a unit is counted to when its item sets none."""
    return DEFAULT_PLACES.get(unit.casefold(), MOST_PLACES)


def places(own: int | None, unit: str) -> int:
    """An item's precision: its own (`own`), else its unit's default."""
    return default_precision(unit) if own is None else own


def quantum(places: int) -> Decimal:
    """The smallest step of a unit counted to `places`: 1, 0.001, 0.000001."""
    return _QUANTA[places]


def quantize(value: Decimal, places: int) -> Decimal:
    """`value` rounded to `places` decimal places, half to even as money is."""
    return value.quantize(_QUANTA[places], rounding=ROUND_HALF_EVEN)


def fits(value: Decimal, places: int) -> bool:
    """Whether `value` has no more decimal places than `places` (trailing zeros aside)."""
    exponent = value.normalize().as_tuple().exponent
    return isinstance(exponent, int) and -exponent <= places


def said_precision(places: int) -> str:
    return "whole units" if places == 0 else f"{places} decimal place{'s' * (places != 1)}"


def normal(text: str) -> str:
    """A unit's name as stored: NFKC, invisible and direction characters refused (a
    ValueError saying which), like a key."""
    return str(keys.normal(text, NAME_LIMIT))
