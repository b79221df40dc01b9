"""Tables of corrections (issue 12): reverts, returns and documented cost adjustments.

History is never edited: a revert, a return or a correction adds rows here and in the
ledger. `reverts.reverted_operation_id` is unique, so however many reverts of one
operation race, exactly one commits.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, Remarked, Versioned, lines_of
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location


class Revert(Base):
    """One revert of one applied operation: the unique index is the 'only once'."""

    __tablename__ = "reverts"
    id: Mapped[int] = mapped_column(primary_key=True)
    reverted_operation_id: Mapped[str] = mapped_column(String(36), unique=True)
    operation_id: Mapped[str] = mapped_column(String(36), index=True)
    tool: Mapped[str] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]


class StockReturn(Remarked, Versioned, Base):
    """A customer return (against a sales order) or a supplier return (a purchase order)."""

    __tablename__ = "stock_returns"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    order_number: Mapped[str] = mapped_column(String(64), index=True)
    reason: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime]

    lines: Mapped[list[StockReturnLine]] = lines_of("StockReturnLine")


class StockReturnLine(Base):
    __tablename__ = "stock_return_lines"
    id: Mapped[int] = mapped_column(primary_key=True)
    return_id: Mapped[int] = mapped_column(ForeignKey("stock_returns.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    unit_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    disposition: Mapped[str] = mapped_column(String(16))
    lot_number: Mapped[str | None] = mapped_column(String(64))
    # a supplier return of a line bought in the supplier's unit: that unit, its pack and
    # the quantity in it, kept so the return reads as its order does ("2 box (6 pcs)")
    unit: Mapped[str | None] = mapped_column(String(32))
    units_per_unit: Mapped[Decimal | None]
    unit_quantity: Mapped[Decimal | None]

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location | None] = relationship(lazy="joined")


class CostAdjustment(Base):
    """Value that already left stock at a wrong cost (a receipt price corrected after the
    goods were shipped or consumed): documented against the document it left with, since
    that ledger row is history and keeps its cost."""

    __tablename__ = "cost_adjustments"
    id: Mapped[int] = mapped_column(primary_key=True)
    operation_id: Mapped[str] = mapped_column(String(36), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    source_document: Mapped[str] = mapped_column(String(100))
    document_type: Mapped[str | None] = mapped_column(String(32))
    document_number: Mapped[str | None] = mapped_column(String(64))
    amount: Mapped[Decimal]
    created_at: Mapped[datetime]
