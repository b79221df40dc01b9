"""Counting one lot: the lot's stock as of the moment it was counted."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.domain.stock.lot_ledger import BATCHES
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO


def lot_on_hand_at(op: Op, item: Any, location: stock.Place, named: Sequence[lots.LotIn],
                   at: datetime, fld: str) -> Decimal:
    """What the lot held at `at`: now, less what moved in or out of it since (as for a whole
    item's count, a later receipt is kept, not erased)."""
    if len(named) != 1 or named[0].quantity is not None:
        raise ValidationFailed("a count names one lot, without a quantity", field=f"{fld}.lots")
    part = lots.outgoing(op, [lots.Line(item, Decimal(1), fld, named)])[0][0]
    assert part.batch_id is not None
    now = stock.ledger(op).lots.slot(item.id, location.id, part.batch_id).on_hand
    made = select(BATCHES.c.created_at).where(BATCHES.c.id == part.batch_id).scalar_subquery()
    since, created = op.session.execute(
        select(func.coalesce(func.sum(MOVEMENTS.c.quantity), ZERO), made).where(
            MOVEMENTS.c.batch_id == part.batch_id, MOVEMENTS.c.location_id == location.id,
            MOVEMENTS.c.created_at > at)).one()
    if created is not None and at < _utc(created):
        # the lot held nothing then; its stock came in later and stays: counted then, it
        # would be booked twice
        raise ValidationFailed(f"counted_at {at.isoformat()} is before lot {named[0].lot} "
                               f"existed ({_utc(created).isoformat()})",
                               field=f"{fld}.counted_at")
    return now - Decimal(since)


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
