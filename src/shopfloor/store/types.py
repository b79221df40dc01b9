"""Exact decimals on every database.

PostgreSQL has NUMERIC; SQLite has none (SQLAlchemy's Numeric goes through float there),
so on SQLite a decimal is stored as a scaled 64-bit integer. SUM() stays exact on both,
and Python always sees `Decimal`. Sums and differences of `Dec` columns may be computed
in SQL; products and quotients may not (scales would multiply): do those in Python.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, DateTime, Numeric
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

SCALE = 6
QUANTUM = Decimal(1).scaleb(-SCALE)


class Dec(TypeDecorator[Decimal]):
    impl = Numeric
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(Numeric(24, SCALE, asdecimal=True))
        return dialect.type_descriptor(BigInteger())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        d = Decimal(value).quantize(QUANTUM)
        if dialect.name == "postgresql":
            return d
        return int(d.scaleb(SCALE))

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        if dialect.name == "postgresql":
            return Decimal(value)
        return Decimal(int(value)).scaleb(-SCALE)

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
