"""The period lock: the last day of the books no write may post into (issue 31).

Each setting is a row of its own, never an update: the lock in force is the newest row,
and the rows are the lock's history (who closed or reopened which days, and when). A row
whose `lock_date` is null lifts the lock.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base

__all__ = ["PeriodLock"]


class PeriodLock(Base):
    """`previous` is the lock this row replaced, so a revert restores it and the history
    reads as moves from one date to another."""

    __tablename__ = "period_locks"
    id: Mapped[int] = mapped_column(primary_key=True)
    lock_date: Mapped[date | None] = mapped_column(Date)
    previous: Mapped[date | None] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(Text, default="")
    actor: Mapped[str] = mapped_column(String(200))
    operation_id: Mapped[str | None] = mapped_column(String(36))
    created_at: Mapped[datetime]
