"""executemany at the driver, for the few statements the write path runs once per document
with a row per line (ledger rows, document lines, balance updates).

SQLAlchemy's executemany builds each row's parameters through the compiled statement
(`construct_params`, default handling, one type-processor call per value): about half of
a 100-line adjustment's apply went there. Here the statement is compiled once per
dialect and set of columns, each column's bind processor looked up once, and the rows go
to the DB-API cursor as plain tuples (or dicts, for a named paramstyle): the same SQL, the
same conversions (our `Dec` and `UtcDateTime` types run as before), through the same
connection and transaction, with the engine's statement events firing as usual.

On SQLite only: sqlite3's executemany runs in process, while on PostgreSQL SQLAlchemy's
own path already sends many rows per statement ("insertmanyvalues"), which per-row
execution at the driver would lose. A statement that needs what only SQLAlchemy's path
does (a column default computed in Python for a column the rows leave out, an expanding
parameter) is run by SQLAlchemy instead, so this is only ever faster, never different.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.sql.dml import UpdateBase, ValuesBase

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Plan:
    sql: str
    names: tuple[str, ...]
    processors: tuple[Processor, ...]

    def params(self, rows: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
        """The rows as the driver takes them, converted column by column: a value that is
        the very object the row above had (the operation's timestamp, its actor, a
        repeated quantity) is converted once."""
        get = itemgetter(*self.names)
        table = [list(get(r)) for r in rows] if len(self.names) > 1 else [
            [get(r)] for r in rows]
        for i, convert in enumerate(self.processors):
            if convert is None:
                continue
            prev: Any = _UNSET
            done: Any = None
            for t in table:
                v = t[i]
                if v is not prev:
                    prev, done = v, convert(v)
                t[i] = done
        return list(map(tuple, table))


_UNSET = object()


_PLANS: dict[tuple[int, tuple[str, ...]], tuple[UpdateBase, _Plan | None]] = {}
"""By the statement's id, holding the statement itself: an id is never reused while its
plan is kept (the write path's statements are module constants)."""


def _plan(conn: Connection, stmt: UpdateBase, keys: tuple[str, ...]) -> _Plan | None:
    dialect = conn.dialect
    compiled = stmt.compile(dialect=dialect, column_keys=list(keys) if isinstance(
        stmt, ValuesBase) else None)
    if compiled.insert_prefetch or compiled.update_prefetch or any(
            b.expanding for b in compiled.binds.values()) or not compiled.positional:
        return None  # Python-side defaults or expanding parameters: SQLAlchemy's own path
    names = tuple(compiled.positiontup or ())
    if set(names) - set(keys):
        return None
    processors = tuple(compiled.binds[n].type.dialect_impl(dialect).bind_processor(dialect)
                       for n in names)
    return _Plan(compiled.string, names, processors)


def executemany(conn: Connection, stmt: UpdateBase,
                rows: Sequence[Mapping[str, Any]]) -> int:
    """Run `stmt` once per row (every row with the same keys); returns the rows affected
    (-1 where the driver cannot tell)."""
    if not rows:
        return 0
    if conn.dialect.name != "sqlite":  # psycopg: SQLAlchemy batches rows into few statements
        return int(conn.execute(stmt, list(rows)).rowcount)
    keys = tuple(rows[0])
    cache_key = (id(stmt), keys)
    entry = _PLANS.get(cache_key)
    if entry is None or entry[0] is not stmt:
        entry = _PLANS[cache_key] = (stmt, _plan(conn, stmt, keys))
    plan = entry[1]
    if plan is None:
        return int(conn.execute(stmt, list(rows)).rowcount)
    return int(conn.exec_driver_sql(plan.sql, plan.params(rows)).rowcount)
