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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

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


_SEEN: WeakKeyDictionary[Connection, bool] = WeakKeyDictionary()
"""`_observed`'s answer per connection object: asked once per transaction (a session's
connection lives as long as it), not per statement (2.4 µs each, a dozen an apply)."""


def _observed(conn: Connection) -> bool:
    """Does anything log, count or intercept this connection's statements? Listeners are
    looked for on its engine (where logging and every listener here attach; a pooled
    connection's own dispatch is built afresh per checkout, and asking it costs more than
    the statement) and its dialect, when the connection is first asked: a listener
    added later sees the connections opened after it."""
    known = _SEEN.get(conn)
    if known is None:
        known = _SEEN[conn] = _listened(conn)
    return known


def _listened(conn: Connection) -> bool:
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
        self.results: tuple[SimpleResultMetaData, list[Any] | None] | None = None

    def parameters(self, given: Mapping[str, Any]) -> Any:
        if given.keys() != self.required:
            raise ValueError(f"parameters {sorted(given)}, expected {sorted(self.required)}")
        values = {**self.defaults, **given}
        for name, proc in self.binders.items():
            values[name] = proc(values[name])
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

        rows, said = on_cursor(conn, form.sql, args, run)
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


def on_cursor(conn: Connection, sql: str, args: Any, run: Callable[[Any], T]) -> T:
    """`run` on a cursor of the connection's driver connection, in its transaction; a
    driver error raised as Core raises it (an IntegrityError stays one, a lost
    connection is invalidated)."""
    dialect = conn.dialect
    dbapi_conn = conn.connection
    cursor = dbapi_conn.cursor()
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
