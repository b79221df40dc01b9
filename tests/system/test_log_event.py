"""An apply's operation-log row and its event: one statement on PostgreSQL
(`outbox.emit_with_row`), two on SQLite, the same rows either way, and neither without
the other."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from shopfloor.registry.records import LOG
from shopfloor.registry.registry import Registry
from shopfloor.store import outbox
from tests.helpers import ADMIN


def test_an_apply_logs_once_with_its_event(registry: Registry) -> None:
    done = registry.invoke("create_location", {"code": "MAIN", "name": "Main",
                                               "preview": False}, ADMIN)
    with registry.store.reading() as session:
        conn = session.connection()
        logged = conn.execute(select(LOG.c.tool, LOG.c.actor).where(
            LOG.c.operation_id == done["operation_id"])).all()
        told = [e.data for e in conn.execute(select(outbox.EVENTS))
                if e.data.get("operation_id") == done["operation_id"]]
    assert [tuple(r) for r in logged] == [("create_location", ADMIN.subject)]
    assert len(told) == 1 and told[0]["tool"] == "create_location"


def test_a_log_row_refused_takes_its_event_with_it(registry: Registry) -> None:
    done = registry.invoke("create_location", {"code": "MAIN", "name": "Main",
                                               "preview": False}, ADMIN)
    row = {"operation_id": done["operation_id"], "tool": "t", "actor": "a",
           "arguments": {}, "result": {}, "idempotency_key": None,
           "created_at": datetime.now(UTC)}
    with registry.store.reading() as session:
        before = session.connection().execute(
            select(func.count()).select_from(outbox.EVENTS)).scalar()
    with registry.store.writing() as session:
        conn = session.connection()
        if conn.dialect.name != "postgresql":
            assert outbox.emit_with_row(conn, LOG, row, "operation.applied", {}, row[
                "created_at"]) is None
            return
        with pytest.raises(IntegrityError):  # the operation id is taken
            outbox.emit_with_row(conn, LOG, row, "operation.applied", {}, row["created_at"])
        session.rollback()
    with registry.store.reading() as session:
        after = session.connection().execute(
            select(func.count()).select_from(outbox.EVENTS)).scalar()
    assert after == before
