"""Buying in the supplier's terms: what each supplier sells an item as (its unit, pack,
minimum, multiple, lead time and price breaks, in its currency), the company's exchange
rates by date, and what a recipe gives besides its product (by-products)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, Item, Supplier, Versioned


class SupplierItem(Versioned, Base):
    """One supplier's offer of one item; `price_breaks` is [[min_quantity, unit_price],
    ...] as strings, ascending, in purchase units and the supplier's currency (read whole
    with the row: MRP reads every offer in one query)."""

    __tablename__ = "supplier_items"
    __table_args__ = (UniqueConstraint("item_id", "supplier_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id"), index=True)
    supplier_sku: Mapped[str | None] = mapped_column(String(64))
    purchase_unit: Mapped[str] = mapped_column(String(32))
    units_per_purchase_unit: Mapped[Decimal]
    minimum_order: Mapped[Decimal] = mapped_column(default=ZERO)
    order_multiple: Mapped[Decimal | None]
    lead_time_days: Mapped[int] = mapped_column(Integer, default=0)
    price_breaks: Mapped[list[Any]] = mapped_column(JSON, default=list)
    preferred: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime]

    item: Mapped[Item] = relationship(lazy="joined")
    supplier: Mapped[Supplier] = relationship(lazy="joined")


class ExchangeRate(Base):
    """Company currency per unit of `currency`, from `valid_from` until the next rate."""

    __tablename__ = "exchange_rates"
    __table_args__ = (UniqueConstraint("currency", "valid_from"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    currency: Mapped[str] = mapped_column(String(3))
    rate: Mapped[Decimal]
    valid_from: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime]


class RecipeByProduct(Base):
    """What making one unit of the product also gives, and the share of the cost it
    carries; the product's version covers these rows as it covers its recipe."""

    __tablename__ = "recipe_by_products"
    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    cost_share_percent: Mapped[Decimal] = mapped_column(default=ZERO)

    item: Mapped[Item] = relationship(foreign_keys=[item_id], lazy="joined")
