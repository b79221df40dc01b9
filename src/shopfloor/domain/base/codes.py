"""What a scanner read, resolved to the records it names.

A scanned code is whatever a label carried: a GS1 element string (GTIN, lot, serial),
a bare GTIN off a retail barcode, or one of our own keys (SKU, lot or serial number,
order number, location code). The reading is tried every way at once and every record
it names is answered, so a lot number two items share comes back as both, for the
person to choose; nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.kernel import gs1, keys
from shopfloor.kernel.errors import NotFound
from shopfloor.store.tables import (
    Batch,
    Item,
    Location,
    ManufacturingOrder,
    PurchaseOrder,
    SalesOrder,
)

LIMIT = 20
_ORDERS: tuple[tuple[str, Any], ...] = (
    ("purchase_order", PurchaseOrder), ("sales_order", SalesOrder),
    ("manufacturing_order", ManufacturingOrder))


@dataclass(frozen=True)
class Match:
    kind: str  # item | lot | serial | location | purchase_order | sales_order | ...
    key: str
    sku: str | None = None
    name: str | None = None
    expiry: date | None = None


@dataclass(frozen=True)
class Found:
    elements: list[tuple[str, str]]
    matches: list[Match]


def _typed(code: str) -> str | None:
    """The code in the form keys are stored in, or None if no key could be spelt so."""
    if any(ord(c) < 32 for c in code):
        return None
    try:
        return keys.normal(code.strip(), 64)
    except ValueError:
        return None


def _items(op: Op, *where: Any) -> list[Item]:
    stmt = select(Item).where(Item.archived.is_(False), *where).order_by(Item.sku)
    return list(op.session.scalars(stmt.limit(LIMIT)).unique())


def _lots(op: Op, *where: Any) -> list[Match]:
    rows = op.session.execute(
        select(Batch.lot_number, Batch.expiry, Item.sku, Item.name, Item.serial_tracked)
        .join(Item, Item.id == Batch.item_id)
        .where(Item.archived.is_(False), *where).order_by(Item.sku).limit(LIMIT)).all()
    return [Match("serial" if r.serial_tracked else "lot", r.lot_number, r.sku, r.name,
                  r.expiry) for r in rows]


def _item(i: Item) -> Match:
    return Match("item", i.sku, i.sku, i.name)


def _scanned(op: Op, elements: list[tuple[str, str]]) -> list[Match]:
    """A GS1 reading: its GTIN's item (or its SKU's, as (240)), or the lot or serial of
    that item it names."""
    fields = dict(elements)
    gtin = fields.get("01") or fields.get("02")
    if gtin is not None:
        items = _items(op, Item.gtin.in_(gs1.gtin_forms(gtin)))
    elif "240" in fields:  # our own lot labels: the SKU where no GTIN is
        items = _items(op, Item.sku == fields["240"])
    else:
        return []
    number = fields.get("21") or fields.get("10")
    if number is None or not items:
        return [_item(i) for i in items]
    lots = _lots(op, Batch.item_id.in_([i.id for i in items]), Batch.lot_number == number)
    return lots or [_item(i) for i in items]


def _keyed(op: Op, code: str) -> list[Match]:
    """The code as one of our keys, or as a bare GTIN."""
    found = [_item(i) for i in _items(op, Item.sku == code)]
    if gs1.gtin_problem(code) is None:
        found += [_item(i) for i in _items(op, Item.gtin.in_(gs1.gtin_forms(code)))
                  if i.sku != code]
    found += _lots(op, Batch.lot_number == code)
    found += [Match("location", c, name=n) for c, n in op.session.execute(
        select(Location.code, Location.name).where(Location.code == code))]
    for kind, model in _ORDERS:
        found += [Match(kind, n) for n in op.session.scalars(
            select(model.number).where(model.number == code))]
    return found


def find(op: Op, code: str) -> Found:
    elements = gs1.parse(code) or []
    matches = _scanned(op, elements) if elements else []
    typed = _typed(code)
    if typed is not None:
        matches += [m for m in _keyed(op, typed) if m not in matches]
    if not matches:
        raise NotFound(f"nothing has the code {code.strip()!r}", field="code")
    return Found(elements, matches[:LIMIT])
