"""How numbers read to a person: the domain's messages and the surfaces' views say them
the same way, so this sits under both rather than in either (statuses: statuses.py)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

# babel is imported where an amount is first said in words: every domain module imports
# this one (through numbers), and a read that says none (an item's details over MCP or
# the CLI) never needs it (~10 ms of a first call; issue 32)


def fmt(value: Decimal) -> str:
    """Plain notation without trailing zeros: 10, 2.5, -0.125 (never 1E+1 or 2.500000)."""
    try:
        return _said(value)
    except TypeError:  # a signalling NaN has no hash: said uncached, and so refused
        return _plain(value)


def _plain(value: Decimal) -> str:
    return "0" if value == 0 else format(value.normalize(), "f")


_said = lru_cache(maxsize=4096)(_plain)
"""Figures said lately, by value (2.50 reads as 2.5 does): a document's changes say a
few quantities over and over."""

SENTENCES = "en_GB"  # the locale of the summaries and messages: their words are English


def money(value: Decimal, currency: str) -> str:
    """An amount as a sentence says it, in its currency's minor units, rounded half up:
    `€1,020.00`, `US$3.50`, `¥1,200` (a summary is English, so English signs; US$ not $)."""
    from babel import UnknownLocaleError
    from babel.numbers import format_currency, get_currency_precision

    try:
        digits = int(get_currency_precision(currency))
        amount = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
        return str(format_currency(amount, currency, locale=SENTENCES))
    except (ValueError, InvalidOperation, UnknownLocaleError):
        return f"{fmt(value)} {currency}"


UNIT_COST_PLACES = 4


def unit_cost(value: Decimal, currency: str) -> str:
    """A cost per unit: up to four decimals, trailing zeros dropped, never fewer than the
    currency's own (`€0.0322`, `€55.338`, `US$3.50`)."""
    from babel import UnknownLocaleError
    from babel.numbers import format_currency, get_currency_precision

    try:
        digits = int(get_currency_precision(currency))
        amount = value.quantize(Decimal(1).scaleb(-max(digits, UNIT_COST_PLACES)),
                                rounding=ROUND_HALF_UP).normalize()
        if -amount.as_tuple().exponent < digits:  # type: ignore[operator]
            amount = amount.quantize(Decimal(1).scaleb(-digits))
        return str(format_currency(amount, currency, locale=SENTENCES, decimal_quantization=False))
    except (ValueError, InvalidOperation, UnknownLocaleError):
        return f"{fmt(value)} {currency}"


FORMULA = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> str:
    """A text cell a spreadsheet will not run as a formula (a SKU or a supplier named
    =HYPERLINK(...)): such a cell starts with a quote (OWASP's CSV-injection advice)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA) else text
