"""The stock ledger and what is derived from it: every movement (append-only), the balance
of each item at each location, and the lots and serial numbers the movements name."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, Versioned
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location


class Batch(Versioned, Base):
    """A lot of an item, or one serial number (a lot of one unit). Versioned: a hold makes
    every preview that picked from the lot stale."""

    __tablename__ = "batches"
    __table_args__ = (UniqueConstraint("item_id", "lot_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    lot_number: Mapped[str] = mapped_column(String(64))
    expiry: Mapped[date | None] = mapped_column(Date)
    held: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    hold_reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime | None]
    # (Versioned's, with the default migration 0006 gave the lots already made)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1, server_default="1")


class Balance(Versioned, Base):
    """Derived from the ledger in the same transaction; reads are O(1) in ledger size."""

    __tablename__ = "balances"
    __table_args__ = (UniqueConstraint("item_id", "location_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"), index=True)
    on_hand: Mapped[Decimal] = mapped_column(default=ZERO)
    committed: Mapped[Decimal] = mapped_column(default=ZERO)
    average_cost: Mapped[Decimal] = mapped_column(default=ZERO)  # stock_value / on_hand, shown
    # the sum of its ledger values
    stock_value: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")


class StockMovement(Base):
    """The ledger: append-only; history is corrected by reversing rows, never edited."""

    __tablename__ = "stock_movements"
    __table_args__ = (
        Index("ix_movements_item_location_id", "item_id", "location_id", "id"),
        Index("ix_movements_item_id", "item_id", "id"),
        # what a valuation sums over a time range, read from the index alone
        Index("ix_movements_at", "created_at", "item_id", "location_id", "quantity", "value",
              "reason", "document_type", "document_number"),
        Index("ix_movements_batch", "batch_id", "id"),
        Index("ix_movements_document", "document_number", "document_type"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batches.id"))
    quantity: Mapped[Decimal]
    unit_cost: Mapped[Decimal]
    # the signed change of stock value
    value: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    reason: Mapped[str] = mapped_column(String(32))
    document_type: Mapped[str | None] = mapped_column(String(32))
    document_number: Mapped[str | None] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(200))
    operation_id: Mapped[str | None] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime]

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    batch: Mapped[Batch | None] = relationship(lazy="joined")
