"""Purchase orders and their lines: what the company ordered from a supplier and how much
of it came in (or went back)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, OrderHead, OrderLineColumns, lines_of
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location
from shopfloor.store.tables.partners import Supplier


class PurchaseOrder(OrderHead, Base):
    __tablename__ = "purchase_orders"
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id"),
                                             sort_order=OrderHead.PARTNER)
    expected_date: Mapped[date | None] = mapped_column(Date, sort_order=OrderHead.DATE)

    supplier: Mapped[Supplier] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[PurchaseOrderLine]] = lines_of("PurchaseOrderLine")


class PurchaseOrderLine(OrderLineColumns, Base):
    __tablename__ = "purchase_order_lines"
    order_id: Mapped[int] = mapped_column(ForeignKey("purchase_orders.id"), index=True)
    received_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    expected_date: Mapped[date | None] = mapped_column(Date)  # None: the order's date
    returned_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    # the supplier's unit: quantities above are stock units, unit_price is per `unit`
    unit: Mapped[str | None] = mapped_column(String(32))
    units_per_unit: Mapped[Decimal | None]
    # in `unit` exactly (None: in stock units); the stock figures are these rounded once
    unit_quantity: Mapped[Decimal | None]
    unit_received: Mapped[Decimal | None]
    unit_returned: Mapped[Decimal | None]
    item: Mapped[Item] = relationship(lazy="joined")
