"""store/bulk.py writes exactly what SQLAlchemy's executemany writes (our types' conversions,
nulls, the rows affected), and leaves to SQLAlchemy what only it can do."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    update,
)

from shopfloor.store.bulk import executemany
from shopfloor.store.types import Dec, UtcDateTime

pytestmark = pytest.mark.quick

META = MetaData()
ROWS = Table("rows", META, Column("id", Integer, primary_key=True),
             Column("qty", Dec, nullable=True), Column("at", UtcDateTime, nullable=True),
             Column("note", String(20), nullable=True),
             Column("version", Integer, nullable=False, default=1))
_INSERT = insert(ROWS)
_BUMP = (update(ROWS).where(ROWS.c.id == bindparam("r_id"), ROWS.c.version == bindparam("r_v"))
         .values(qty=bindparam("r_qty"), version=bindparam("r_next")))

quantity = st.decimals(min_value=Decimal("-999999999"), max_value=Decimal("999999999"),
                       places=6, allow_nan=False, allow_infinity=False)
row = st.fixed_dictionaries({
    "qty": st.none() | quantity,
    "at": st.none() | st.datetimes(min_value=datetime(2000, 1, 1),
                                   max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
    "note": st.none() | st.text(max_size=20),
    "version": st.integers(1, 10**6)})


def _engine(path: Path) -> Any:
    engine = create_engine(f"sqlite:///{path}")
    META.create_all(engine)
    return engine


def _all(engine: Any) -> list[tuple[Any, ...]]:
    with engine.connect() as c:
        return [tuple(r) for r in c.execute(select(ROWS).order_by(ROWS.c.id))]


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(row, min_size=1, max_size=30))
def test_rows_written_at_the_driver_read_back_as_sqlalchemy_writes_them(
        tmp_path_factory: Any, rows: list[dict[str, Any]]) -> None:
    ours, theirs = (_engine(tmp_path_factory.mktemp("db") / "x.db") for _ in range(2))
    with ours.begin() as c:
        assert executemany(c, _INSERT, rows) == len(rows)
    with theirs.begin() as c:
        c.execute(_INSERT, rows)
    assert _all(ours) == _all(theirs)
    assert [r[1] for r in _all(ours)] == [None if r["qty"] is None else r["qty"] for r in rows]


def test_an_update_reports_the_rows_it_matched(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "x.db")
    with engine.begin() as c:
        executemany(c, _INSERT, [{"qty": Decimal(1), "at": None, "note": None, "version": 1}
                                 for _ in range(3)])
        bump = [{"r_id": i, "r_v": 1, "r_qty": Decimal("2.5"), "r_next": 2} for i in (1, 2, 3)]
        assert executemany(c, _BUMP, bump) == 3
        assert executemany(c, _BUMP, bump) == 0  # the versions moved on: nothing matches
    assert [(r[1], r[4]) for r in _all(engine)] == [(Decimal("2.5"), 2)] * 3


def test_a_default_computed_in_python_is_left_to_sqlalchemy(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "x.db")
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *args: seen.append(statement))
    with engine.begin() as c:  # no version given: its Python default (1) must be applied
        executemany(c, _INSERT, [{"qty": Decimal(3), "at": None, "note": "a"}] * 2)
    assert len(seen) == 1  # still one executemany
    assert [r[4] for r in _all(engine)] == [1, 1]


def test_rows_sharing_one_value_object_each_get_it_converted(tmp_path: Path) -> None:
    """The driver path converts a value once when the row above holds the very same
    object (an operation's timestamp, its actor): every row must still get it."""
    at, qty = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), Decimal("7.25")
    rows = [{"qty": qty, "at": at, "note": "x", "version": 1},
            {"qty": qty, "at": at, "note": None, "version": 1},
            {"qty": Decimal("7.250"), "at": None, "note": "x", "version": 2},
            {"qty": qty, "at": at, "note": "x", "version": 1}]
    ours, theirs = _engine(tmp_path / "a.db"), _engine(tmp_path / "b.db")
    with ours.begin() as c:
        executemany(c, _INSERT, rows)
    with theirs.begin() as c:
        c.execute(_INSERT, rows)
    assert _all(ours) == _all(theirs)
    assert [r[1:3] for r in _all(ours)] == [(qty, at), (qty, at), (qty, None), (qty, at)]


def test_decimals_are_stored_as_millionths_rounded_half_even(tmp_path: Path) -> None:
    """SQLite keeps a decimal as an integer count of millionths, PostgreSQL as NUMERIC(24,
    6); both round to the sixth place half-even in Python, so a preview shows what is
    stored on either."""
    from sqlalchemy import text
    from sqlalchemy.dialects import postgresql

    engine = _engine(tmp_path / "x.db")
    given_ = ["1.0000005", "1.0000015", "-2.5", "0", "123456.1234564"]
    with engine.begin() as c:
        executemany(c, _INSERT, [{"qty": Decimal(v), "at": None, "note": None, "version": 1}
                                 for v in given_])
        c.execute(_INSERT, [{"qty": Decimal("0.0000025"), "version": 1}])
        raw = c.execute(text("SELECT typeof(qty), qty FROM rows ORDER BY id")).all()
    assert raw == [("integer", 1000000), ("integer", 1000002), ("integer", -2500000),
                   ("integer", 0), ("integer", 123456123456), ("integer", 2)]
    assert [r[1] for r in _all(engine)] == [
        Decimal("1"), Decimal("1.000002"), Decimal("-2.5"), Decimal(0),
        Decimal("123456.123456"), Decimal("0.000002")]
    pg = postgresql.psycopg.dialect()  # type: ignore[attr-defined]
    bind = Dec().dialect_impl(pg).bind_processor(pg)
    assert bind is not None
    assert [bind(Decimal(v)) for v in given_] == [
        Decimal("1.000000"), Decimal("1.000002"), Decimal("-2.500000"), Decimal("0.000000"),
        Decimal("123456.123456")]
    assert bind(None) is None
