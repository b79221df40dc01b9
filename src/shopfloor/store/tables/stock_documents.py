"""The stock documents that are neither bought, sold nor made: adjustments (counts and
write-offs at one location) and transfers (from one location to another)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, DocumentLine, Versioned, lines_of, parent_key
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location


class StockAdjustment(Versioned, Base):
    __tablename__ = "stock_adjustments"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    reason: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime]

    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[StockAdjustmentLine]] = lines_of("StockAdjustmentLine")


class StockAdjustmentLine(DocumentLine, Base):
    __tablename__ = "stock_adjustment_lines"
    adjustment_id: Mapped[int] = parent_key("stock_adjustments")
    quantity_delta: Mapped[Decimal]
    counted_quantity: Mapped[Decimal | None]
    counted_at: Mapped[datetime | None]
    unit_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    item: Mapped[Item] = relationship(lazy="joined")


class StockTransfer(Versioned, Base):
    __tablename__ = "stock_transfers"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    from_location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    to_location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    created_at: Mapped[datetime]

    from_location: Mapped[Location] = relationship(foreign_keys=[from_location_id], lazy="joined")
    to_location: Mapped[Location] = relationship(foreign_keys=[to_location_id], lazy="joined")
    lines: Mapped[list[StockTransferLine]] = lines_of("StockTransferLine")


class StockTransferLine(DocumentLine, Base):
    __tablename__ = "stock_transfer_lines"
    transfer_id: Mapped[int] = parent_key("stock_transfers")
    quantity: Mapped[Decimal]
    unit_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    item: Mapped[Item] = relationship(lazy="joined")
