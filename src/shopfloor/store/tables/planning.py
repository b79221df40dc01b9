"""Pegging: which needs an order was placed for.

An order created from an MRP plan remembers the needs the plan pegged it to (a sales
order, a parent manufacturing order, or safety stock), each with its date and quantity,
so the order can say what it is for long after the plan is gone. The rows name documents
by number (numbers never change) and are written once, when the plan is applied.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base


class Peg(Base):
    __tablename__ = "pegs"
    __table_args__ = (
        Index("ix_pegs_purchase_order", "purchase_order_id"),
        Index("ix_pegs_manufacturing_order", "manufacturing_order_id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    # the supply: a purchase order line (order + item) or a manufacturing order
    purchase_order_id: Mapped[int | None] = mapped_column(ForeignKey("purchase_orders.id"))
    manufacturing_order_id: Mapped[int | None] = mapped_column(
        ForeignKey("manufacturing_orders.id"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    # the need: kind is sales_order, manufacturing_order or safety_stock
    need_kind: Mapped[str] = mapped_column(String(32))
    need_number: Mapped[str | None] = mapped_column(String(64))
    need_date: Mapped[date] = mapped_column(Date)
    quantity: Mapped[Decimal]
