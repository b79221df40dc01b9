"""Document numbers: PO-00001, SO-00001, MO-00001, ADJ-00001, TR-00001."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from shopfloor.domain.context import Op
from shopfloor.registry.errors import Conflict
from shopfloor.store.tables import Base, Sequence


def next_number(op: Op, prefix: str) -> str:
    """One atomic UPDATE ... RETURNING: concurrent writers queue on the row, never collide."""
    stmt = (update(Sequence).where(Sequence.name == prefix)
            .values(value=Sequence.value + 1).returning(Sequence.value))
    value = op.session.execute(stmt).scalar_one_or_none()
    if value is None:
        insert = pg_insert if op.dialect == "postgresql" else sqlite_insert
        op.session.execute(insert(Sequence).values(name=prefix, value=0)
                           .on_conflict_do_nothing(index_elements=["name"]))
        value = op.session.execute(stmt).scalar_one()
    return f"{prefix}-{value:05d}"


def claim_number(op: Op, model: type[Base], number: str | None, prefix: str) -> str:
    """A caller-chosen number must be unused; otherwise the next free one is generated."""
    column = model.__table__.c.number
    if number is None:
        while True:
            candidate = next_number(op, prefix)
            if op.session.execute(select(column).where(column == candidate)).first() is None:
                return candidate
    if op.session.execute(select(column).where(column == number)).first() is not None:
        raise Conflict(f"number {number!r} is already used", field="number")
    return number
