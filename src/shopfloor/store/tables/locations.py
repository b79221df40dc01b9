"""Where stock is kept: every balance, ledger row and document names its location."""

from __future__ import annotations

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base, Versioned, skeleton_of


class Location(Versioned, Base):
    __tablename__ = "locations"
    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    allow_negative: Mapped[bool] = mapped_column(Boolean, default=False)
    code_skeleton: Mapped[str | None] = skeleton_of("code")
