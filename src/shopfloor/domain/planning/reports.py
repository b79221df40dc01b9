"""Stock reads: balances, the ledger, low stock and availability.

All of them read the balance table (O(1) in ledger size) except the ledger listing,
which walks the ledger's (item, location, id) index newest first.

`item_detail` is what an item's page shows, in two plain queries built once: an agent's most
frequent read, so it skips the ORM (whose per-row bookkeeping cost ~3x the queries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import (
    Row,
    Select,
    String,
    bindparam,
    func,
    literal,
    null,
    select,
    tuple_,
    union_all,
)
from sqlalchemy.orm import Session

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import lot_sizing
from shopfloor.domain.stock import usable
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import OPEN_MO, OPEN_PO
from shopfloor.store import tables
from shopfloor.store.prepared import Prepared, connection_of
from shopfloor.store.tables import Balance, Item, Location, RecipeLine

if TYPE_CHECKING:  # (read as `tables.X` where used: an item's details map none of theirs)
    from shopfloor.store.tables import StockMovement


def balances(op: Op, sku: str | None, location: str | None, *, limit: int | None = None,
             after: tuple[str, str] | None = None) -> list[Balance]:
    """Balances in (sku, location) order; `after` continues past a page's last row."""
    stmt = select(Balance).join(Balance.item).join(Balance.location)
    if sku is not None:
        stmt = stmt.where(Balance.item_id == lookup.item(op, sku).id)
    if location is not None:
        stmt = stmt.where(Balance.location_id == lookup.location(op, location).id)
    if after is not None:
        stmt = stmt.where(tuple_(Item.sku, Location.code) > tuple_(*after))
    stmt = stmt.where(Item.archived.is_(False)).order_by(Item.sku, Location.code)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(op.session.scalars(stmt).unique())


def movements(op: Op, sku: str | None, location: str | None, since: datetime | None,
              limit: int, before_id: int | None, document: str | None = None
              ) -> list[StockMovement]:
    sm = tables.StockMovement
    stmt: Select[StockMovement] = select(sm)
    if document is not None:  # which lots went on an order: indexed by document number
        stmt = stmt.where(sm.document_number == document)
    if sku is not None:
        stmt = stmt.where(sm.item_id == lookup.item(op, sku, include_archived=True).id)
    if location is not None:
        stmt = stmt.where(sm.location_id == lookup.location(op, location).id)
    if since is not None:
        stmt = stmt.where(sm.created_at >= since)
    if before_id is not None:
        stmt = stmt.where(sm.id < before_id)
    return list(op.session.scalars(stmt.order_by(sm.id.desc()).limit(limit)).unique())


def on_order(op: Op, item_ids: list[int], location_id: int | None) -> dict[int, Decimal]:
    """Supply on the way: outstanding purchase order lines and open manufacturing orders."""
    mo, po, line = tables.ManufacturingOrder, tables.PurchaseOrder, tables.PurchaseOrderLine
    made = (
        select(mo.item_id,
               func.sum(mo.quantity - mo.completed_quantity
                        - mo.scrapped_quantity))
        .where(mo.status.in_(OPEN_MO), mo.item_id.in_(item_ids))
        .group_by(mo.item_id)
    )
    if location_id is not None:
        made = made.where(mo.location_id == location_id)
    out: dict[int, Decimal] = {i: q for i, q in op.session.execute(made).all()}
    stmt = (
        select(line.item_id,
               func.sum(line.quantity - line.received_quantity))
        .join(po)
        .where(po.status.in_(OPEN_PO), line.item_id.in_(item_ids))
        .group_by(line.item_id)
    )
    if location_id is not None:
        stmt = stmt.where(po.location_id == location_id)
    for item_id, qty in op.session.execute(stmt).all():
        out[item_id] = out.get(item_id, ZERO) + qty
    return out


@dataclass
class LowStock:
    item: Item
    on_hand: Decimal
    available: Decimal
    on_order: Decimal
    suggested: Decimal

    @property
    def to_order(self) -> bool:
        """Below its reorder point, as every screen counts it: what is available plus what
        is already on order at or below the reorder point (the min/max rule MRP plans
        by). An item low on the shelf with enough on its way is low, not to order."""
        return self.available + self.on_order <= self.item.reorder_point


def low_stock(op: Op, location: str | None, *, limit: int | None = None,
              after: str | None = None) -> list[LowStock]:
    """Items whose available stock (held and expired lots left out) is at or below their
    reorder point, in SKU order.

    The suggestion is min/max, as MRP plans it: back up to the reorder point plus the
    reorder quantity, counting what is already on order, so following it takes the item
    off this list instead of leaving it on its reorder point; in whole packs of the item's
    order multiple (planning.lot_sizing).
    """
    loc_id = lookup.location(op, location).id if location else None
    held_back = usable.blocked_subquery(op.now.date(), loc_id)
    on_hand = func.coalesce(func.sum(Balance.on_hand), 0)
    available = (on_hand - func.coalesce(func.sum(Balance.committed), 0)
                 - func.coalesce(func.max(held_back.c.quantity), 0))
    stmt = (
        select(Item, on_hand, available)
        .outerjoin(Balance, (Balance.item_id == Item.id)
                   & ((Balance.location_id == loc_id) if loc_id else True))
        .outerjoin(held_back, held_back.c.item_id == Item.id)
        .where(Item.archived.is_(False), Item.reorder_point > 0)
        .group_by(Item.id)
        .having(available <= Item.reorder_point)
        .order_by(Item.sku)
    )
    if after is not None:
        stmt = stmt.where(Item.sku > after)
    if limit is not None:
        stmt = stmt.limit(limit)
    low = [(i, Decimal(oh), Decimal(av)) for i, oh, av in op.session.execute(stmt).unique().all()]
    ordered = on_order(op, [i.id for i, _, _ in low], loc_id)
    out = []
    for item, oh, av in low:
        incoming = ordered.get(item.id, ZERO)
        position = av + incoming
        suggested = lot_sizing.packs(item.reorder_point + item.reorder_quantity - position,
                                     item.order_multiple) \
            if position <= item.reorder_point else ZERO
        out.append(LowStock(item, oh, av, incoming, suggested))
    return out


