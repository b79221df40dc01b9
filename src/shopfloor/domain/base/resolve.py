"""The keys a document names, resolved in one query per table.

The batched write path reads plain rows rather than ORM entities: a hundred-line document
costs one SELECT for its items and one for their balances, and no identity-map work. Each
row's version is remembered as if it had been loaded, so a preview still goes stale when
any of them changes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Select, bindparam, select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import Item, Location, table
from shopfloor.store.tracking import reads_of, remember, saw_row

ITEMS = table(Item)
LOCATIONS = table(Location)



def keyed(column: ColumnElement[Any], n: int) -> ColumnElement[bool]:
    """`column IN (...)` with one plain parameter per value (see `values`): an expanding
    parameter costs more to render than a small document's whole query. Build it once per
    size (`functools.cache`), never per call."""
    return column.in_([bindparam(f"{column.key}_{i}") for i in range(n)])


def values(column: ColumnElement[Any], given: Sequence[Any]) -> dict[str, Any]:
    """The parameters of `keyed(column, len(given))`."""
    name = column.key
    return {f"{name}_{i}": v for i, v in enumerate(given)}


@functools.cache
def _items(n: int) -> Select[Any]:
    return select(ITEMS.c.id, ITEMS.c.sku, ITEMS.c.name, ITEMS.c.kind, ITEMS.c.uom,
                  ITEMS.c.purchase_price, ITEMS.c.sales_price, ITEMS.c.batch_tracked,
                  ITEMS.c.serial_tracked, ITEMS.c.lot_numbering, ITEMS.c.shelf_life_days,
                  ITEMS.c.precision, ITEMS.c.archived, ITEMS.c.version
                  ).where(keyed(ITEMS.c.sku, n))


@functools.cache
def _items_read(n: int) -> Prepared:
    return Prepared(_items(n))


_LOCATION = Prepared(select(LOCATIONS.c.id, LOCATIONS.c.code, LOCATIONS.c.name,
                            LOCATIONS.c.allow_negative, LOCATIONS.c.version
                            ).where(LOCATIONS.c.code == bindparam("code")))


class ItemRow(NamedTuple):
    id: int
    sku: str
    name: str
    kind: str
    uom: str
    purchase_price: Decimal
    sales_price: Decimal
    batch_tracked: bool
    serial_tracked: bool = False
    lot_numbering: str | None = None
    shelf_life_days: int | None = None
    precision: int | None = None


_FIELDS = len(ItemRow._fields)


class LocationRow(NamedTuple):
    id: int
    code: str
    name: str
    allow_negative: bool


def items(op: Op, wanted: Sequence[tuple[str, str]]) -> dict[str, ItemRow]:
    """`wanted`: (sku, field) pairs in document order. A SKU named twice, unknown or
    deleted is refused naming the field it appears in."""
    once(wanted)
    skus = sorted({sku for sku, _ in wanted})
    found: dict[str, ItemRow] = {}
    archived: set[str] = set()
    conn = op.session.connection()
    seen = reads_of(op.session)
    make = ItemRow._make
    for start in range(0, len(skus), 500):
        chunk = skus[start:start + 500]
        # the row is ItemRow's fields in order, then archived and version: no per-column
        # attribute lookups for a hundred-line document
        for r in _items_read(len(chunk)).all(conn, values(ITEMS.c.sku, chunk)):
            row = make(r[:_FIELDS])
            remember(seen, "items", str(row.id), r[_FIELDS + 1])
            if r[_FIELDS]:
                archived.add(row.sku)
            found[row.sku] = row
    for sku, fld in wanted:
        if sku not in found:
            raise NotFound(f"no item with SKU {sku!r}", field=fld)
        if sku in archived:
            raise NotFound(f"item {sku!r} is deleted", field=fld)
    return found


def once(wanted: Sequence[tuple[str, str]]) -> None:
    """One line per item: a SKU named twice is refused at its second field."""
    seen: set[str] = set()
    for sku, fld in wanted:
        if sku in seen:
            raise ValidationFailed(f"{sku} appears twice; use one line per item", field=fld)
        seen.add(sku)


def location(op: Op, code: str, *, fld: str = "location") -> LocationRow:
    r = _LOCATION.first(op.session.connection(), {"code": code})
    if r is None:
        raise NotFound(f"no location {code!r}", field=fld)
    saw_row(op.session, "locations", str(r.id), r.version)
    return LocationRow(r.id, r.code, r.name, r.allow_negative)
