"""Argument and result field types shared by the catalogue.

Quantities and money are `Decimal` in and out: accepted as numbers or decimal strings
written with ASCII digits, returned as plain decimal strings. Keys people type (SKU,
codes, names) refuse control characters, so nothing invisible ends up in an identifier;
SKUs, codes, numbers and partner names are also stored and looked up in one form (see
shopfloor.kernel.keys), so a key typed in fullwidth letters finds the one typed plainly.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Annotated, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StringConstraints,
    WithJsonSchema,
)

from shopfloor.kernel import dates, gs1, keys, units
from shopfloor.kernel.digits import whole
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt

MAX_AMOUNT = Decimal("1000000000")
_NUM = {"type": ["number", "string"]}


def _ascii_digits(value: object) -> object:
    """Python's Decimal reads any Unicode digit (Arabic-Indic or fullwidth 10 is 10): a
    number someone cannot read back as typed is refused, not guessed. (Pydantic's integers
    already refuse them.)"""
    if isinstance(value, str) and not value.isascii():
        raise ValueError("write the number with ASCII digits 0-9, e.g. 10 or 2.5")
    return value


_ASCII = BeforeValidator(_ascii_digits)

Quantity = Annotated[
    Decimal,
    Field(gt=0, lt=MAX_AMOUNT, decimal_places=6, allow_inf_nan=False),
    _ASCII,
    WithJsonSchema({**_NUM, "description": "> 0"}),
]
SignedQuantity = Annotated[
    Decimal,
    Field(gt=-MAX_AMOUNT, lt=MAX_AMOUNT, decimal_places=6, allow_inf_nan=False),
    _ASCII,
    WithJsonSchema(_NUM),
]
NonNegative = Annotated[
    Decimal,
    Field(ge=0, lt=MAX_AMOUNT, decimal_places=6, allow_inf_nan=False),
    _ASCII,
    WithJsonSchema({**_NUM, "minimum": 0}),
]
Money = NonNegative


def _key(text: str) -> str:
    return keys.normal(text, 64)


def _partner(text: str) -> str:
    return keys.normal(text, 200)


Key = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=64,
                      pattern=r"^[^\x00-\x1f\x7f]+$"),
    AfterValidator(_key),
]
Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=200,
                      pattern=r"^[^\x00-\x1f\x7f]+$"),
]
PartnerName = Annotated[Name, AfterValidator(_partner)]
"""A supplier's or customer's name: their key, so normalised like one."""

V = TypeVar("V")


def _refusing(problem_of: Callable[[V], str | None]) -> AfterValidator:
    """A validator from a kernel rule that names what is wrong with a value (None when
    nothing is): the value kept as given, or its problem as the field's error."""
    def check(value: V) -> V:
        problem = problem_of(value)
        if problem is not None:
            raise ValueError(problem)
        return value
    return AfterValidator(check)


Gtin = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=8, max_length=14),
    _refusing(gs1.gtin_problem),
    WithJsonSchema({"type": "string", "description": "GTIN-8/12/13/14"}),
]
def _unit(text: str) -> str:
    return units.normal(text)


Uom = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=16,
                      pattern=r"^[^\x00-\x1f\x7f]+$"),
    AfterValidator(_unit),
]
"""A unit of measure's name: a key people type, so normalised like one (`box` typed
in fullwidth letters is `box`; invisible and direction characters refused)."""
Precision = Annotated[int, Field(ge=0, le=units.MOST_PLACES)]
Text = Annotated[str, StringConstraints(max_length=2000, pattern=r"^[^\x00]*$"),
                 WithJsonSchema({"type": "string", "maxLength": 2000})]
"""Free text (a note, a reason). NUL is refused, naming the field, without saying so in
every schema that carries a note (the default tools/list pays for each pattern)."""
Reference = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$"),
    WithJsonSchema({"type": "string", "maxLength": 100}),  # their order, PO or RMA number
]
LotRule = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
LeadDays = Annotated[int, Field(ge=0, le=3650)]
SupplyDays = Annotated[int, Field(ge=0, le=365)]
ShelfLifeDays = Annotated[int, Field(ge=1, le=36500)]
Limit = Annotated[int, Field(ge=1, le=500)]
Id = Annotated[int, Field(ge=1, le=2**31 - 1)]  # the id columns are 32-bit on PostgreSQL
Cursor = Annotated[str, StringConstraints(max_length=200, pattern=r"^[^\x00]*$")]
RowCursor = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9]{1,18}$"),
    WithJsonSchema({"type": "string",
                    "description": "where the previous page ended (its next cursor)"}),
]
"""A page cursor over row ids: digits only, bounded, so a forged one is a coded error
rather than an integer overflow in the database or a silently ignored value."""
SearchText = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200,
                                         pattern=r"^[^\x00]*$")]
