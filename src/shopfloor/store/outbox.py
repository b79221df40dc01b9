"""The outbox: one event row written in the transaction of what it tells, and read back
in commit order.

On PostgreSQL two transactions may commit in the opposite order of their `seq`s, so an
event is stamped with its transaction's id and read in (tx, seq) order, only from
transactions older than the oldest still running (`txid_snapshot_xmin`): once a reader
has passed a position, nothing can commit behind it. SQLite's one writer commits in
`seq` order, and its events all carry tx 0.

The insert is built once per dialect: it runs on every apply.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, and_, bindparam, func, insert, literal, or_, select

from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import Event, table

EVENTS = table(Event)
_EMIT = {"sqlite": Prepared(insert(EVENTS).values(tx=0)),
         "postgresql": Prepared(insert(EVENTS).values(tx=func.txid_current()))}


def new_id() -> str:
    return f"evt_{uuid.uuid4().hex}"


def emit(conn: Connection, type_: str, data: dict[str, Any], at: datetime) -> str:
    """Record one event in the caller's transaction; returns its id."""
    event_id = new_id()
    stmt = _EMIT.get(conn.dialect.name, _EMIT["sqlite"])
    stmt.all(conn, {"id": event_id, "type": type_, "at": at, "data": data})
    return event_id


_WITH: dict[tuple[int, tuple[str, ...]], tuple[Table, Prepared | None]] = {}
_EVENT_KEYS = ("event_id", "event_type", "event_at", "event_data")


def emit_with_row(conn: Connection, target: Table, row: Mapping[str, Any], type_: str,
                  data: dict[str, Any], at: datetime) -> str | None:
    """PostgreSQL: `row` inserted into `target`, then one event recorded, in one statement
    (`WITH written AS (INSERT ...) INSERT INTO events ...`): the operation log and its
    event take one round trip of every apply, not two. Returns the event's id, or None on
    another database (the caller inserts the row and emits, as before)."""
    if conn.dialect.name != "postgresql":
        return None
    keys = tuple(row)
    entry = _WITH.get((id(target), keys))
    if entry is None or entry[0] is not target:
        both = None
        if not set(keys) & set(_EVENT_KEYS):
            written = insert(target).values({k: bindparam(k) for k in keys}).cte("written")
            both = Prepared(insert(EVENTS).values(
                id=bindparam("event_id"), type=bindparam("event_type"),
                at=bindparam("event_at"), tx=func.txid_current(),
                data=bindparam("event_data")).add_cte(written))
        entry = _WITH[(id(target), keys)] = (target, both)
    if entry[1] is None:
        return None
    event_id = new_id()
    entry[1].all(conn, {**row, "event_id": event_id, "event_type": type_, "event_at": at,
                        "event_data": data})
    return event_id


def horizon(dialect: str) -> Any:
    """The first transaction id that may still commit events: those below it are final."""
    if dialect == "postgresql":
        return func.txid_snapshot_xmin(func.txid_current_snapshot())
    return literal(1)


def after(position: tuple[int, int]) -> Any:
    tx, seq = position
    return or_(EVENTS.c.tx > tx, and_(EVENTS.c.tx == tx, EVENTS.c.seq > seq))


def events_after(conn: Connection, position: tuple[int, int], limit: int,
                 types: Sequence[str] | None = None) -> list[Any]:
    """Up to `limit` final events after `position`, in order."""
    stmt = (select(EVENTS).where(after(position), EVENTS.c.tx < horizon(conn.dialect.name))
            .order_by(EVENTS.c.tx, EVENTS.c.seq).limit(limit))
    if types:
        stmt = stmt.where(EVENTS.c.type.in_(list(types)))
    return list(conn.execute(stmt))


def last(conn: Connection) -> tuple[int, int]:
    """The position of the newest final event (0, 0 when there is none)."""
    row = conn.execute(select(EVENTS.c.tx, EVENTS.c.seq)
                       .where(EVENTS.c.tx < horizon(conn.dialect.name))
                       .order_by(EVENTS.c.tx.desc(), EVENTS.c.seq.desc()).limit(1)).first()
    return (int(row.tx), int(row.seq)) if row is not None else (0, 0)


def position_text(tx: int, seq: int) -> str:
    return f"{tx}.{seq}"


def parse_position(text: str) -> tuple[int, int]:
    tx, _, seq = text.partition(".")
    return int(tx), int(seq)


def as_json(row: Any) -> dict[str, Any]:
    """An event as it is listed and delivered: {id, type, at, data}."""
    at = row.at.isoformat().replace("+00:00", "Z")
    return {"id": row.id, "type": row.type, "at": at, "data": row.data}
