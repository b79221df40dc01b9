"""How a figure reads to a person, said once with Babel: money in its currency with the
currency's own decimals, quantities without trailing zeros, dates in the reader's locale,
statuses in words. The admin's pages, its previews' fallbacks and the printed documents
all ask this module, so one rounding rule and one locale rule hold everywhere a person
reads; the API, MCP and the CLI's JSON keep the raw figures.

A value that is not a figure (text, None) comes back as text, never an exception: a page
that shows a field with an odd value still draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_datetime, format_skeleton, format_time
from babel.numbers import format_currency, format_decimal, get_currency_precision

from shopfloor.kernel.statuses import label
from shopfloor.kernel.text import SENTENCES

# A reader who names no language (no Accept-Language: a PDF fetched by a script or an
# MCP host, a page fetched by curl) reads the admin's own English, the one its summaries
# and messages are written in: "4 Dec 2026", never the US "Dec 4, 2026" of Babel's bare
# "en". Screen and paper both fall back here.
DEFAULT_LOCALE = SENTENCES
UNIT_COST_PLACES = 4  # a cost per unit shows this many decimals at most
MAX_LANGUAGES = 8  # an Accept-Language header is read this far, no further


@cache
def _locale(tag: str) -> Locale | None:
    try:
        return Locale.parse(tag.replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        return None


def negotiate(accept_language: str | None) -> str:
    """The reader's locale from an Accept-Language header: the most wanted one Babel
    knows (`de-CH;q=0.9, en;q=0.8` -> de_CH); the admin's English (en_GB) when none is
    known or none is named."""
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")[:MAX_LANGUAGES]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and tag != "*" and q > 0:
            wanted.append((-q, i, tag.strip()))
    for _, _, tag in sorted(wanted):
        found = _locale(tag)
        if found is not None:
            return str(found)
    return DEFAULT_LOCALE


def decimal_of(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int | float | str):
        try:
            out = Decimal(str(value).strip())
        except InvalidOperation:
            return None
        return out if out.is_finite() else None
    return None


def _date_of(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and len(value) >= 10:
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _datetime_of(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and len(value) > 10:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


Moment = datetime  # the name `datetime` is a method of Formats below


@dataclass(frozen=True)
class Formats:
    """One reader's formats: their locale, the deployment's currency and time zone."""

    locale: str = DEFAULT_LOCALE
    currency: str = "EUR"
    time_zone: str = ""

    def money(self, value: Any, currency: str | None = None) -> str:
        """`3.1671` -> `€3.17` (en), `3,17 €` (de): the currency's own decimals, rounded
        half up as the printed documents round (0.125 -> 0.13, where Babel alone would
        round half-even); a value that is no figure is returned as text."""
        amount = decimal_of(value)
        if amount is None:
            return "" if value is None else str(value)
        code = (currency or self.currency or "").upper()
        try:
            amount = amount.quantize(Decimal(1).scaleb(-self.digits(code)),
                                     rounding=ROUND_HALF_UP)
            return format_currency(amount, code, locale=self.locale)
        except (UnknownLocaleError, ValueError):
            return f"{self.quantity(amount)} {code}".strip()

    def price(self, value: Any, currency: str | None = None) -> str:
        """A unit price: money in its currency, at least the currency's decimals and every
        further digit the price has (`3.1671` -> `€3.1671`, `3.5` -> `€3.50`). A price is
        what was agreed, not an amount: printed rounded, a line's quantity times its
        printed price would not give its printed amount."""
        amount = decimal_of(value)
        if amount is None:
            return "" if value is None else str(value)
        code = (currency or self.currency or "").upper()
        amount = amount.normalize() if amount != 0 else Decimal(0)
        try:
            return format_currency(amount, code, locale=self.locale,
                                   decimal_quantization=False)
        except (UnknownLocaleError, ValueError):
            return f"{self.quantity(amount)} {code}".strip()

    def unit_cost(self, value: Any, currency: str | None = None) -> str:
        """A cost per unit (an average cost, a receipt's unit cost): up to four decimals,
        rounded half up, trailing zeros dropped, never fewer than the currency's own
        (`€0.0322`, `€1.66`, `JP¥12.5`): rounded to cents, a screw costs nothing."""
        amount = decimal_of(value)
        if amount is None:
            return "" if value is None else str(value)
        code = (currency or self.currency or "").upper()
        try:
            digits = self.digits(code)
            amount = amount.quantize(Decimal(1).scaleb(-max(digits, UNIT_COST_PLACES)),
                                     rounding=ROUND_HALF_UP).normalize()
            if max(0, -int(amount.as_tuple().exponent)) < digits:
                amount = amount.quantize(Decimal(1).scaleb(-digits))
            return format_currency(amount, code, locale=self.locale,
                                   decimal_quantization=False)
        except (UnknownLocaleError, ValueError):
            return f"{self.quantity(amount)} {code}".strip()

    def digits(self, currency: str | None = None) -> int:
        return int(get_currency_precision((currency or self.currency).upper()))

    def quantity(self, value: Any, unit: str | None = None) -> str:
        """`2.500000` -> `2.5`, `12000` -> `12,000` (en): every significant digit kept."""
        amount = decimal_of(value)
        if amount is None:
            return "" if value is None else str(value)
        amount = amount.normalize() if amount != 0 else Decimal(0)
        text = format_decimal(amount, locale=self.locale, decimal_quantization=False)
        return f"{text} {unit}" if unit else text

    def date(self, value: Any) -> str:
        """`2026-12-04` -> `4 Dec 2026` (en_GB), `Dec 4, 2026` (en_US)."""
        day = _date_of(value)
        if day is None:
            return "" if value is None else str(value)
        return format_date(day, format="medium", locale=self.locale)

    def datetime(self, value: Any) -> str:
        """A moment in the deployment's zone (UTC when none is set), with the zone named."""
        moment = _datetime_of(value)
        if moment is None:
            return self.date(value)
        zone = self.zone()
        return format_datetime(moment, format="medium", tzinfo=zone,
                               locale=self.locale) + f" {zone.key}"

    def moment(self, value: Any) -> str:
        """A time in a day a person plans by: `Fri 4 Dec, 10:23` (en_GB), `Fr., 4. Dez.,
        10:23` (de), in the company's zone."""
        moment = _datetime_of(value)
        if moment is None:
            return self.date(value)
        local = moment.astimezone(self.zone())
        return f"{self._day(local)}, {format_time(local, 'short', locale=self.locale)}"

    def range(self, start: Any, end: Any) -> str:
        """`Fri 4 Dec, 10:23-11:55` (an en dash): one day said once; two days each with
        its time."""
        a, b = _datetime_of(start), _datetime_of(end)
        if a is None or b is None:
            return f"{self.moment(start)} \u2013 {self.moment(end)}"
        a, b = a.astimezone(self.zone()), b.astimezone(self.zone())
        if a.date() == b.date():
            return (f"{self._day(a)}, {format_time(a, 'short', locale=self.locale)}"
                    f"\u2013{format_time(b, 'short', locale=self.locale)}")
        return f"{self.moment(a)} \u2013 {self.moment(b)}"

    def _day(self, moment: Moment) -> str:
        return str(format_skeleton("MMMEd", moment, locale=self.locale))

    def zone(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.time_zone) if self.time_zone else ZoneInfo("UTC")
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo("UTC")

    def status(self, value: Any) -> str:
        """`partially_received` -> `Partially received`."""
        return "" if value is None else label(str(value))


def formats_for(accept_language: str | None, currency: str, time_zone: str = "") -> Formats:
    return Formats(negotiate(accept_language), currency, time_zone)
