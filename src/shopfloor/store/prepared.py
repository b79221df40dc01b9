"""Prepared statements: the hottest reads and single-row writes, compiled once and run on
the driver's cursor.

For the item read an agent makes most, SQLAlchemy's execution path (an execution
context, result metadata, event dispatch) cost ~4x what its statements cost in the
driver; an apply's dozen one-row statements (the location, the number, the document,
the operation log, its event, the journal entry) spent a fifth of a one-line
adjustment there. `Prepared` runs the same compiled SQL on the same connection, with the
parameters and the result conversions (each column type's processors) Core would apply,
and gives Core's `Row`s. When anything listens to the engine's statement events or echo
is on, it runs through Core instead, so logging and statement counting see it; a driver
error is wrapped as Core wraps it (an IntegrityError stays one, a lost connection is
invalidated). """

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, Dialect, Row
from sqlalchemy.engine.result import SimpleResultMetaData
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import UpdateBase, ValuesBase
from sqlalchemy.sql.selectable import CompoundSelect, Select

Statement = Select[Any] | CompoundSelect[Any] | UpdateBase


def connection_of(session: Session) -> Connection:
    """The connection a session's plain statements run on: the one it is bound to (a
    `plain_reading` session), else its transaction's (which it begins)."""
    bind = session.bind
    return bind if isinstance(bind, Connection) else session.connection()


_QUIET: weakref.WeakKeyDictionary[Connection, bool] = weakref.WeakKeyDictionary()
"""Write transactions' connections that nothing listened to when they began: asked once
per transaction (`quiet_while`), not once per statement (six event collections looked
at, ~2 us, a dozen times an apply)."""


def quiet_while(conn: Connection) -> None:
    """`conn` begins a write transaction: whether anything listens is decided now, for the
    transaction's statements (`heard` ends it). A listener is attached before the work it
    watches, as the bench's counter and the tests' are, never in the middle of it."""
    if not _observed(conn, ask=True):
        _QUIET[conn] = True


def heard(conn: Connection) -> None:
    """The transaction `quiet_while` began has ended: the next one asks again."""
    _QUIET.pop(conn, None)


def _observed(conn: Connection, ask: bool = False) -> bool:
    """Does anything log, count or intercept this connection's statements? Listeners are
    looked for on its engine (where logging and every listener here attach; a pooled
    connection's own dispatch is built afresh per checkout, and asking it costs more than
    the statement) and its dialect."""
    if not ask and conn in _QUIET:
        return False
    engine, dialect = conn.engine.dispatch, conn.dialect.dispatch
    return bool(getattr(conn, "_echo", True) or engine.before_execute or engine.after_execute
                or engine.before_cursor_execute or engine.after_cursor_execute
                or dialect.do_execute or dialect.handle_error)


class _Form:
    """A statement as one dialect runs it: SQL, the order of its parameters, their
    defaults (literals) and conversions, the result's keys and conversions."""

    def __init__(self, stmt: Statement, dialect: Dialect, keys: tuple[str, ...]) -> None:
        returned: Any
        if isinstance(stmt, UpdateBase):
            # an INSERT names the columns given; one row, so no implicit RETURNING
            compiled = stmt.compile(dialect=dialect, for_executemany=True, column_keys=list(
                keys) if isinstance(stmt, ValuesBase) else None)
            returned = stmt.exported_columns
        else:
            compiled = stmt.compile(dialect=dialect)
            returned = stmt.selected_columns
        if compiled.insert_prefetch or compiled.update_prefetch or any(
                b.expanding for b in compiled.binds.values()):
            raise _CoreOnly  # Python-side defaults or expanding parameters
        self.sql = compiled.string
        self.names = list(compiled.positiontup or []) if dialect.positional else None
        self.defaults = {name: bp.effective_value for bp, name in compiled.bind_names.items()
                         if not bp.required}
        self.required = {name for bp, name in compiled.bind_names.items() if bp.required}
        self.binders = {name: proc for bp, name in compiled.bind_names.items()
                        if (proc := bp.type.dialect_impl(dialect).bind_processor(dialect))}
        self.types = [c.type.dialect_impl(dialect) for c in returned]
        self.dialect = dialect
        self.raw: list[str] | None = None
        """PostgreSQL, a statement psycopg would parse again on every call: the order of
        its `$n` parameters (see `_numbered`)."""
        if dialect.name == "postgresql" and self.names is None and (
                len(compiled.bind_names) > _PG_PARAMS or len(self.sql) > _PG_LENGTH):
            numbered = _numbered(self.sql)
            if numbered is not None:
                self.sql, self.raw = numbered
        self.results: tuple[SimpleResultMetaData, list[Any] | None] | None = None

    def parameters(self, given: Mapping[str, Any]) -> Any:
        if given.keys() != self.required:
            raise ValueError(f"parameters {sorted(given)}, expected {sorted(self.required)}")
        values = {**self.defaults, **given}
        for name, proc in self.binders.items():
            values[name] = proc(values[name])
        if self.raw is not None:
            return tuple([values[n] for n in self.raw])
        return values if self.names is None else tuple([values[n] for n in self.names])

    def converters(self, description: Any) -> tuple[SimpleResultMetaData, list[Any] | None]:
        """Keys and value conversions, from the first result's description (PostgreSQL's
        conversions depend on the column types the server reports), then kept: as Core
        keeps a compiled statement's result metadata."""
        if self.results is None:
            procs = [t.result_processor(self.dialect, d[1])
                     for t, d in zip(self.types, description, strict=True)]
            self.results = (SimpleResultMetaData([d[0] for d in description]),
                            procs if any(procs) else None)
        return self.results


