"""Exact decimals on every database.

PostgreSQL has NUMERIC; SQLite has none (SQLAlchemy's Numeric goes through float there),
so on SQLite a decimal is stored as a scaled 64-bit integer. SUM() stays exact on both,
and Python always sees `Decimal`. Sums and differences of `Dec` columns may be computed
in SQL; products and quotients may not (scales would multiply): do those in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, DateTime, Numeric, Text, cast, type_coerce
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.types import TypeDecorator, TypeEngine

SCALE = 6
QUANTUM = Decimal(1).scaleb(-SCALE)


def _scale(value: Decimal) -> int:
    return int(value.quantize(QUANTUM).scaleb(SCALE))


_scaled = lru_cache(maxsize=4096)(_scale)
"""Decimals converted lately, by value (equal decimals scale alike: 2, 2.0 and 2.000000):
a document's lines repeat a few quantities and costs, each a new object, and a lookup
costs a quarter of the rounding and scaling."""


def _unscale(value: Any) -> Decimal:
    return Decimal(value).scaleb(-SCALE)


_unscaled = lru_cache(maxsize=4096)(_unscale)
"""The other way, integers read lately, by value: a hundred balances and items read back
repeat a few prices and quantities (a `Decimal` is immutable, so one may be shared)."""


class _ScaledInteger(BigInteger):
    """SQLite's column for a decimal: an integer count of millionths. Its conversions are
    the column type's own (one closure call per value, not a TypeDecorator's two layers):
    the write path converts thousands of values per document."""

    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], int | None]:
        def process(value: Any) -> int | None:
            if value is None:
                return None
            if type(value) is not Decimal:
                value = Decimal(value)
            try:
                return _scaled(value)
            except TypeError:  # a signalling NaN has no hash: scaled uncached, and refused
                return _scale(value)

        return process

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any]:
        def process(value: Any) -> Decimal | None:
            if value is None:
                return None
            if type(value) is not int:  # (2.0 == 2: only integers share the cache)
                return _unscale(value)
            return _unscaled(value)

        return process


class Dec(TypeDecorator[Decimal]):
    impl = Numeric
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(Numeric(24, SCALE, asdecimal=True))
        return _ScaledInteger()

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        """SQLite: the scaled integer's own conversion (it rounds). PostgreSQL: rounded to
        the column's scale here, half-even as everywhere else, not by the server, then
        the driver's own conversion (psycopg has none for decimals)."""
        inner = self.impl_instance.bind_processor(dialect)
        if dialect.name != "postgresql":
            return inner

        def process(value: Any) -> Any:
            rounded = None if value is None else Decimal(value).quantize(QUANTUM)
            return rounded if inner is None else inner(rounded)

        return process

    @property
    def python_type(self) -> type[Decimal]:
        return Decimal


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC on both databases (SQLite would hand back naive datetimes)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: Shopfloor stores UTC-aware datetimes only")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        stamp: datetime = value
        return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)


def as_stored(column: ColumnElement[Any] | InstrumentedAttribute[Any], dialect: str
              ) -> ColumnElement[Any]:
    """A `Dec` column (or a sum of them) as the database holds it, for a reader that only
    prints it: SQLite's integer of millionths, PostgreSQL's NUMERIC as text. `plain_text`
    prints either exactly, without a `Decimal` made per value (an export of a million
    amounts spends its time there)."""
    if dialect == "postgresql":
        return cast(column, Text())
    return type_coerce(column, BigInteger())


def plain_text(stored: int | str | None) -> str:
    """An `as_stored` value as a plain exact number: no exponent, no trailing zeros."""
    if not stored:
        return "0"
    if type(stored) is int:
        negative = stored < 0
        whole, part = divmod(-stored if negative else stored, _ONE)
        text = f"{whole}.{part:06d}".rstrip("0") if part else str(whole)
        return "-" + text if negative else text
    text = str(stored)
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


_ONE = 10 ** SCALE
