"""The rows an apply leaves beside its own: the operation log, the idempotency key with
its result, the spent preview token. Exactly once rests on their unique indexes.

Each statement is built once: on the write path, constructing one costs more than
running it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Conflict
from shopfloor.kernel.events import EventType
from shopfloor.registry.tool import Done
from shopfloor.store import outbox
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import IdempotencyKey, OperationLog, SpentPreviewToken, table

IDEMPOTENCY = table(IdempotencyKey)
_KEY = select(IDEMPOTENCY.c.tool, IDEMPOTENCY.c.actor, IDEMPOTENCY.c.request_hash,
              IDEMPOTENCY.c.result).where(IDEMPOTENCY.c.key == bindparam("key"))
_SPEND = insert(table(SpentPreviewToken))
_REMEMBER = insert(IDEMPOTENCY)
LOG = table(OperationLog)
_LOG = Prepared(insert(LOG))


def key_row(session: Any, key: str) -> Any:
    return session.connection().execute(_KEY, {"key": key}).one_or_none()


def replay(session: Any, key: str | None, tool: str, actor: str,
           digest: str) -> dict[str, Any] | None:
    """The first result of this key, if the key was used for this very request; None when
    the request has no key or the key is new."""
    row = key_row(session, key) if key is not None else None
    if row is None:
        return None
    if row.tool != tool or row.actor != actor or row.request_hash != digest:
        raise Conflict("this idempotency_key was already used for a different request",
                       field="idempotency_key")
    return {**row.result, "replayed": True}


def twin_won(session: Any, key: str | None) -> bool:
    """After a failed apply: did a racing repeat with the same key commit first? Read in a
    transaction of its own, then let go of it (on SQLite it holds the write lock, and a
    fresh preview comes next)."""
    session.rollback()
    if key is None:
        return False
    try:
        return key_row(session, key) is not None
    finally:
        session.rollback()


def spend(session: Any, nonce: str, at: datetime) -> None:
    """Raises IntegrityError when the token was spent already."""
    session.connection().execute(_SPEND, {"nonce": nonce, "spent_at": at})


def remember(session: Any, key: str | None, tool: str, actor: str, digest: str,
             result: dict[str, Any], at: datetime) -> None:
    """The key's one row, written with its result at the end of the apply: a racing twin
    fails on the unique index, starts over and replays this result."""
    if key is None:
        return
    try:
        session.connection().execute(_REMEMBER, {
            "key": key, "actor": actor, "tool": tool, "request_hash": digest,
            "result": result, "created_at": at})
    except IntegrityError:
        raise RetryTransaction from None


def record(session: Any, tool: str, op: Op, done: Done[Any], args: dict[str, Any],
           idempotency_key: str | None) -> dict[str, Any]:
    """The apply's result, its one operation-log row and its event (the outbox), all in
    the same transaction."""
    assert op.operation_id is not None
    result = {
        "applied": True,
        "replayed": False,
        "summary": done.summary,
        "operation_id": op.operation_id,
        **done.document.model_dump(mode="json"),
        "changes": op.final_changes(),
        "warnings": [w.as_dict() for w in op.warnings],
    }
    conn = session.connection()
    row = {"operation_id": op.operation_id, "tool": tool, "actor": op.actor,
           "arguments": args, "result": result, "idempotency_key": idempotency_key,
           "created_at": op.now}
    data = {"operation_id": op.operation_id, "tool": tool, "summary": done.summary,
            "actor": op.actor}
    if outbox.emit_with_row(conn, LOG, row, EventType.operation_applied, data,
                            op.now) is None:
        _LOG.all(conn, row)
        outbox.emit(conn, EventType.operation_applied, data, op.now)
    return result
