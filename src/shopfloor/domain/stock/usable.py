"""Stock on hand that nothing may count on: in held lots, and in expired lots not held.

Availability, low stock, MRP netting and promises all subtract it, by the one rule that
picking uses (`lot_ledger.blocked`), so that what is offered is what can be shipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import NamedTuple

from sqlalchemy import Connection, Subquery, case, func, or_, select

from shopfloor.domain.stock.lot_ledger import BATCHES, LOTS, BlockedBy, blocked_sql
from shopfloor.kernel.numbers import ZERO


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


def _dec(value: object) -> Decimal:
    return ZERO if value is None else Decimal(value)  # type: ignore[arg-type]
