"""The stock ledger as it stood at a moment: balances and lots summed from its rows alone.

The ledger is append-only and every row carries its quantity and value, so the stock of
any past moment is a sum over the rows booked up to it: no snapshot table to keep in step,
and nothing a later correction could rewrite (a correction is a new row dated when it was
made, so the past reads as it was read then). What the ledger does not hold is left out
rather than guessed: commitments to open orders and holds on lots are facts of now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import func, select, tuple_

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import ITEMS, LOCATIONS
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.domain.stock.lot_ledger import BATCHES
from shopfloor.kernel.numbers import ZERO


@dataclass(frozen=True)
class StockThen:
    """One item at one location at the moment asked: on hand and the value it carried."""

    item_id: int
    location_id: int
    sku: str
    location: str
    on_hand: Decimal
    value: Decimal

    @property
    def average_cost(self) -> Decimal:
        return self.value / self.on_hand if self.on_hand else ZERO


@dataclass(frozen=True)
class LotThen:
    sku: str
    lot: str
    location: str
    on_hand: Decimal
    expiry: date | None


def _booked_by(moment: datetime) -> object:
    return MOVEMENTS.c.created_at <= moment


def balances(op: Op, moment: datetime, sku: str | None, location: str | None, *,
             limit: int | None = None, after: tuple[str, str] | None = None,
             ) -> list[StockThen]:
    """Every (item, location) the ledger had booked by `moment`, in (sku, location) order,
    as `reports.balances` pages the balances of now (archived items left out the same
    way). A pair whose rows sum to nothing is still listed: it was a balance then."""
    m = MOVEMENTS.c
    stmt = (
        select(m.item_id, m.location_id, ITEMS.c.sku, LOCATIONS.c.code,
               func.sum(m.quantity), func.sum(m.value))
        .join(ITEMS, ITEMS.c.id == m.item_id)
        .join(LOCATIONS, LOCATIONS.c.id == m.location_id)
        .where(_booked_by(moment), ITEMS.c.archived.is_(False))  # type: ignore[arg-type]
        .group_by(m.item_id, m.location_id, ITEMS.c.sku, LOCATIONS.c.code)
        .order_by(ITEMS.c.sku, LOCATIONS.c.code))
    if sku is not None:
        stmt = stmt.where(m.item_id == lookup.item(op, sku).id)
    if location is not None:
        stmt = stmt.where(m.location_id == lookup.location(op, location).id)
    if after is not None:
        stmt = stmt.where(tuple_(ITEMS.c.sku, LOCATIONS.c.code) > tuple_(*after))
    if limit is not None:
        stmt = stmt.limit(limit)
    return [StockThen(i, loc, s, code, Decimal(q or 0), Decimal(v or 0))
            for i, loc, s, code, q, v in op.session.execute(stmt)]


def _lots(op: Op, moment: datetime, *where: object) -> list[tuple[int, int, LotThen]]:
    m = MOVEMENTS.c
    total = func.sum(m.quantity)
    stmt = (select(m.item_id, m.location_id, ITEMS.c.sku, BATCHES.c.lot_number,
                   LOCATIONS.c.code, total, BATCHES.c.expiry)
            .join(BATCHES, BATCHES.c.id == m.batch_id)
            .join(ITEMS, ITEMS.c.id == m.item_id)
            .join(LOCATIONS, LOCATIONS.c.id == m.location_id)
            .where(_booked_by(moment), *where)  # type: ignore[arg-type]
            .group_by(m.item_id, m.location_id, ITEMS.c.sku, BATCHES.c.lot_number,
                      LOCATIONS.c.code, BATCHES.c.expiry)
            .having(total != 0)
            .order_by(BATCHES.c.expiry.is_(None), BATCHES.c.expiry, ITEMS.c.sku,
                      BATCHES.c.lot_number, LOCATIONS.c.code))
    return [(i, loc, LotThen(sku, lot, code, Decimal(q), expiry))
            for i, loc, sku, lot, code, q, expiry in op.session.execute(stmt)]


def lots(op: Op, moment: datetime, pairs: Iterable[tuple[int, int]]
         ) -> dict[tuple[int, int], list[LotThen]]:
    """The lots with stock at `moment` of the (item, location) pairs, first to expire
    first, in one query."""
    wanted = sorted(set(pairs))
    out: dict[tuple[int, int], list[LotThen]] = {p: [] for p in wanted}
    if wanted:
        m = MOVEMENTS.c
        for item_id, location_id, row in _lots(
                op, moment, tuple_(m.item_id, m.location_id).in_(wanted)):
            out[(item_id, location_id)].append(row)
    return out


def item_lots(op: Op, moment: datetime, sku: str, location: str | None) -> list[LotThen]:
    """An item's lots with stock at `moment` (at one location, or all), first to expire
    first: the order `lots.reports.item_lots` lists those of now."""
    where: list[object] = [MOVEMENTS.c.item_id == lookup.item(op, sku).id]
    if location is not None:
        where.append(MOVEMENTS.c.location_id == lookup.location(op, location).id)
    return [row for _, _, row in _lots(op, moment, *where)]


def expired(rows: Iterable[LotThen], day: date) -> Decimal:
    """Stock in lots past their expiry on `day`: not usable then, whatever happened since."""
    return sum((r.on_hand for r in rows if r.expiry is not None and r.expiry < day
                and r.on_hand > 0), ZERO)
