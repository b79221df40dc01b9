"""Stock per lot: the ledger's third dimension, beside item and location.

The per-item-and-location balance stays the figure every read uses (O(1)); these rows
split it by lot for items that are lot- or serial-tracked. Stock of a tracked item that
predates its tracking sits outside any lot: the balance minus the sum of its lots.
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import ForeignKey, Index, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import ZERO, Base, Versioned


class LotBalance(Versioned, Base):
    __tablename__ = "lot_balances"
    __table_args__ = (
        UniqueConstraint("item_id", "location_id", "batch_id"),
        Index("ix_lot_balances_batch", "batch_id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id"))
    batch_id: Mapped[int] = mapped_column(ForeignKey("batches.id"))
    on_hand: Mapped[Decimal] = mapped_column(default=ZERO)
