"""Finding things by the keys people type: SKU, location code, partner name, number.

Every lookup names the argument it came from, so a not-found error points at the field.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import InstrumentedAttribute

from shopfloor.domain.context import Op
from shopfloor.registry.errors import NotFound
from shopfloor.store.tables import (
    Base,
    Customer,
    Item,
    Location,
    ManufacturingOrder,
    PurchaseOrder,
    SalesOrder,
    StockAdjustment,
    Supplier,
)

M = TypeVar("M", bound=Base)


def _by(op: Op, model: type[M], column: InstrumentedAttribute[Any], value: Any, *,
        what: str, fld: str, lock: bool) -> M:
    stmt = select(model).where(column == value)
    if lock:
        stmt = op.lock(stmt)
    found = op.session.scalars(stmt).unique().one_or_none()
    if found is None:
        raise NotFound(f"no {what} {value!r}", field=fld)
    return found


def item(op: Op, sku: str, *, fld: str = "sku", lock: bool = False,
         include_archived: bool = False) -> Item:
    found = _by(op, Item, Item.sku, sku, what="item with SKU", fld=fld, lock=lock)
    if found.archived and not include_archived:
        raise NotFound(f"item {sku!r} is deleted", field=fld)
    return found


def location(op: Op, code: str, *, fld: str = "location") -> Location:
    return _by(op, Location, Location.code, code, what="location", fld=fld, lock=False)


def supplier(op: Op, name: str, *, fld: str = "supplier") -> Supplier:
    return _by(op, Supplier, Supplier.name, name, what="supplier", fld=fld, lock=False)


def customer(op: Op, name: str, *, fld: str = "customer") -> Customer:
    return _by(op, Customer, Customer.name, name, what="customer", fld=fld, lock=False)


def purchase_order(op: Op, number: str, *, fld: str = "number",
                   lock: bool = False) -> PurchaseOrder:
    return _by(op, PurchaseOrder, PurchaseOrder.number, number, what="purchase order",
               fld=fld, lock=lock)


def sales_order(op: Op, number: str, *, fld: str = "number", lock: bool = False) -> SalesOrder:
    return _by(op, SalesOrder, SalesOrder.number, number, what="sales order", fld=fld, lock=lock)


def manufacturing_order(op: Op, number: str, *, fld: str = "number",
                        lock: bool = False) -> ManufacturingOrder:
    return _by(op, ManufacturingOrder, ManufacturingOrder.number, number,
               what="manufacturing order", fld=fld, lock=lock)


def stock_adjustment(op: Op, number: str, *, fld: str = "number",
                     lock: bool = False) -> StockAdjustment:
    return _by(op, StockAdjustment, StockAdjustment.number, number, what="stock adjustment",
               fld=fld, lock=lock)
