"""What the registry keeps of each write and each background job: the operation log,
idempotency keys and their first results, spent preview tokens, and the job queue's rows."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import ZERO, Base

__all__ = ["IdempotencyKey", "Job", "OperationLog", "SpentPreviewToken"]


class OperationLog(Base):
    __tablename__ = "operation_log"
    __table_args__ = (Index("ix_oplog_tool_created", "tool", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    operation_id: Mapped[str] = mapped_column(String(36), unique=True)
    tool: Mapped[str] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(200), index=True)
    arguments: Mapped[dict[str, Any]]
    result: Mapped[dict[str, Any]]
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime]


class IdempotencyKey(Base):
    """Unique key -> first result. The unique index is what makes racing repeats safe."""

    __tablename__ = "idempotency_keys"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    actor: Mapped[str] = mapped_column(String(200))
    tool: Mapped[str] = mapped_column(String(64))
    request_hash: Mapped[str] = mapped_column(String(64))
    result: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime]


class SpentPreviewToken(Base):
    """A preview token is signed, so only its spent-state needs to live in the database."""

    __tablename__ = "spent_preview_tokens"
    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    spent_at: Mapped[datetime]


class Job(Base):
    """A unit of background work. Not version-tracked: workers update it constantly, and a
    preview of a job's cancel must not go stale because the job made progress."""

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status_created", "status", "created_at"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    progress: Mapped[Decimal] = mapped_column(default=ZERO)
    message: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[dict[str, Any] | None]
    actor: Mapped[str] = mapped_column(String(200))
    worker: Mapped[str | None] = mapped_column(String(200))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False,
                                                   server_default=false())
    heartbeat_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    applied_operation: Mapped[str | None] = mapped_column(String(36))
