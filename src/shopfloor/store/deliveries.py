"""Webhook deliveries as a queue in the database, so any number of workers share it.

Fan-out turns events into one delivery row per interested webhook, under the lock of one
cursor row (two workers never fan out the same event; on PostgreSQL a busy cursor is
skipped, not waited for). Sending is claimed like a job: PostgreSQL's SKIP LOCKED, or
SQLite's single writer; a claim is a lease, and a lease that runs out (a killed worker)
returns its deliveries to pending. A delivery is marked delivered only by the worker that
still holds it, so a receiver that accepted an event is not sent it again (barring a
crash between its answer and this record).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from shopfloor.kernel.statuses import Delivery
from shopfloor.store import outbox
from shopfloor.store.engine import Store
from shopfloor.store.tables import Event, EventCursor, Webhook, WebhookDelivery, table

DELIVERIES = table(WebhookDelivery)
CURSORS = table(EventCursor)
FAN_OUT = "webhooks"


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Claimed:
    """One delivery a worker holds: what to send, where, signed with what."""

    id: int
    url: str
    secret: str
    event_id: str
    body: dict[str, Any]
    attempts: int


@dataclass(frozen=True)
class Outcome:
    id: int
    delivered: bool
    status: int | None = None
    error: str | None = None
    retry_at: datetime | None = None
    """When to try again after a failure; None: the tries are spent."""


def cursor_row(s: Any, name: str, *, lock: bool) -> Any:
    """The named cursor row, locked (None when another worker holds it); made at first
    use, so a database emptied by a test or a restore starts over on its own."""
    stmt = select(CURSORS).where(CURSORS.c.name == name)
    if lock:
        stmt = stmt.with_for_update(skip_locked=True)
    row = s.execute(stmt).first()
    if row is None:
        exists = s.execute(select(CURSORS.c.name).where(CURSORS.c.name == name)).first()
        if exists is not None:
            return None  # locked by another worker
        try:
            with s.begin_nested():
                s.execute(insert(CURSORS).values(name=name, tx=0, seq=0))
        except IntegrityError:
            return None
        row = s.execute(stmt).first()
    return row


def move_cursor(s: Any, name: str, position: tuple[int, int], at: datetime | None = None) -> None:
    values: dict[str, Any] = {"tx": position[0], "seq": position[1]}
    if at is not None:
        values["checked_at"] = at
    s.execute(update(CURSORS).where(CURSORS.c.name == name).values(**values))


def pending_events(store: Store, name: str) -> bool:
    """A read: are there final events past the named cursor? (An idle worker asks this
    every poll; it takes no write lock unless there is work.)"""
    with store.reading() as s:
        row = s.execute(select(CURSORS.c.tx, CURSORS.c.seq)
                        .where(CURSORS.c.name == name)).first()
        position = (int(row.tx), int(row.seq)) if row is not None else (0, 0)
        return bool(outbox.events_after(s.connection(), position, 1))


def fan_out(store: Store, batch: int = 500) -> int:
    """Turn the next events into deliveries; returns how many events were passed."""
    if not pending_events(store, FAN_OUT):
        return 0

    def attempt() -> int:
        with store.writing() as s:
            cursor = cursor_row(s, FAN_OUT, lock=store.locks_rows)
            if cursor is None:
                return 0
            conn = s.connection()
            hooks = s.execute(select(Webhook.id, Webhook.events, Webhook.created_at)
                              .where(Webhook.deleted_at.is_(None))).all()
            if not hooks:  # nobody listens: skip to the end, nothing to send
                move_cursor(s, FAN_OUT, outbox.last(conn))
                s.commit()
                return 0
            events = outbox.events_after(conn, (int(cursor.tx), int(cursor.seq)), batch)
            if not events:
                return 0
            stamp = now()
            rows = [{"webhook_id": h.id, "event_seq": e.seq, "status": Delivery.pending,
                     "attempts": 0, "next_attempt_at": stamp, "created_at": stamp}
                    for e in events for h in hooks
                    if e.type in h.events and e.at > h.created_at]
            if rows:
                conn.execute(insert(DELIVERIES), rows)
            move_cursor(s, FAN_OUT, (int(events[-1].tx), int(events[-1].seq)))
            s.commit()
            return len(events)

    return store.retrying(attempt)


def claim(store: Store, worker: str, limit: int, lease: timedelta) -> list[Claimed]:
    """Take up to `limit` due deliveries for `worker`, leased until now + `lease`."""
    due = and_(WebhookDelivery.status == Delivery.pending,
               WebhookDelivery.next_attempt_at <= bindparam("now"),
               WebhookDelivery.webhook_id.in_(  # not for a webhook deleted meanwhile
                   select(Webhook.id).where(Webhook.deleted_at.is_(None))))
    with store.reading() as s:
        if s.execute(select(WebhookDelivery.id).where(due).limit(1),
                     {"now": now()}).first() is None:
            return []

    def attempt() -> list[Claimed]:
        with store.writing() as s:
            stamp = now()
            stmt = (select(WebhookDelivery.id).where(due)
                    .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id).limit(limit))
            if store.locks_rows:
                stmt = stmt.with_for_update(skip_locked=True)
            ids = list(s.scalars(stmt, {"now": stamp}))
            if not ids:
                return []
            s.execute(update(WebhookDelivery).where(WebhookDelivery.id.in_(ids)).values(
                status=Delivery.sending, worker=worker, lease_until=stamp + lease))
            rows = s.execute(
                select(WebhookDelivery.id.label("delivery_id"), WebhookDelivery.attempts,
                       Webhook.url, Webhook.secret, Event.id, Event.type, Event.at,
                       Event.data)
                .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
                .join(Event, Event.seq == WebhookDelivery.event_seq)
                .where(WebhookDelivery.id.in_(ids)).order_by(Event.tx, Event.seq)).all()
            s.commit()
            # the row's id, type, at and data are its event's: the event as it is listed
            return [Claimed(r.delivery_id, r.url, r.secret, r.id, outbox.as_json(r),
                            r.attempts) for r in rows]

    return store.retrying(attempt)


_DELIVERED = (update(DELIVERIES)
              .where(DELIVERIES.c.id == bindparam("did"),
                     DELIVERIES.c.status != Delivery.delivered)
              .values(status=Delivery.delivered, attempts=DELIVERIES.c.attempts + 1,
                      worker=None, lease_until=None, last_attempt_at=bindparam("at"),
                      last_status=bindparam("code"), last_error=None,
                      delivered_at=bindparam("at")))
"""Accepted: recorded whoever holds the row now, so it is not sent again even when this
worker's lease ran out while the receiver answered."""
_FAILED = (update(DELIVERIES)
           .where(DELIVERIES.c.id == bindparam("did"), DELIVERIES.c.worker == bindparam("me"),
                  DELIVERIES.c.status == Delivery.sending)
           .values(status=bindparam("to"), attempts=DELIVERIES.c.attempts + 1,
                   worker=None, lease_until=None, last_attempt_at=bindparam("at"),
                   last_status=bindparam("code"), last_error=bindparam("error"),
                   next_attempt_at=bindparam("next")))