JobId = Annotated[str, StringConstraints(min_length=1, max_length=36,
                                         pattern=r"^[A-Za-z0-9-]+$")]


def _as_utc(value: datetime) -> datetime:
    """A moment without a zone is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


Day = Annotated[
    date,
    _refusing(dates.day_problem),
    WithJsonSchema({"type": "string", "format": "date"}),
]
"""A business date given as an argument: an ISO date in the years 1900-2999. The schema
does not spell the span as a pattern: 30 bytes on every date field of every tools/list,
for a refusal that names the field and the years anyway. Results say dates as plain
`date` (`ResultDay` where the field is itself called `date`)."""
ResultDay = date

_IN_BUSINESS_YEARS = _refusing(dates.moment_problem)
"""Any moment is refused outside the business years (kernel.dates), where a later step
could no longer reckon with it."""
Since = Annotated[
    datetime,
    AfterValidator(_as_utc),
    _IN_BUSINESS_YEARS,
    WithJsonSchema({"type": "string", "description": "ISO date or time (UTC if no zone)"}),
]
"""A point in time a person types: a date or a time without a zone is read as UTC."""

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def _written_date_time(value: object) -> object:
    """Pydantic reads a number (or a string of digits) as seconds since 1970 and a bare
    date as midnight: a moment that stock is booked against must be written out whole."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _DATE_TIME.match(value):
        raise ValueError("write a date and time, e.g. 2026-11-23T09:00:00Z")
    return value


Moment = Annotated[
    datetime,
    BeforeValidator(_written_date_time),
    AfterValidator(_as_utc),
    _IN_BUSINESS_YEARS,
    WithJsonSchema({"type": "string", "format": "date-time"}),
]
"""A moment stock is booked as of: an ISO 8601 date and time (UTC if no zone), never a
number of seconds or a bare date, in the years 1900-2999 (in UTC too)."""
Kind = Literal["product", "material", "intermediate"]

Amount = Annotated[Decimal, PlainSerializer(fmt, return_type=str, when_used="json"),
                   WithJsonSchema({"type": "string"})]


class Out(BaseModel):
    """Result models: plain data, Decimals as strings; each serializer is built on first
    use (`defer_build`), so a one-call process builds its own tool's only."""

    model_config = ConfigDict(from_attributes=True, defer_build=True)


class Page(Out):
    next_cursor: str | None = None


T = TypeVar("T")


def paged(rows: Sequence[T], limit: int, cursor_of: Callable[[T], str]
          ) -> tuple[list[T], str | None]:
    """One page from `limit + 1` fetched rows: the extra row only says there is more, and
    the page's last row is where the next one starts."""
    page = list(rows[:limit])
    return page, cursor_of(page[-1]) if len(rows) > limit else None


def after_id(cursor: str | None, tool: str) -> int | None:
    """The row id a page ended on, from a free-text cursor (`Cursor`, not `RowCursor`,
    whose pattern the schema shows); anything else is a coded error, not page 1."""
    if cursor is None:
        return None
    row = whole(cursor)
    if row is None:
        raise ValidationFailed(f"not a cursor {tool} returned", field="cursor")
    return row


def pair_cursor(sku: str, location: str) -> str:
    """A page cursor over (sku, location) rows: where the page ended."""
    return base64.urlsafe_b64encode(json.dumps([sku, location]).encode()).decode()


def after_pair(cursor: str | None, tool: str) -> tuple[str, str] | None:
    """The (sku, location) a page ended on; anything else is a coded error, not page 1."""
    if cursor is None:
        return None
    try:
        sku, location = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if isinstance(sku, str) and isinstance(location, str):
            return sku, location
    except (ValueError, TypeError):
        pass
    raise ValidationFailed(f"not a cursor {tool} returned", field="cursor")
