"""Sales orders and their lines: what a customer ordered and how much of it was shipped
(or came back)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, OrderLineColumns, Remarked, Versioned, lines_of
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location
from shopfloor.store.tables.partners import Customer


class SalesOrder(Remarked, Versioned, Base):
    __tablename__ = "sales_orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    status: Mapped[str] = mapped_column(String(24), index=True)
    due_date: Mapped[date | None] = mapped_column(Date)
    currency: Mapped[str | None] = mapped_column(String(3))  # None: the company's
    created_at: Mapped[datetime]

    customer: Mapped[Customer] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[SalesOrderLine]] = lines_of("SalesOrderLine")


class SalesOrderLine(OrderLineColumns, Base):
    __tablename__ = "sales_order_lines"
    order_id: Mapped[int] = mapped_column(ForeignKey("sales_orders.id"), index=True)
    fulfilled_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    returned_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    item: Mapped[Item] = relationship(lazy="joined")
