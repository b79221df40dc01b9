"""Finding things by the keys people type: SKU, location code, partner name, number.

Every lookup names the argument it came from, so a not-found error points at the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Row, Select, bindparam, select
from sqlalchemy.orm import InstrumentedAttribute

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import NotFound
from shopfloor.store import tables
from shopfloor.store.prepared import Prepared, connection_of
from shopfloor.store.tables import Item, Supplier
from shopfloor.store.tables.core import Base  # (the base alone: see store/tables/)

if TYPE_CHECKING:  # (read as `tables.X` where used: an item's read maps none of theirs)
    from shopfloor.store.tables import (
        Customer,
        Location,
        ManufacturingOrder,
        PurchaseOrder,
        SalesOrder,
        StockAdjustment,
    )

M = TypeVar("M", bound=Base)


_STATEMENTS: dict[tuple[type[Base], str], Select[Any]] = {}


def _statement(model: type[M], column: InstrumentedAttribute[Any]) -> Select[M]:
    """`select(model) where column = :value`, built once per model and column. SQLAlchemy
    keeps a statement's cache key on the statement object, so reusing one skips building
    and keying it again: on SQLite that cost more than running the query."""
    key = (model, column.key)
    found = _STATEMENTS.get(key)
    if found is None:
        found = _STATEMENTS.setdefault(key, select(model).where(column == bindparam("value")))
    return found


def _missing(what: str, value: Any, fld: str) -> NotFound:
    return NotFound(f"no {what} {value!r}", field=fld)


def _by(op: Op, model: type[M], column: InstrumentedAttribute[Any], value: Any, *,
        what: str, fld: str, lock: bool) -> M:
    stmt = _statement(model, column)
    if lock:
        stmt = op.lock(stmt)
    found = op.session.scalars(stmt, {"value": value}).unique().one_or_none()
    if found is None:
        raise _missing(what, value, fld)
    return found


def _deleted(sku: str, fld: str) -> NotFound:
    return NotFound(f"item {sku!r} is deleted", field=fld)


def item(op: Op, sku: str, *, fld: str = "sku", lock: bool = False,
         include_archived: bool = False) -> Item:
    found = _by(op, Item, Item.sku, sku, what="item with SKU", fld=fld, lock=lock)
    if found.archived and not include_archived:
        raise _deleted(sku, fld)
    return found


_ITEMS, _SUPPLIERS = Item.__table__, Supplier.__table__
_ITEM_ROW = Prepared(
    select(_ITEMS, _SUPPLIERS.c.name.label("supplier"))
    .outerjoin(_SUPPLIERS, _SUPPLIERS.c.id == _ITEMS.c.default_supplier_id)
    .where(_ITEMS.c.sku == bindparam("sku"))
)


def item_row(op: Op, sku: str, *, fld: str = "sku") -> Row[Any]:
    """An item's columns and its default supplier's name (`supplier`) as one plain row,
    for reads that only show it: the same refusals as `item`, without the ORM's cost of
    building, tracking and eagerly joining an `Item`. Run on the transaction's connection,
    past the session (nothing to flush in a read; the session layer cost ~15%), as a
    prepared statement (see store.prepared)."""
    rows = _ITEM_ROW.all(connection_of(op.session), {"sku": sku})
    found = rows[0] if rows else None
    if found is None:
        raise _missing("item with SKU", sku, fld)
    if found.archived:
        raise _deleted(sku, fld)
    return found


def location(op: Op, code: str, *, fld: str = "location") -> Location:
    model = tables.Location
    return _by(op, model, model.code, code, what="location", fld=fld, lock=False)


def supplier(op: Op, name: str, *, fld: str = "supplier") -> Supplier:
    return _by(op, Supplier, Supplier.name, name, what="supplier", fld=fld, lock=False)


def customer(op: Op, name: str, *, fld: str = "customer") -> Customer:
    model = tables.Customer
    return _by(op, model, model.name, name, what="customer", fld=fld, lock=False)


def purchase_order(op: Op, number: str, *, fld: str = "number",
                   lock: bool = False) -> PurchaseOrder:
    model = tables.PurchaseOrder
    return _by(op, model, model.number, number, what="purchase order", fld=fld, lock=lock)


def sales_order(op: Op, number: str, *, fld: str = "number", lock: bool = False) -> SalesOrder:
    model = tables.SalesOrder
    return _by(op, model, model.number, number, what="sales order", fld=fld, lock=lock)


def manufacturing_order(op: Op, number: str, *, fld: str = "number",
                        lock: bool = False) -> ManufacturingOrder:
    model = tables.ManufacturingOrder
    return _by(op, model, model.number, number, what="manufacturing order", fld=fld,
               lock=lock)


def stock_adjustment(op: Op, number: str, *, fld: str = "number",
                     lock: bool = False) -> StockAdjustment:
    model = tables.StockAdjustment
    return _by(op, model, model.number, number, what="stock adjustment", fld=fld, lock=lock)
