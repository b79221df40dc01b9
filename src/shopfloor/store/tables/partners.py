"""Who the company buys from and sells to: a supplier's details and a customer's are the
same, and a supplier adds how far its bills may stray from its orders."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import ZERO, Base, Versioned, skeleton_of


class _Partner(Versioned):  # a supplier's details and a customer's are the same
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    email: Mapped[str | None] = mapped_column(String(320))
    phone: Mapped[str | None] = mapped_column(String(64))
    currency: Mapped[str | None] = mapped_column(String(3))  # None: the company's
    contact: Mapped[str | None] = mapped_column(String(200))
    address: Mapped[str | None] = mapped_column(Text)  # lines joined by newlines
    tax_id: Mapped[str | None] = mapped_column(String(64))
    payment_terms_days: Mapped[int | None] = mapped_column(Integer)
    lead_time_days: Mapped[int | None] = mapped_column(Integer)  # a default for its items
    name_skeleton: Mapped[str | None] = skeleton_of("name")


class Supplier(_Partner, Base):
    __tablename__ = "suppliers"
    # how far a bill's price may differ from the order's and post itself (either suffices)
    bill_tolerance_percent: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    bill_tolerance_amount: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")


class Customer(_Partner, Base):
    __tablename__ = "customers"
