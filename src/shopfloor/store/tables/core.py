"""The schema's base: what every table module imports, and the two tables every process
reads (the database's own settings and the document number counters). Mutable rows carry
a `version` that every update bumps.

The version is what makes previews honest: a preview token remembers the version of every
row the preview read, and the apply is refused if any of them moved.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, MetaData, String, Table, Text
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Relationship,
    declared_attr,
    mapped_column,
    relationship,
)

from shopfloor.kernel import keys
from shopfloor.store.types import Dec, UtcDateTime

ZERO = Decimal(0)

naming = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=naming)
    type_annotation_map = {Decimal: Dec(), dict[str, Any]: JSON(), datetime: UtcDateTime()}


class Versioned:
    """Rows whose updates are optimistic-locked (UPDATE ... WHERE version = read version)
    and whose versions previews remember."""

    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.version}  # type: ignore[attr-defined]


class Meta(Base):
    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Sequence(Base):
    """Document number counters (PO-00001 ...), bumped by one atomic UPDATE ... RETURNING.

    Not versioned on purpose: a number assigned at apply time is not something a preview
    promised, so another user's new order must not make this preview stale.
    """

    __tablename__ = "sequences"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(Integer, default=0)


def skeleton_of(key: str) -> Mapped[str | None]:
    """A column holding what the key column `key` looks like (keys.skeleton), filled on
    insert however the row is made, indexed: a new key's look-alikes are one indexed
    read. Keys are never renamed, so it is never recomputed on update."""
    def fold(context: Any) -> str:
        return keys.skeleton(context.get_current_parameters()[key])

    return mapped_column(Text, index=True, default=fold)


class DocumentLine:
    """What a document's line begins with: its id, its document (`parent_key`, each
    table's own), its item and its place on the document. The sort orders put these
    columns first, where the migrations made them (a mixin's columns go last otherwise):
    the id (-3), the parent (-2), then the mixin's others (-1), then the table's own."""

    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-3)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), sort_order=-1)
    position: Mapped[int] = mapped_column(Integer, default=0, sort_order=-1)


def parent_key(table: str) -> Mapped[int]:
    """The row of `table` a line or a step belongs to, indexed: its second column."""
    return mapped_column(ForeignKey(f"{table}.id"), index=True, sort_order=-2)


def lines_of(line: str, **more: Any) -> Relationship[Any]:
    """A document's lines (the class `line`), in their order on it, deleted with it."""
    return relationship(order_by=f"{line}.position", cascade="all, delete-orphan", **more)


class OrderLineColumns:
    """The columns a purchase order's line and a sales order's share."""

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    unit_price: Mapped[Decimal] = mapped_column(default=ZERO)


class Remarked:  # a document's notes, and the partner's own number for it (their PO, RMA)
    notes: Mapped[str | None] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(String(100))


class OrderHead(Remarked, Versioned):
    """The head a purchase order and a sales order share. Each kind declares its partner's
    key and its date, with the sort orders `PARTNER` and `DATE`, which put every column
    where the migrations made it: id, number, the partner, location, status, the date,
    currency, created_at, then notes, reference and version."""

    PARTNER, DATE = -3, -1
    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-4)
    number: Mapped[str] = mapped_column(String(64), unique=True, sort_order=-4)
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"), sort_order=-2)
    status: Mapped[str] = mapped_column(String(24), index=True, sort_order=-2)
    currency: Mapped[str | None] = mapped_column(String(3))  # None: the company's
    created_at: Mapped[datetime]


def table(model: type[Base]) -> Table:
    """A mapped class's table, for the batched write path's plain INSERT/UPDATE statements."""
    found = model.__table__
    assert isinstance(found, Table)
    return found
