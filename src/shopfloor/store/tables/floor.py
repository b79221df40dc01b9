"""The shop floor: work centres, routings, and the operations of manufacturing orders.

A routing belongs to an item and is replaced whole; an order copies it into its own
operations when it is made (like its components), so a later routing change does not
rewrite what the floor was told, and time is logged against the order's copy.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, Versioned, parent_key


class WorkCentre(Versioned, Base):
    __tablename__ = "work_centres"
    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    hourly_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    capacity: Mapped[int] = mapped_column(Integer, default=1)
    efficiency_percent: Mapped[Decimal] = mapped_column(default=Decimal(100))
    # [{days: [mon ...], start: "HH:MM", end: "HH:MM"}] and ["YYYY-MM-DD", ...]
    calendar: Mapped[list[Any]] = mapped_column(JSON)
    closed_dates: Mapped[list[Any]] = mapped_column(JSON)
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC")


class Step:
    """One step of a routing, as the item's routing holds it and as an order copies it:
    its id, the row it belongs to (`parent_key`, each table's own), then these, in the
    order the migrations made them (core.DocumentLine says how the sort orders do it)."""

    id: Mapped[int] = mapped_column(primary_key=True, sort_order=-3)
    sequence: Mapped[int] = mapped_column(Integer, sort_order=-1)
    name: Mapped[str] = mapped_column(String(200), sort_order=-1)
    work_centre_id: Mapped[int] = mapped_column(ForeignKey("work_centres.id"), sort_order=-1)
    setup_minutes: Mapped[Decimal] = mapped_column(sort_order=-1)
    run_minutes: Mapped[Decimal] = mapped_column(sort_order=-1)


class RoutingOperation(Step, Base):
    __tablename__ = "routing_operations"
    __table_args__ = (UniqueConstraint("item_id", "sequence",
                                       name="uq_routing_operations_item_sequence"),)
    item_id: Mapped[int] = parent_key("items")
    work_centre: Mapped[WorkCentre] = relationship(lazy="joined")


class OrderOperation(Step, Versioned, Base):
    """An order's copy of one routing step, where it is planned and what was logged."""

    __tablename__ = "manufacturing_operations"
    __table_args__ = (Index("ix_manufacturing_operations_centre_start", "work_centre_id",
                            "planned_start"),)
    order_id: Mapped[int] = parent_key("manufacturing_orders")
    planned_minutes: Mapped[Decimal]
    planned_start: Mapped[datetime | None]
    planned_finish: Mapped[datetime | None]
    logged_minutes: Mapped[Decimal] = mapped_column(default=ZERO)
    logged_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    status: Mapped[str] = mapped_column(String(24))
    work_centre: Mapped[WorkCentre] = relationship(lazy="joined")
