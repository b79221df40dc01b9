"""What the company stocks, buys, sells and makes, and what each product's recipe takes."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import Boolean, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import ZERO, Base, Versioned, skeleton_of
from shopfloor.store.tables.partners import Supplier


class Item(Versioned, Base):
    __tablename__ = "items"
    id: Mapped[int] = mapped_column(primary_key=True)
    sku: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    uom: Mapped[str] = mapped_column(String(16), default="pcs")
    purchase_price: Mapped[Decimal] = mapped_column(default=ZERO)
    sales_price: Mapped[Decimal] = mapped_column(default=ZERO)
    reorder_point: Mapped[Decimal] = mapped_column(default=ZERO)
    reorder_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    lead_time_days: Mapped[int] = mapped_column(Integer, default=0)
    order_multiple: Mapped[Decimal | None]  # planning: order in packs of this (None: any)
    # 0: lot for lot
    supply_period_days: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    default_supplier_id: Mapped[int | None] = mapped_column(ForeignKey("suppliers.id"))
    batch_tracked: Mapped[bool] = mapped_column(Boolean, default=False)
    serial_tracked: Mapped[bool] = mapped_column(Boolean, default=False,
                                                 server_default=false())
    lot_numbering: Mapped[str | None] = mapped_column(String(64))
    shelf_life_days: Mapped[int | None] = mapped_column(Integer)
    gtin: Mapped[str | None] = mapped_column(String(14), index=True)  # as given: zeros kept
    weight: Mapped[Decimal | None]  # kg per stock unit: what landed costs allocate by weight
    precision: Mapped[int | None] = mapped_column(Integer)  # decimal places (None: the uom's)
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    sku_skeleton: Mapped[str | None] = skeleton_of("sku")

    default_supplier: Mapped[Supplier | None] = relationship(lazy="joined")
    recipe_lines: Mapped[list[RecipeLine]] = relationship(
        foreign_keys="RecipeLine.product_id",
        order_by="RecipeLine.position",
        cascade="all, delete-orphan",
    )


class RecipeLine(Base):
    """One component of an item's recipe; the item's version covers its recipe."""

    __tablename__ = "recipe_lines"
    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    component_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    attrition_percent: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    setup_quantity: Mapped[Decimal] = mapped_column(default=ZERO, server_default="0")
    rounding_multiple: Mapped[Decimal | None]

    component: Mapped[Item] = relationship(foreign_keys=[component_id], lazy="joined")
