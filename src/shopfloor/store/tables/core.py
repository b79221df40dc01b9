"""The schema. Mutable rows carry a `version` that every update bumps.

The version is what makes previews honest: a preview token remembers the version of every
row the preview read, and the apply is refused if any of them moved.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column, relationship

from shopfloor.kernel import keys
from shopfloor.store.types import Dec, UtcDateTime

ZERO = Decimal(0)

naming = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=naming)
    type_annotation_map = {Decimal: Dec(), dict[str, Any]: JSON(), datetime: UtcDateTime()}


class Versioned:
    """Rows whose updates are optimistic-locked (UPDATE ... WHERE version = read version)
    and whose versions previews remember."""

    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)

    @declared_attr.directive
    def __mapper_args__(cls) -> dict[str, Any]:
        return {"version_id_col": cls.__table__.c.version}  # type: ignore[attr-defined]


class Meta(Base):
    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Sequence(Base):
    """Document number counters (PO-00001 ...), bumped by one atomic UPDATE ... RETURNING.

    Not versioned on purpose: a number assigned at apply time is not something a preview
    promised, so another user's new order must not make this preview stale.
    """

    __tablename__ = "sequences"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(Integer, default=0)


def skeleton_of(key: str) -> Mapped[str | None]:
    """A column holding what the key column `key` looks like (keys.skeleton), filled on
    insert however the row is made, indexed: a new key's look-alikes are one indexed
    read. Keys are never renamed, so it is never recomputed on update."""
    def fold(context: Any) -> str:
        return keys.skeleton(context.get_current_parameters()[key])

    return mapped_column(Text, index=True, default=fold)


class Location(Versioned, Base):
    __tablename__ = "locations"
    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    allow_negative: Mapped[bool] = mapped_column(Boolean, default=False)
    code_skeleton: Mapped[str | None] = skeleton_of("code")


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
    bill_tolerance_percent: Mapped[Decimal] = mapped_column(default=ZERO)
    bill_tolerance_amount: Mapped[Decimal] = mapped_column(default=ZERO)


class Customer(_Partner, Base):
    __tablename__ = "customers"


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
    supply_period_days: Mapped[int] = mapped_column(Integer, default=0)  # 0: lot for lot
    default_supplier_id: Mapped[int | None] = mapped_column(ForeignKey("suppliers.id"))
    batch_tracked: Mapped[bool] = mapped_column(Boolean, default=False)
    serial_tracked: Mapped[bool] = mapped_column(Boolean, default=False)
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
    attrition_percent: Mapped[Decimal] = mapped_column(default=ZERO)
    setup_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    rounding_multiple: Mapped[Decimal | None]

    component: Mapped[Item] = relationship(foreign_keys=[component_id], lazy="joined")


class Batch(Versioned, Base):
    """A lot of an item, or one serial number (a lot of one unit). Versioned: a hold makes
    every preview that picked from the lot stale."""

    __tablename__ = "batches"
    __table_args__ = (UniqueConstraint("item_id", "lot_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    lot_number: Mapped[str] = mapped_column(String(64))
    expiry: Mapped[date | None] = mapped_column(Date)
    held: Mapped[bool] = mapped_column(Boolean, default=False)
    hold_reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime | None]


class Balance(Versioned, Base):
    """Derived from the ledger in the same transaction; reads are O(1) in ledger size."""

    __tablename__ = "balances"
    __table_args__ = (UniqueConstraint("item_id", "location_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"), index=True)
    on_hand: Mapped[Decimal] = mapped_column(default=ZERO)
    committed: Mapped[Decimal] = mapped_column(default=ZERO)
    average_cost: Mapped[Decimal] = mapped_column(default=ZERO)  # stock_value / on_hand, shown
    stock_value: Mapped[Decimal] = mapped_column(default=ZERO)  # the sum of its ledger values

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")


class StockMovement(Base):
    """The ledger: append-only; history is corrected by reversing rows, never edited."""

    __tablename__ = "stock_movements"
    __table_args__ = (
        Index("ix_movements_item_location_id", "item_id", "location_id", "id"),
        Index("ix_movements_item_id", "item_id", "id"),
        # what a valuation sums over a time range, read from the index alone
        Index("ix_movements_at", "created_at", "item_id", "location_id", "quantity", "value",
              "reason", "document_type", "document_number"),
        Index("ix_movements_batch", "batch_id", "id"),
        Index("ix_movements_document", "document_number", "document_type"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("batches.id"))
    quantity: Mapped[Decimal]
    unit_cost: Mapped[Decimal]
    value: Mapped[Decimal] = mapped_column(default=ZERO)  # the signed change of stock value
    reason: Mapped[str] = mapped_column(String(32))
    document_type: Mapped[str | None] = mapped_column(String(32))
    document_number: Mapped[str | None] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(200))
    operation_id: Mapped[str | None] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime]

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    batch: Mapped[Batch | None] = relationship(lazy="joined")


class _OrderLine:
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    unit_price: Mapped[Decimal] = mapped_column(default=ZERO)


class Remarked:  # a document's notes, and the partner's own number for it (their PO, RMA)
    notes: Mapped[str | None] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(String(100))


class PurchaseOrder(Remarked, Versioned, Base):
    __tablename__ = "purchase_orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    status: Mapped[str] = mapped_column(String(24), index=True)
    expected_date: Mapped[date | None] = mapped_column(Date)
    currency: Mapped[str | None] = mapped_column(String(3))  # None: the company's
    created_at: Mapped[datetime]

    supplier: Mapped[Supplier] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[PurchaseOrderLine]] = relationship(
        order_by="PurchaseOrderLine.position", cascade="all, delete-orphan"
    )


class PurchaseOrderLine(_OrderLine, Base):
    __tablename__ = "purchase_order_lines"
    order_id: Mapped[int] = mapped_column(ForeignKey("purchase_orders.id"), index=True)
    received_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    expected_date: Mapped[date | None] = mapped_column(Date)  # None: the order's date
    returned_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    # the supplier's unit: quantities above are stock units, unit_price is per `unit`
    unit: Mapped[str | None] = mapped_column(String(32))
    units_per_unit: Mapped[Decimal | None]
    # in `unit` exactly (None: in stock units); the stock figures are these rounded once
    unit_quantity: Mapped[Decimal | None]
    unit_received: Mapped[Decimal | None]
    unit_returned: Mapped[Decimal | None]
    item: Mapped[Item] = relationship(lazy="joined")


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
    lines: Mapped[list[SalesOrderLine]] = relationship(
        order_by="SalesOrderLine.position", cascade="all, delete-orphan"
    )


class SalesOrderLine(_OrderLine, Base):
    __tablename__ = "sales_order_lines"
    order_id: Mapped[int] = mapped_column(ForeignKey("sales_orders.id"), index=True)
    fulfilled_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    returned_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    item: Mapped[Item] = relationship(lazy="joined")


class ManufacturingOrder(Remarked, Versioned, Base):
    __tablename__ = "manufacturing_orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    quantity: Mapped[Decimal]
    completed_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    scrapped_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    status: Mapped[str] = mapped_column(String(24), index=True)
    due_date: Mapped[date | None] = mapped_column(Date)
    by_products: Mapped[list[Any] | None] = mapped_column(JSON)  # [[item_id, qty, share]]
    created_at: Mapped[datetime]

    item: Mapped[Item] = relationship(lazy="joined")
    location: Mapped[Location] = relationship(lazy="joined")
    components: Mapped[list[ManufacturingComponent]] = relationship(
        order_by="ManufacturingComponent.position", cascade="all, delete-orphan"
    )


class ManufacturingComponent(Base):
    """The recipe as it stood when the order was made: later recipe edits don't rewrite it."""

    __tablename__ = "manufacturing_components"
    id: Mapped[int] = mapped_column(primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("manufacturing_orders.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity_per_unit: Mapped[Decimal]
    attrition_percent: Mapped[Decimal] = mapped_column(default=ZERO)
    setup_quantity: Mapped[Decimal] = mapped_column(default=ZERO)
    rounding_multiple: Mapped[Decimal | None]
    item: Mapped[Item] = relationship(lazy="joined")


class StockAdjustment(Versioned, Base):
    __tablename__ = "stock_adjustments"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    reason: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime]

    location: Mapped[Location] = relationship(lazy="joined")
    lines: Mapped[list[StockAdjustmentLine]] = relationship(
        order_by="StockAdjustmentLine.position", cascade="all, delete-orphan"
    )


class StockAdjustmentLine(Base):
    __tablename__ = "stock_adjustment_lines"
    id: Mapped[int] = mapped_column(primary_key=True)
    adjustment_id: Mapped[int] = mapped_column(ForeignKey("stock_adjustments.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity_delta: Mapped[Decimal]
    counted_quantity: Mapped[Decimal | None]
    counted_at: Mapped[datetime | None]
    unit_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    item: Mapped[Item] = relationship(lazy="joined")


class StockTransfer(Versioned, Base):
    __tablename__ = "stock_transfers"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    from_location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    to_location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    created_at: Mapped[datetime]

    from_location: Mapped[Location] = relationship(foreign_keys=[from_location_id], lazy="joined")
    to_location: Mapped[Location] = relationship(foreign_keys=[to_location_id], lazy="joined")
    lines: Mapped[list[StockTransferLine]] = relationship(
        order_by="StockTransferLine.position", cascade="all, delete-orphan"
    )


class StockTransferLine(Base):
    __tablename__ = "stock_transfer_lines"
    id: Mapped[int] = mapped_column(primary_key=True)
    transfer_id: Mapped[int] = mapped_column(ForeignKey("stock_transfers.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    quantity: Mapped[Decimal]
    unit_cost: Mapped[Decimal] = mapped_column(default=ZERO)
    item: Mapped[Item] = relationship(lazy="joined")


def table(model: type[Base]) -> Table:
    """A mapped class's table, for the batched write path's plain INSERT/UPDATE statements."""
    found = model.__table__
    assert isinstance(found, Table)
    return found


