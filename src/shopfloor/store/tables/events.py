"""The outbox (issue 24): events written in the transaction that caused them, the
webhooks that want them, one delivery row per webhook and event, and the cursors the
workers keep over the outbox.

`events.tx` is the writing transaction's id on PostgreSQL (0 on SQLite, whose single
writer commits in `seq` order): events are read in (tx, seq) order and only from
transactions older than every one still open, so a reader walking with a cursor never
skips an event that commits late with a smaller `seq`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_order", "tx", "seq"),
                      Index("ix_events_type_order", "type", "tx", "seq"))
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    id: Mapped[str] = mapped_column(String(40), unique=True)
    type: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime]
    tx: Mapped[int] = mapped_column(BigInteger, default=0)
    data: Mapped[dict[str, Any]]


class Webhook(Base):
    """A receiver and the event types it wants. The secret signs every delivery (it has
    to be kept to sign with); it is shown to its creator once and never read out again.
    Deleting one stops its deliveries and keeps their history."""

    __tablename__ = "webhooks"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    url: Mapped[str] = mapped_column(String(2000))
    events: Mapped[list[str]] = mapped_column(JSON)
    secret: Mapped[str] = mapped_column(String(100))
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class WebhookDelivery(Base):
    """One event for one webhook. `worker` and `lease_until` say who is sending it and
    until when: a lease that runs out (a killed worker) puts it back to pending."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("webhook_id", "event_seq"),
                      Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
                      Index("ix_webhook_deliveries_webhook", "webhook_id", "id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    webhook_id: Mapped[str] = mapped_column(ForeignKey("webhooks.id"))
    event_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime]
    worker: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[datetime | None]
    last_attempt_at: Mapped[datetime | None]
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    delivered_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class EventCursor(Base):
    """How far a consumer of the outbox has read (the fan-out to webhooks, the alert
    check): locked while it moves, so two workers never fan out the same event twice."""

    __tablename__ = "event_cursors"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    tx: Mapped[int] = mapped_column(BigInteger, default=0)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    checked_at: Mapped[datetime | None]


class AlertState(Base):
    """The digest of what an alert showed last: a change writes an alert event."""

    __tablename__ = "alert_states"
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    count: Mapped[int] = mapped_column(Integer, default=0)
    changed_at: Mapped[datetime]


__all__ = ["AlertState", "Event", "EventCursor", "Webhook", "WebhookDelivery"]
