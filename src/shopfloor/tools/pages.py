"""A page of one table's rows, newest first: what the list tools over a single table
read, each with its own filters."""

from __future__ import annotations

from typing import Protocol, TypeVar

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import InstrumentedAttribute

from shopfloor.domain.base.context import Op
from shopfloor.tools.fields import paged


class Numbered(Protocol):
    @property
    def id(self) -> int: ...


R = TypeVar("R", bound=Numbered)


def newest_first(op: Op, table: type[R], limit: int, cursor: str | None,
                 *where: ColumnElement[bool] | None) -> tuple[list[R], str | None]:
    """The rows meeting every condition (None: a filter not asked for), from the one
    after the cursor's on, and the cursor to the next page. Ids only grow, so newest
    first is highest id first, and a cursor is the id a page ended on (`RowCursor`)."""
    # on the class, `id` is the column a row reads as an int
    key: InstrumentedAttribute[int] = table.id  # type: ignore[assignment]
    stmt = select(table).where(*(w for w in where if w is not None))
    if cursor:
        stmt = stmt.where(key < int(cursor))
    rows = op.session.scalars(stmt.order_by(key.desc()).limit(limit + 1)).unique()
    return paged(list(rows), limit, lambda r: str(r.id))