@dataclass
class Shortage:
    sku: str
    required: Decimal
    available: Decimal
    short: Decimal


@dataclass
class Availability:
    sku: str
    quantity: Decimal
    available: Decimal
    can_ship: bool
    can_build: bool | None
    shortages: list[Shortage] = field(default_factory=list)
    on_hand: Decimal = ZERO
    held: Decimal = ZERO     # on hand in held lots, not available
    expired: Decimal = ZERO  # on hand in expired lots, not available


class _Stock(NamedTuple):
    on_hand: Decimal
    available: Decimal
    blocked: usable.Blocked


def _stock(op: Op, item_ids: list[int], location_id: int | None) -> dict[int, _Stock]:
    """Per item: available leaves out what is committed and what sits in held or expired
    lots (picking never takes it). One query per table."""
    stmt = (select(Balance.item_id, func.sum(Balance.on_hand), func.sum(Balance.committed))
            .where(Balance.item_id.in_(item_ids)).group_by(Balance.item_id))
    if location_id is not None:
        stmt = stmt.where(Balance.location_id == location_id)
    held_back = usable.blocked(op.session.connection(), op.now.date(),
                                    location_id=location_id, item_ids=item_ids)
    out = {i: _Stock(ZERO, ZERO, usable.NONE) for i in item_ids}
    for item_id, on_hand, committed in op.session.execute(stmt):
        b = held_back.get(item_id, usable.NONE)
        out[item_id] = _Stock(on_hand, on_hand - committed - b.total, b)
    return out


def availability(op: Op, sku: str, quantity: Decimal, location: str | None) -> Availability:
    item = lookup.item(op, sku)
    loc_id = lookup.location(op, location).id if location else None
    lines = item.recipe_lines
    stock = _stock(op, [item.id, *(ln.component_id for ln in lines)], loc_id)
    top = stock[item.id]
    result = Availability(sku, quantity, top.available, top.available >= quantity, None,
                          on_hand=top.on_hand, held=top.blocked.held,
                          expired=top.blocked.expired)
    if lines:
        for line in lines:
            need = line.quantity * quantity
            have = stock[line.component_id].available
            if have < need:
                result.shortages.append(Shortage(line.component.sku, need, have, need - have))
        result.can_build = not result.shortages
    return result


_BAL, _LOC, _REC = Balance.__table__, Location.__table__, RecipeLine.__table__
_COMPONENT = Item.__table__.alias("component")
_PARTS = Prepared(union_all(
    select(literal("stock").label("part"), _LOC.c.code.label("key"),
           null().cast(String).label("name"), _BAL.c.on_hand.label("quantity"),
           _BAL.c.committed, _BAL.c.average_cost, _BAL.c.location_id.label("position"))
    .join(_LOC, _LOC.c.id == _BAL.c.location_id)
    .where(_BAL.c.item_id == bindparam("item_id")),
    select(literal("recipe"), _COMPONENT.c.sku, _COMPONENT.c.name, _REC.c.quantity,
           null(), null(), _REC.c.position)
    .join(_COMPONENT, _COMPONENT.c.id == _REC.c.component_id)
    .where(_REC.c.product_id == bindparam("item_id")),
).order_by("part", "position"))
"""An item's stock per location (by location id) and its recipe (by position) in one
statement: rows of (part, key = location code or component SKU, name, quantity = on hand
or per unit, committed, average_cost, position)."""


_RECIPE = (
    select(_COMPONENT.c.sku, _COMPONENT.c.name, _REC.c.quantity)
    .join(_COMPONENT, _COMPONENT.c.id == _REC.c.component_id)
    .where(_REC.c.product_id == bindparam("item_id"))
    .order_by(_REC.c.position)
)


def recipe_rows(session: Session, item_id: int) -> Sequence[Row[Any, Any, Any]]:
    """An item's recipe as (sku, name, quantity) rows, by position: plain rows where the
    ORM's lazy load of the lines and their components would cost several times more. On
    the session's connection: it does not flush, so only for a session with nothing
    pending (see views.recipe_out)."""
    return session.connection().execute(_RECIPE, {"item_id": item_id}).all()


@dataclass(frozen=True)
class ItemDetail:
    item: Row[Any]  # lookup.item_row: the item's columns and `supplier`
    stock: list[Row[Any]]
    recipe: list[Row[Any]]


def item_detail(op: Op, sku: str) -> ItemDetail:
    item = lookup.item_row(op, sku)
    parts = _PARTS.all(connection_of(op.session), {"item_id": item.id})
    return ItemDetail(item, [p for p in parts if p.part == "stock"],
                      [p for p in parts if p.part == "recipe"])
