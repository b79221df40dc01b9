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

import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

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
    if 0 <= places <= MOST_PLACES:
        try:  # (a quarter of the cost of the digits' tuple, asked twice a document line)
            return value == value.quantize(_QUANTA[places])
        except InvalidOperation:
            pass  # infinite, or more digits than the context holds: as below
    exponent = value.normalize().as_tuple().exponent
    return isinstance(exponent, int) and -exponent <= places


def said_precision(places: int) -> str:
    return "whole units" if places == 0 else f"{places} decimal place{'s' * (places != 1)}"


def normal(text: str) -> str:
    """A unit's name as stored: NFKC, invisible and direction characters refused (a
    ValueError saying which), like a key."""
    return str(keys.normal(text, NAME_LIMIT))


def in_packs(figure: Decimal, unit: str, per: Decimal, uom: str, places: int,
             stock: Decimal | None = None) -> str | None:
    """A figure in a supplier's pack unit that is part of a pack, as a buyer counts it:
    "1 pc of a box of 3", "2 box + 1 pc of a box of 3" (never "0.333333 box"). None where
    the figure reads well as it is (whole packs, or a short decimal such as 0.5 box), or
    where the pieces would not say it exactly: what they say, `snapped`, must be the
    figure, and their stock figure `stock` when it is given."""
    if figure <= 0 or per <= 0 or fits(figure, 3) or " " in unit or " " in uom:
        return None
    whole = int(figure)
    rest = quantize((figure - whole) * per, places)
    if not 0 < rest < per or snapped(Decimal(whole), rest, per) != figure:
        return None
    if stock is not None and whole * per + rest != stock:
        return None
    piece = "pc" if uom == "pcs" and rest == 1 else uom
    packs = f"{whole} {unit} + " if whole else ""
    return f"{packs}{_plain(rest)} {piece} of a {unit} of {_plain(per)}"


def snapped(whole: Decimal, rest: Decimal, per: Decimal) -> Decimal:
    """Whole packs and `rest` stock units of a pack of `per`, in packs, to the places a
    purchase unit keeps: the one figure the pieces stand for."""
    return whole + quantize(rest / per, PURCHASE_PLACES)


def snap(figure: Decimal, per: Decimal, places: int) -> Decimal:
    """A figure in packs moved by stock units (a return counted in pieces) made the one its
    pieces stand for: 1/3 + 1/3 of a box is 0.666667, as 2 pcs of a box of 3 say, not
    0.666666 (which no later figure would add up to). Only a figure a rounding or two away
    moves: one typed in packs (0.5 box) is the supplier's and stays."""
    if figure <= 0 or per <= 0:
        return figure
    whole = Decimal(int(figure))
    rest = quantize((figure - whole) * per, places)
    near = snapped(whole, rest, per) if 0 < rest < per else figure
    return near if abs(near - figure) <= _ROUNDINGS else figure


_ROUNDINGS = Decimal(1).scaleb(-PURCHASE_PLACES) * 2


PACKS = re.compile(r"^(?:(\S+) (\S+) \+ )?(\S+) (\S+) of a (\S+) of (\S+)$")


def read_packs(text: str) -> tuple[Decimal, Decimal] | None:
    """What `in_packs` said, read back: (the figure in packs, the stock figure); None for
    any other text."""
    found = PACKS.match(text)
    if found is None:
        return None
    try:
        whole = Decimal(found.group(1) or 0)
        rest, per = Decimal(found.group(3)), Decimal(found.group(6))
    except ArithmeticError:
        return None
    return snapped(whole, rest, per), whole * per + rest


def _plain(value: Decimal) -> str:
    return "0" if value == 0 else format(value.normalize(), "f")
