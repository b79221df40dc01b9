"""Manufacturing orders and the components each one consumes (the recipe as it stood when
the order was made)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import (
    ZERO,
    Base,
    DocumentLine,
    Remarked,
    Versioned,
    lines_of,
    parent_key,
)
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.locations import Location


class ManufacturingOrder(Remarked, Versioned, Base):
    __tablename__ = "manufacturing_orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    quantity: Mapped[Decimal]
    completed_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    scrapped_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    status: Mapped[str] = mapped_column(String(24), index=True)
    due_date: Mapped[date | None] = mapped_column(Date)
    by_products: Mapped[list[Any] | None] = mapped_column(JSON)  # [[item_id, qty, share]]
    created_at: Mapped[datetime]

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    components: Mapped[list[ManufacturingComponent]] = lines_of("ManufacturingComponent")


class ManufacturingComponent(DocumentLine, Base):
    """The recipe as it stood when the order was made: later recipe edits don't rewrite it."""

    __tablename__ = "manufacturing_components"
    order_id: Mapped[int] = parent_key("manufacturing_orders")
    quantity_per_unit: Mapped[Decimal]
    attrition_percent: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    setup_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    rounding_multiple: Mapped[Decimal | None]
    item: Mapped[Item] = relationship(lazy="joined")
