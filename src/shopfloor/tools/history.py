"""The operation log: who changed what, when."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.registry.tool import Request, Toolset
from shopfloor.store.tables import OperationLog
from shopfloor.tools.fields import (
    Key,
    Limit,
    Name,
    Out,
    Page,
    RowCursor,
    Since,
)
from shopfloor.tools.pages import newest_first

tools = Toolset("history")


class LogQuery(Request):
    tool: Key | None = None
    actor: Name | None = None
    operation_id: Key | None = Field(None, description="one operation, with its result")
    since: Since | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


class LogEntry(Out):
    operation_id: str
    tool: str
    actor: str
    summary: str
    arguments: dict[str, Any]
    idempotency_key: str | None
    created_at: datetime
    result: dict[str, Any] | None = None


class LogPage(Page):
    entries: list[LogEntry]


@tools.read("get_operation_log", title="Operation log", response=LogPage,
            description="Applied writes, newest first: tool, arguments, actor, time, summary.")
def get_operation_log(op: Op, req: LogQuery) -> LogPage:
    log = OperationLog
    rows, next_cursor = newest_first(
        op, log, req.limit, req.cursor,
        log.tool == req.tool if req.tool else None,
        log.actor == req.actor if req.actor else None,
        log.created_at >= req.since if req.since else None,
        log.operation_id == req.operation_id if req.operation_id else None)
    return LogPage(entries=[LogEntry(operation_id=r.operation_id, tool=r.tool, actor=r.actor,
                                     summary=str(r.result.get("summary", "")),
                                     arguments=r.arguments, idempotency_key=r.idempotency_key,
                                     created_at=r.created_at,
                                     result=r.result if req.operation_id else None)
                            for r in rows],
                   next_cursor=next_cursor)
