"""A unique-constraint violation, read back as the `conflict` a check would have given.

It lives beside the schema because it reads the schema: which columns a constraint
covers, and which tables are bookkeeping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from shopfloor.kernel.errors import Conflict

# A domain checks a key is free before it inserts, but on PostgreSQL two writers can both
# pass that check; the loser meets the unique constraint instead. That is the same
# refusal the check would have given, so it gets the same code.

_SQLITE_UNIQUE = re.compile(r"^UNIQUE constraint failed: (?P<columns>.+)$")
_PG_DETAIL = re.compile(r"^Key \((?P<columns>.*?)\)=\((?P<values>.*)\) already exists",
                        re.DOTALL)
_IRREGULAR = {"batches": "batch"}
# Bookkeeping tables whose races the registry and the queue settle themselves (a repeated
# idempotency key replays, a spent token is stale, a job is claimed once): a violation
# there reaching a caller is a bug to log, never a conflict to report.
_BOOKKEEPING = frozenset({"idempotency_keys", "spent_preview_tokens", "operation_log",
                          "jobs", "sequences", "meta"})


def unique_violation(exc: BaseException, args: Mapping[str, Any]) -> Conflict | None:
    """The `conflict` for a unique-constraint violation (PostgreSQL sqlstate 23505,
    SQLite "UNIQUE constraint failed"), naming the key, and as `field` the argument that
    carried it; None for any other error and for the bookkeeping tables."""
    found = _violated(getattr(exc, "orig", None))
    if found is None:
        return None
    table, columns, values = found
    if table in _BOOKKEEPING:
        return None
    given = [c for c in columns if c in args]
    field = given[0] if len(given) == 1 else None
    noun = _IRREGULAR.get(table, table.removesuffix("s")).replace("_", " ")
    what = ", ".join(columns)
    value = args.get(field) if field is not None and len(columns) == 1 else None
    shown = repr(value) if isinstance(value, str) else values
    if shown:
        message = f"{noun} {what} {shown} already exists"
    else:
        message = f"another {noun} already has this {what}"
    return Conflict(message, field=field, details={"table": table, "columns": columns})


def _violated(orig: Any) -> tuple[str, list[str], str | None] | None:
    """(table, columns, the values as the database printed them) of a unique violation."""
    if orig is None:
        return None
    if getattr(orig, "sqlstate", None) == "23505":
        diag = orig.diag
        table = diag.table_name or ""
        detail = _PG_DETAIL.match(diag.message_detail or "")
        columns = _constraint_columns(table, diag.constraint_name)
        if columns is None and detail is not None:
            columns = [c.strip().strip('"') for c in detail["columns"].split(",")]
        values = None
        if detail is not None:
            one = len(columns or ()) == 1
            values = repr(detail["values"]) if one else f"({detail['values']})"
        return table, columns or [], values
    if getattr(orig, "sqlite_errorname", None) in ("SQLITE_CONSTRAINT_UNIQUE",
                                                   "SQLITE_CONSTRAINT_PRIMARYKEY"):
        match = _SQLITE_UNIQUE.match(str(orig))
        if match is None:
            return None
        pairs = [p.strip().partition(".") for p in match["columns"].split(",")]
        return pairs[0][0], [column for _, _, column in pairs], None
    return None


def _constraint_columns(table: str, name: str | None) -> list[str] | None:
    from shopfloor.store.tables import Base  # (every table: asked only on a violation)

    found = Base.metadata.tables.get(table)
    if found is None or name is None:
        return None
    keys: list[Any] = [*found.constraints, *found.indexes]
    for key in keys:
        if key.name == name:
            return [c.name for c in key.columns]
    return None