"""Refused or unanswered: only while this worker still holds it."""


def settle(store: Store, worker: str, outcomes: Iterable[Outcome]) -> None:
    """Record what the receivers answered (one statement per kind of answer)."""
    stamp = now()
    done: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for o in outcomes:
        if o.delivered:
            done.append({"did": o.id, "at": stamp, "code": o.status})
            continue
        failed.append({"did": o.id, "me": worker, "at": stamp, "code": o.status,
                       "to": Delivery.pending if o.retry_at else Delivery.failed,
                       "error": (o.error or "failed")[:2000], "next": o.retry_at or stamp})
    if not done and not failed:
        return

    def attempt() -> None:
        with store.writing() as s:
            conn = s.connection()
            if done:
                conn.execute(_DELIVERED, done)
            if failed:
                conn.execute(_FAILED, failed)
            s.commit()

    store.retrying(attempt)


def release(store: Store, worker: str, ids: list[int]) -> None:
    """Give back deliveries this worker took and did not try: pending again, at once."""
    if not ids:
        return

    def attempt() -> None:
        with store.writing() as s:
            s.execute(update(WebhookDelivery).where(
                WebhookDelivery.id.in_(ids), WebhookDelivery.worker == worker,
                WebhookDelivery.status == Delivery.sending).values(
                status=Delivery.pending, worker=None, lease_until=None))
            s.commit()

    store.retrying(attempt)


def release_expired(store: Store) -> int:
    """Deliveries whose worker went silent past its lease: pending again, at once."""
    expired = and_(WebhookDelivery.status == Delivery.sending,
                   WebhookDelivery.lease_until < bindparam("now"))
    with store.reading() as s:
        if s.execute(select(WebhookDelivery.id).where(expired).limit(1),
                     {"now": now()}).first() is None:
            return 0

    def attempt() -> int:
        with store.writing() as s:
            stamp = now()
            result = s.execute(update(WebhookDelivery).where(expired).values(
                status=Delivery.pending, worker=None, lease_until=None,
                next_attempt_at=stamp, last_error="the worker sending it stopped"),
                {"now": stamp})
            s.commit()
            return int(getattr(result, "rowcount", 0) or 0)

    return store.retrying(attempt)
