"""Value that left the stock books (issue 21).

Every ledger row carries its value and a balance's value is the sum of its rows. When a
document moves more or less value than the stock can carry (a supplier return at a
receipt's cost above what the stock holds, a price correction's share of goods that have
already left), the difference is not a stock row: it is a variance here, naming the
document that caused it and, for a price correction's share, the document that took it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base

__all__ = ["Variance"]


class Variance(Base):
    """`amount` is the document's value minus what its ledger rows moved: positive is an
    expense (value gone elsewhere than stock), negative a gain."""

    __tablename__ = "variances"
    __table_args__ = (
        Index("ix_variances_item_location", "item_id", "location_id", "id"),
        Index("ix_variances_created", "created_at"),
        Index("ix_variances_document", "document_number", "document_type"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batches.id"))
    amount: Mapped[Decimal]
    kind: Mapped[str] = mapped_column(String(32))
    document_type: Mapped[str | None] = mapped_column(String(32))
    document_number: Mapped[str | None] = mapped_column(String(64))
    operation_id: Mapped[str | None] = mapped_column(String(36), index=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime]
