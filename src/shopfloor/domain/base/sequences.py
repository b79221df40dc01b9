"""Document numbers: PO-00001, SO-00001, MO-00001, ADJ-00001, TR-00001."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import bindparam, select, update

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Conflict
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import Sequence, table
from shopfloor.store.tables.core import Base

SEQUENCES = table(Sequence)
_NEXT = Prepared(update(SEQUENCES).where(SEQUENCES.c.name == bindparam("prefix"))
                 .values(value=SEQUENCES.c.value + 1).returning(SEQUENCES.c.value))


def _upsert(dialect: str) -> Any:
    """The dialect's INSERT .. ON CONFLICT, imported when first used: a process on SQLite
    never loads the PostgreSQL dialect (~0.1 s of start-up)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


def next_number(op: Op, prefix: str) -> str:
    """One atomic UPDATE ... RETURNING: concurrent writers queue on the row, never collide."""
    conn = op.session.connection()
    row = _NEXT.first(conn, {"prefix": prefix})
    if row is None:
        insert = _upsert(op.dialect)
        conn.execute(insert(SEQUENCES).values(name=prefix, value=0)
                     .on_conflict_do_nothing(index_elements=["name"]))
        row = _NEXT.first(conn, {"prefix": prefix})
        assert row is not None
    return f"{prefix}-{row[0]:05d}"


def reserve(op: Op, name: str, n: int) -> range:
    """`n` consecutive values of a counter in one statement (lot and serial numbers)."""
    conn = op.session.connection()
    stmt = (update(SEQUENCES).where(SEQUENCES.c.name == name)
            .values(value=SEQUENCES.c.value + n).returning(SEQUENCES.c.value))
    last = conn.execute(stmt).scalar_one_or_none()
    if last is None:
        insert = _upsert(op.dialect)
        conn.execute(insert(SEQUENCES).values(name=name, value=0)
                     .on_conflict_do_nothing(index_elements=["name"]))
        last = conn.execute(stmt).scalar_one()
    return range(last - n + 1, last + 1)


def claim_number(op: Op, model: type[Base], number: str | None, prefix: str) -> str:
    """A generated number is the sequence's next, unchecked: a caller-chosen number that
    looks like a generated one moves the sequence past it, so the two never meet. Only a
    chosen number is looked up."""
    if number is None:
        return next_number(op, prefix)
    column = model.__table__.c.number
    if op.session.execute(select(column).where(column == number)).first() is not None:
        raise Conflict(f"number {number!r} is already used", field="number")
    generated = re.fullmatch(rf"{re.escape(prefix)}-0*(\d{{1,9}})", number)
    if generated:
        insert = _upsert(op.dialect)
        value = int(generated.group(1))
        conn = op.session.connection()
        conn.execute(insert(SEQUENCES).values(name=prefix, value=0)
                     .on_conflict_do_nothing(index_elements=["name"]))
        conn.execute(update(SEQUENCES).where(SEQUENCES.c.name == prefix,
                                             SEQUENCES.c.value < value).values(value=value))
    return number
