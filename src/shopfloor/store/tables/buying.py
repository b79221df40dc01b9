"""Buying in the supplier's terms: what each supplier sells an item as (its unit, pack,
minimum, multiple, lead time and price breaks, in its currency), the company's exchange
rates by date, what a recipe gives besides its product (by-products), and the landed
costs (freight, duty) added to what a purchase order brought in."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, DocumentLine, Versioned, lines_of, parent_key
from shopfloor.store.tables.items import Item
from shopfloor.store.tables.partners import Supplier
from shopfloor.store.tables.purchasing import PurchaseOrder


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


class RecipeByProduct(DocumentLine, Base):
    """What making one unit of the product also gives, and the share of the cost it
    carries; the product's version covers these rows as it covers its recipe."""

    __tablename__ = "recipe_by_products"
    product_id: Mapped[int] = parent_key("items")
    quantity: Mapped[Decimal]
    cost_share_percent: Mapped[Decimal] = mapped_column(default=ZERO)

    item: Mapped[Item] = relationship(foreign_keys="RecipeByProduct.item_id", lazy="joined")


class LandedCost(Base):
    """A cost of bringing a purchase order's goods in, allocated over its lines: `amount`
    in `currency`, `company_amount` what it came to at `rate` on its day. Written once;
    a revert answers it in the ledger (the `reverts` row says so), never by editing it."""

    __tablename__ = "landed_costs"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("purchase_orders.id"), index=True)
    receipt_operation_id: Mapped[str | None] = mapped_column(String(36))  # None: every receipt
    amount: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(String(3))
    rate: Mapped[Decimal]
    company_amount: Mapped[Decimal]
    allocate_by: Mapped[str] = mapped_column(String(16))
    description: Mapped[str] = mapped_column(Text, default="")
    operation_id: Mapped[str | None] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime]

    order: Mapped[PurchaseOrder] = relationship(lazy="joined")
    lines: Mapped[list[LandedCostLine]] = lines_of("LandedCostLine")


class LandedCostLine(DocumentLine, Base):
    """One purchase line's share: `base` is what it was allocated by (received value,
    quantity or weight), `capitalised` went onto stock still on hand, `expensed` left
    with goods already gone; the two sum to `share`."""

    __tablename__ = "landed_cost_lines"
    landed_cost_id: Mapped[int] = parent_key("landed_costs")
    quantity: Mapped[Decimal]
    base: Mapped[Decimal]
    share: Mapped[Decimal]
    capitalised: Mapped[Decimal] = mapped_column(default=ZERO)
    expensed: Mapped[Decimal] = mapped_column(default=ZERO)

    item: Mapped[Item] = relationship(lazy="joined")
