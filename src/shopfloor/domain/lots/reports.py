"""Reading lots: an item's lots, lots about to expire, the lot split of balances, and the
stock in held or expired lots that nothing may count on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select, tuple_

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import ITEMS, LOCATIONS
from shopfloor.domain.stock.lot_ledger import BATCHES, LOTS
from shopfloor.domain.stock.lot_ledger import blocked as blocked_by
from shopfloor.domain.stock.usable import NONE, Blocked


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


def blocked_at(rows: Iterable[LotRow], today: date) -> dict[str, Blocked]:
    """Held and expired stock per location, from lot rows a stock read already has."""
    out: dict[str, Blocked] = {}
    for r in rows:
        if r.on_hand > 0:
            out[r.location] = out.get(r.location, NONE).add(blocked_by(r.held, r.expiry, today),
                                                            r.on_hand)
    return out