_PG_PARAMS, _PG_LENGTH = 50, 4096
"""psycopg keeps a query's parsed form only up to these (its `_queries` limits): a
hundred-line document's IN list of items or balances was parsed on every call, ~0.2 ms."""
_PLACEHOLDER = re.compile(r"%%|%\((\w+)\)s")


def _numbered(sql: str) -> tuple[str, list[str]] | None:
    """`%(name)s` placeholders made `$1, $2...` (and `%%` a `%`), for psycopg's raw
    cursor, which takes the query as it is and parses nothing; None for SQL this does not
    read exactly (a `$` of its own, a placeholder of another form)."""
    if "$" in sql:
        return None
    names: list[str] = []
    index: dict[str, int] = {}

    def number(found: re.Match[str]) -> str:
        name = found.group(1)
        if name is None:
            return "%"
        if name not in index:
            names.append(name)
            index[name] = len(names)
        return f"${index[name]}"

    out = _PLACEHOLDER.sub(number, sql)
    return None if "%" in _PLACEHOLDER.sub("", sql) else (out, names)


class _CoreOnly(Exception):
    """A statement only SQLAlchemy's own path runs as it should."""


class Prepared:
    """A statement compiled once per dialect (and, for an INSERT, set of columns given)
    and run straight on the driver's cursor (see the module's docstring)."""

    def __init__(self, stmt: Statement) -> None:
        self.stmt = stmt
        self._forms: dict[str, _Form | None] = {}
        """By dialect, and for an INSERT the columns given ("sqlite:a,b")."""
        self._by_keys = isinstance(stmt, ValuesBase)

    def _form(self, dialect: Dialect, params: Mapping[str, Any]) -> _Form | None:
        keys = tuple(params) if self._by_keys else ()
        name = f"{dialect.name}:{','.join(keys)}" if keys else dialect.name
        try:
            return self._forms[name]
        except KeyError:
            try:
                form: _Form | None = _Form(self.stmt, dialect, keys)
            except _CoreOnly:
                form = None
            return self._forms.setdefault(name, form)

    def first(self, conn: Connection, params: Mapping[str, Any]) -> Row[Any] | None:
        """The first row (an INSERT's or UPDATE's RETURNING), or None."""
        rows = self.all(conn, params)
        return rows[0] if rows else None

    def all(self, conn: Connection, params: Mapping[str, Any]) -> Sequence[Row[Any]]:
        dialect = conn.dialect
        form = None if _observed(conn) else self._form(dialect, params)
        if form is None:
            result = conn.execute(self.stmt, params)
            return result.all() if result.returns_rows else []
        args = form.parameters(params)

        def run(cursor: Any) -> tuple[list[Any], Any]:
            cursor.execute(form.sql, args)
            if not form.types:  # a write that returns nothing
                return [], None
            # (psycopg builds the description afresh each time it is asked for)
            return cursor.fetchall(), form.results or form.converters(cursor.description)

        rows, said = on_cursor(conn, form.sql, args, run, raw=form.raw is not None)
        if said is None:
            return []
        # Rows as Core's result makes them (its processors applied by the row itself).
        meta, procs = said
        index = meta._key_to_index
        return [Row(meta, procs, index, r) for r in rows]


T = TypeVar("T")


def observed(conn: Connection) -> bool:
    """Whether a statement on `conn` must go through Core (see `_observed`)."""
    return _observed(conn)


def on_cursor(conn: Connection, sql: str, args: Any, run: Callable[[Any], T], *,
              raw: bool = False) -> T:
    """`run` on a cursor of the connection's driver connection, in its transaction; a
    driver error raised as Core raises it (an IntegrityError stays one, a lost
    connection is invalidated). `raw`: psycopg's raw cursor (`$n` placeholders)."""
    dialect = conn.dialect
    dbapi_conn = conn.connection
    cursor = _raw_cursor(dbapi_conn) if raw else dbapi_conn.cursor()
    try:
        return run(cursor)
    except dialect.loaded_dbapi.Error as exc:
        lost = dialect.is_disconnect(exc, dbapi_conn.dbapi_connection, cursor)
        if lost:
            conn.invalidate(exc)
        raise DBAPIError.instance(sql, args, exc, dialect.loaded_dbapi.Error,
                                  dialect=dialect, connection_invalidated=lost) from exc
    finally:
        cursor.close()


def _raw_cursor(dbapi_conn: Any) -> Any:
    from psycopg import RawCursor  # (PostgreSQL's driver: loaded by then)

    return RawCursor(dbapi_conn.driver_connection)
