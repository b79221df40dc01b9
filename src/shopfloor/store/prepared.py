"""Prepared statements: the hottest reads, compiled once and run on the driver's cursor.

For the item read an agent makes most, SQLAlchemy's execution path (an execution
context, result metadata, event dispatch) cost ~4x what its statements cost in the
driver. `Prepared` runs the same compiled SQL on the same connection, with the
parameters and the result conversions (each column type's processors) Core would apply,
and gives Core's `Row`s. When anything listens to the engine's statement events or echo
is on, it runs through Core instead, so logging and statement counting see it; a driver
error is wrapped as Core wraps it (and a lost connection invalidated). """

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, Row
from sqlalchemy.engine.result import SimpleResultMetaData
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.selectable import CompoundSelect, Select


def connection_of(session: Session) -> Connection:
    """The connection a session's plain statements run on: the one it is bound to (a
    `plain_reading` session), else its transaction's (which it begins)."""
    bind = session.bind
    return bind if isinstance(bind, Connection) else session.connection()


def _observed(conn: Connection) -> bool:
    """Does anything log, count or intercept this connection's statements? Listeners are
    looked for on its engine (where logging and every listener here attach; a pooled
    connection's own dispatch is built afresh per checkout, and asking it costs more than
    the statement) and its dialect."""
    engine, dialect = conn.engine.dispatch, conn.dialect.dispatch
    return bool(getattr(conn, "_echo", True) or engine.before_execute or engine.after_execute
                or engine.before_cursor_execute or engine.after_cursor_execute
                or dialect.do_execute or dialect.handle_error)


class _Form:
    """A statement as one dialect runs it: SQL, the order of its parameters, their
    defaults (literals) and conversions, the result's keys and conversions."""

    def __init__(self, stmt: Select[Any] | CompoundSelect[Any], dialect: Dialect) -> None:
        compiled = stmt.compile(dialect=dialect)
        self.sql = compiled.string
        self.names = list(compiled.positiontup or []) if dialect.positional else None
        self.defaults = {name: bp.effective_value for bp, name in compiled.bind_names.items()
                         if not bp.required}
        self.required = {name for bp, name in compiled.bind_names.items() if bp.required}
        self.binders = {name: proc for bp, name in compiled.bind_names.items()
                        if (proc := bp.type.dialect_impl(dialect).bind_processor(dialect))}
        self.types = [c.type.dialect_impl(dialect) for c in stmt.selected_columns]
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


class Prepared:
    """A SELECT compiled once per dialect and run straight on the driver's cursor (see
    the module's docstring)."""

    def __init__(self, stmt: Select[Any] | CompoundSelect[Any]) -> None:
        self.stmt = stmt
        self._forms: dict[str, _Form] = {}

    def all(self, conn: Connection, params: Mapping[str, Any]) -> Sequence[Row[Any]]:
        if _observed(conn):
            return conn.execute(self.stmt, params).all()
        dialect = conn.dialect
        form = self._forms.get(dialect.name)
        if form is None:
            form = self._forms.setdefault(dialect.name, _Form(self.stmt, dialect))
        args = form.parameters(params)
        dbapi_conn = conn.connection
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute(form.sql, args)
            rows = cursor.fetchall()
            meta, procs = form.converters(cursor.description)
        except dialect.loaded_dbapi.Error as exc:
            lost = dialect.is_disconnect(exc, dbapi_conn.dbapi_connection, cursor)
            if lost:
                conn.invalidate(exc)
            raise DBAPIError.instance(form.sql, args, exc, dialect.loaded_dbapi.Error,
                                      dialect=dialect, connection_invalidated=lost) from exc
        finally:
            cursor.close()
        # Rows as Core's result makes them (its processors applied by the row itself).
        index = meta._key_to_index
        return [Row(meta, procs, index, r) for r in rows]
