"""Proposals (issue 24): writes by an actor who needs approval, held until a person
decides. The row keeps the request, the preview the proposer saw and the fingerprint of
what that preview read, so an approval applies only what was seen, or nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base


class Proposal(Base):
    __tablename__ = "proposals"
    __table_args__ = (Index("ix_proposals_status", "status", "created_at"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tool: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict[str, Any]]
    actor: Mapped[str] = mapped_column(String(200), index=True)
    roles: Mapped[str] = mapped_column(String(64))
    reads: Mapped[str] = mapped_column(String(64))
    preview: Mapped[dict[str, Any]]
    summary: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]
    decided_by: Mapped[str | None] = mapped_column(String(200))
    decided_at: Mapped[datetime | None]
    reason: Mapped[str | None] = mapped_column(Text)
    operation_id: Mapped[str | None] = mapped_column(String(36))
    version: Mapped[int] = mapped_column(default=1)
