"""Reading lots: an item's lots, lots about to expire, the lot split of balances, and the
stock in held or expired lots that nothing may count on."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import Connection, Subquery, case, func, or_, select, tuple_

from shopfloor.domain import lookup
from shopfloor.domain.context import Op
from shopfloor.domain.lot_book import BATCHES, LOTS, BlockedBy, blocked_sql
from shopfloor.domain.lot_book import blocked as blocked_by
from shopfloor.domain.numbers import ZERO
from shopfloor.domain.trace import ITEMS, LOCATIONS


@dataclass(frozen=True)
class LotRow:
    sku: str
    lot: str
    location: str
    on_hand: Decimal
    expiry: date | None
    held: bool
    hold_reason: str | None


_COLUMNS = (ITEMS.c.sku, BATCHES.c.lot_number, LOCATIONS.c.code, LOTS.c.on_hand,
            BATCHES.c.expiry, BATCHES.c.held, BATCHES.c.hold_reason)


def _rows(op: Op, *where: object) -> list[LotRow]:
    stmt = (select(*_COLUMNS).select_from(LOTS)
            .join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
            .join(ITEMS, ITEMS.c.id == LOTS.c.item_id)
            .join(LOCATIONS, LOCATIONS.c.id == LOTS.c.location_id)
            .where(LOTS.c.on_hand != 0, *where)  # type: ignore[arg-type]
            .order_by(BATCHES.c.expiry.is_(None), BATCHES.c.expiry, ITEMS.c.sku,
                      BATCHES.c.lot_number, LOCATIONS.c.code))
    return [LotRow(*r) for r in op.session.execute(stmt)]


def item_lots(op: Op, sku: str, location: str | None = None) -> list[LotRow]:
    """An item's lots with stock, first to expire first (the order picking takes them)."""
    where: list[object] = [LOTS.c.item_id == lookup.item(op, sku).id]
    if location is not None:
        where.append(LOTS.c.location_id == lookup.location(op, location).id)
    return _rows(op, *where)


def expiring(op: Op, days: int, location: str | None) -> list[LotRow]:
    """Lots with stock that expire within `days` (those already expired included)."""
    until = op.now.date() + timedelta(days=days)
    where: list[object] = [BATCHES.c.expiry.is_not(None), BATCHES.c.expiry <= until]
    if location is not None:
        where.append(LOTS.c.location_id == lookup.location(op, location).id)
    return _rows(op, *where)


def of_balances(op: Op, pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], list[LotRow]]:
    """The lots of many (item, location) balances in one query."""
    wanted = sorted(set(pairs))
    out: dict[tuple[int, int], list[LotRow]] = {p: [] for p in wanted}
    if not wanted:
        return out
    stmt = (select(LOTS.c.item_id, LOTS.c.location_id, *_COLUMNS).select_from(LOTS)
            .join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
            .join(ITEMS, ITEMS.c.id == LOTS.c.item_id)
            .join(LOCATIONS, LOCATIONS.c.id == LOTS.c.location_id)
            .where(LOTS.c.on_hand != 0,
                   tuple_(LOTS.c.item_id, LOTS.c.location_id).in_(wanted))
            .order_by(BATCHES.c.expiry.is_(None), BATCHES.c.expiry, BATCHES.c.lot_number))
    for r in op.session.execute(stmt):
        out[(r.item_id, r.location_id)].append(LotRow(*r[2:]))
    return out


class Blocked(NamedTuple):
    """Stock on hand that picking skips: in held lots, and in expired lots not held."""

    held: Decimal = ZERO
    expired: Decimal = ZERO

    @property
    def total(self) -> Decimal:
        return self.held + self.expired

    def add(self, why: BlockedBy | None, quantity: Decimal) -> Blocked:
        if why == "held":
            return self._replace(held=self.held + quantity)
        if why == "expired":
            return self._replace(expired=self.expired + quantity)
        return self


NONE = Blocked()


def blocked(conn: Connection, today: date, *, location_id: int | None = None,
            item_ids: Sequence[int] | None = None) -> dict[int, Blocked]:
    """Per item, the stock in held or expired lots (at a location, or all of them): on
    hand, but nothing availability, MRP, low stock or a promise may count on. One query."""
    held, expired = blocked_sql(today)
    qty = LOTS.c.on_hand
    stmt = (select(LOTS.c.item_id, func.sum(case((held, qty))), func.sum(case((expired, qty))))
            .join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
            .where(LOTS.c.on_hand > 0, or_(held, expired))
            .group_by(LOTS.c.item_id))
    if location_id is not None:
        stmt = stmt.where(LOTS.c.location_id == location_id)
    if item_ids is not None:
        stmt = stmt.where(LOTS.c.item_id.in_(list(item_ids)))
    return {i: Blocked(_dec(h), _dec(e)) for i, h, e in conn.execute(stmt)}


def blocked_subquery(today: date, location_id: int | None) -> Subquery:
    """(item_id, quantity) of stock in held or expired lots, for a query to join."""
    stmt = (select(LOTS.c.item_id, func.sum(LOTS.c.on_hand).label("quantity"))
            .join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
            .where(LOTS.c.on_hand > 0, or_(*blocked_sql(today)))
            .group_by(LOTS.c.item_id))
    if location_id is not None:
        stmt = stmt.where(LOTS.c.location_id == location_id)
    return stmt.subquery("held_back")


def blocked_at(rows: Iterable[LotRow], today: date) -> dict[str, Blocked]:
    """The same figures per location from lot rows already read (get_stock, get_item)."""
    out: dict[str, Blocked] = {}
    for r in rows:
        if r.on_hand > 0:
            out[r.location] = out.get(r.location, NONE).add(blocked_by(r.held, r.expiry, today),
                                                            r.on_hand)
    return out


def _dec(value: object) -> Decimal:
    return ZERO if value is None else Decimal(value)  # type: ignore[arg-type]
