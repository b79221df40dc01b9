"""Sales orders and their lines: what a customer ordered and how much of it was shipped
(or came back)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, OrderHead, OrderLineColumns, lines_of
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location
from shopfloor.store.tables.partners import Customer


class SalesOrder(OrderHead, Base):
    __tablename__ = "sales_orders"
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"),
                                             sort_order=OrderHead.PARTNER)
    due_date: Mapped[date | None] = mapped_column(Date, sort_order=OrderHead.DATE)

    customer: Mapped[Customer] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[SalesOrderLine]] = lines_of("SalesOrderLine")


class SalesOrderLine(OrderLineColumns, Base):
    __tablename__ = "sales_order_lines"
    order_id: Mapped[int] = mapped_column(ForeignKey("sales_orders.id"), index=True)
    fulfilled_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    returned_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    item: Mapped[Item] = relationship(lazy="joined")
