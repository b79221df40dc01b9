"""Where a lot went, and what went into it: read from the ledger alone.

A manufacturing order links lots: the lots its consumption rows took are behind the lots
its production rows made. Forward follows consumption to product lots and shipments to
customers; backward follows production to component lots and receipts to suppliers. Each
level is one query for the lots' movements and one for the orders that link them, so a
trace costs the depth of the bill, not the size of the ledger (both lookups are indexed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import ITEMS, LOCATIONS
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.domain.stock.lot_ledger import BATCHES, LOTS
from shopfloor.kernel.errors import NotFound
from shopfloor.store.tables import (
    Customer,
    PurchaseOrder,
    SalesOrder,
    Supplier,
)

Direction = Literal["forward", "backward"]
MO = "manufacturing_order"


@dataclass(frozen=True)
class TracedLot:
    sku: str
    lot: str
    expiry: date | None
    held: bool
    level: int
    via: str | None
    """The manufacturing order that linked it to the level before."""
    batch_id: int = 0


@dataclass(frozen=True)
class TracedMove:
    at: datetime
    sku: str
    lot: str | None
    location: str
    quantity: Decimal
    reason: str
    document_type: str | None
    document_number: str | None


@dataclass(frozen=True)
class Party:
    kind: str
    name: str
    document: str
    sku: str
    lot: str | None
    quantity: Decimal


@dataclass(frozen=True)
class Remaining:
    sku: str
    lot: str
    location: str
    on_hand: Decimal


@dataclass
class Trace:
    sku: str
    lot: str
    direction: Direction
    lots: list[TracedLot] = field(default_factory=list)
    movements: list[TracedMove] = field(default_factory=list)
    parties: list[Party] = field(default_factory=list)
    remaining: list[Remaining] = field(default_factory=list)
    untracked: list[TracedMove] = field(default_factory=list)
    """Consumption without a lot in a linking order: where the trace cannot see."""


def find_lot(op: Op, sku: str, lot: str, fld: str = "lot") -> Any:
    row = op.session.execute(
        select(BATCHES, ITEMS.c.sku).join(ITEMS, ITEMS.c.id == BATCHES.c.item_id)
        .where(ITEMS.c.sku == sku, BATCHES.c.lot_number == lot)).first()
    if row is None:
        if op.session.execute(select(ITEMS.c.id).where(ITEMS.c.sku == sku)).first() is None:
            raise NotFound(f"no item with SKU {sku!r}", field="sku")
        other = op.session.execute(
            select(ITEMS.c.sku).join(BATCHES, BATCHES.c.item_id == ITEMS.c.id)
            .where(BATCHES.c.lot_number == lot).limit(1)).scalar()
        hint = f" ({lot} is a lot of {other})" if other else ""
        raise NotFound(f"{sku} has no lot {lot!r}{hint}", field=fld)
    return row


def trace(op: Op, sku: str, lot: str, direction: Direction) -> Trace:
    start = find_lot(op, sku, lot)
    out = Trace(sku, lot, direction)
    info = _lots(op, [start.id])
    seen = {start.id}
    out.lots.append(_traced(info[start.id], 0, None))
    frontier, level = {start.id}, 0
    while frontier:
        level += 1
        moves = moves_where(op, MOVEMENTS.c.batch_id.in_(sorted(frontier)))
        out.movements += [_move(m) for m in moves]
        link = "consumption" if direction == "forward" else "production"
        orders = sorted({m.document_number for m in moves
                         if m.reason == link and m.document_type == MO and m.document_number})
        nxt: dict[int, str] = {}
        if orders:
            other = "production" if direction == "forward" else "consumption"
            for m in moves_where(op, MOVEMENTS.c.document_number.in_(orders),
                            MOVEMENTS.c.document_type == MO, MOVEMENTS.c.reason == other):
                if m.batch_id is None:
                    if direction == "backward":
                        out.untracked.append(_move(m))
                elif m.batch_id not in seen:
                    nxt.setdefault(m.batch_id, str(m.document_number))
        if nxt:
            info.update(_lots(op, list(nxt)))
            out.lots += [_traced(info[b], level, via) for b, via in nxt.items()]
        seen |= set(nxt)
        frontier = set(nxt)
    if direction == "backward":
        out.movements = [m for m in out.movements if m.reason in ("receipt", "production",
                                                                   "consumption", "return")
                         or m.document_type == MO]
    out.parties = parties(op, out.movements, direction)
    out.remaining = remaining(op, seen)
    out.movements.sort(key=lambda m: (m.at, m.sku))
    return out


def moves_where(op: Op, *where: Any) -> list[Any]:
    return list(op.session.execute(
        select(MOVEMENTS.c.id, MOVEMENTS.c.batch_id, MOVEMENTS.c.quantity, MOVEMENTS.c.reason,
               MOVEMENTS.c.document_type, MOVEMENTS.c.document_number, MOVEMENTS.c.created_at,
               ITEMS.c.sku, LOCATIONS.c.code, BATCHES.c.lot_number)
        .join(ITEMS, ITEMS.c.id == MOVEMENTS.c.item_id)
        .join(LOCATIONS, LOCATIONS.c.id == MOVEMENTS.c.location_id)
        .outerjoin(BATCHES, BATCHES.c.id == MOVEMENTS.c.batch_id)
        .where(*where).order_by(MOVEMENTS.c.id)))


def _move(m: Any) -> TracedMove:
    return TracedMove(m.created_at, m.sku, m.lot_number, m.code, m.quantity, m.reason,
                      m.document_type, m.document_number)


def _lots(op: Op, ids: Iterable[int]) -> dict[int, Any]:
    return {r.id: r for r in op.session.execute(
        select(BATCHES.c.id, BATCHES.c.lot_number, BATCHES.c.expiry, BATCHES.c.held, ITEMS.c.sku)
        .join(ITEMS, ITEMS.c.id == BATCHES.c.item_id).where(BATCHES.c.id.in_(list(ids))))}


def _traced(r: Any, level: int, via: str | None) -> TracedLot:
    return TracedLot(r.sku, r.lot_number, r.expiry, r.held, level, via, r.id)


def parties(op: Op, moves: list[TracedMove], direction: Direction) -> list[Party]:
    """Customers a lot reached (forward) or suppliers it came from (backward)."""
    model: Any
    partner: Any
    if direction == "forward":
        kind, reason, model, partner, col = ("customer", "shipment", SalesOrder, Customer,
                                             SalesOrder.customer_id)
    else:
        kind, reason, model, partner, col = ("supplier", "receipt", PurchaseOrder, Supplier,
                                             PurchaseOrder.supplier_id)
    picked = [m for m in moves if m.reason == reason and m.document_number]
    if not picked:
        return []
    names: dict[str, str] = dict(op.session.execute(
        select(model.number, partner.name).join(partner, partner.id == col)
        .where(model.number.in_(sorted({str(m.document_number) for m in picked})))).all())
    return [Party(kind, names.get(str(m.document_number), "?"), str(m.document_number), m.sku,
                  m.lot, abs(m.quantity)) for m in picked]


def remaining(op: Op, batch_ids: set[int]) -> list[Remaining]:
    rows = op.session.execute(
        select(ITEMS.c.sku, BATCHES.c.lot_number, LOCATIONS.c.code, LOTS.c.on_hand)
        .join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
        .join(ITEMS, ITEMS.c.id == LOTS.c.item_id)
        .join(LOCATIONS, LOCATIONS.c.id == LOTS.c.location_id)
        .where(LOTS.c.batch_id.in_(sorted(batch_ids)), LOTS.c.on_hand != 0)
        .order_by(ITEMS.c.sku, BATCHES.c.lot_number, LOCATIONS.c.code))
    return [Remaining(r.sku, r.lot_number, r.code, r.on_hand) for r in rows]
