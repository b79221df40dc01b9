"""Connections and transactions.

Writes are serialised where they must be and retried where the database says to:
- SQLite: a write transaction starts with BEGIN IMMEDIATE, so two writers never both read
  and then fail to upgrade their lock; WAL keeps readers unblocked; `busy_timeout` waits.
- PostgreSQL: READ COMMITTED, with the rows a write depends on locked FOR UPDATE by the
  domain; serialization failures, deadlocks and optimistic-lock misses are retried.
A user never sees `database is locked`: it is waited out or retried, or it becomes a
coded error after the last attempt.

PostgreSQL connections are not pinged on checkout (a round trip before every
transaction); a connection the server has closed is noticed locally instead, see
`_configure_postgresql`.
"""

from __future__ import annotations

import random
import select
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Dialect, Engine, Row, create_engine, event, make_url
from sqlalchemy.engine.result import IteratorResult, SimpleResultMetaData
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.sql.selectable import CompoundSelect, Select

T = TypeVar("T")

_TRANSIENT_PG = {"40001", "40P01", "55P03"}


class RetryTransaction(Exception):
    """Raised inside a write to ask for the whole transaction to run again."""


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, RetryTransaction | StaleDataError):
        return True
    if isinstance(exc, DBAPIError):
        orig = exc.orig
        code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        if code in _TRANSIENT_PG:
            return True
        if isinstance(exc, OperationalError):
            text = str(orig).lower()
            return "database is locked" in text or "database is busy" in text
    return False


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        if conn.get_execution_options().get("shopfloor_write", False):
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # may wait, or fail as retryable
        else:
            # A deferred BEGIN takes no lock, so it cannot wait or fail: straight to the
            # driver, past a full statement execution (a fifth of a small read's cost).
            conn.connection.driver_connection.execute("BEGIN")


PG_POOL: dict[str, Any] = {
    "pool_size": 10,
    "max_overflow": 20,
    "pool_recycle": 1800,  # a connection a firewall may have forgotten is not reused
    "pool_use_lifo": True,  # idle ones age out and close; the warm ones stay warm
}
PG_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 60, "keepalives_interval": 10,
                 "keepalives_count": 3}
"""A peer gone without a word (a dropped network path) ends as a closed socket, which
the checkout's poll then sees; the database URL may set its own."""


def _hung_up(dbapi_conn: Any) -> bool:
    """Has the server closed (or spoken on) this idle connection? A socket poll, no round
    trip: an idle connection has nothing to read, so a readable one carries the server's
    goodbye (a restart, pg_terminate_backend, an idle timeout) or end of file."""
    if dbapi_conn.closed or getattr(dbapi_conn, "broken", False):  # psycopg 3, or psycopg2
        return True
    fd = dbapi_conn.fileno()
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [fd], 0)[0])


def _configure_postgresql(engine: Engine) -> None:
    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        """The pool reconnects (and retries the checkout) on DisconnectionError. A drop
        after this look is a disconnect error on the first statement: SQLAlchemy then
        invalidates the pool, so one transaction fails, not every pooled connection."""
        if _hung_up(dbapi_conn):
            raise DisconnectionError("the server closed this pooled connection")


class Store:
    """One database: an engine and the two kinds of transaction Shopfloor uses."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"echo": echo}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            given = make_url(url).query
            kwargs.update(PG_POOL, connect_args={k: v for k, v in PG_KEEPALIVES.items()
                                                 if k not in given})
        self.engine: Engine = create_engine(url, **kwargs)
        self.dialect = self.engine.dialect.name
        if self.dialect == "sqlite":
            _configure_sqlite(self.engine)
        elif self.dialect == "postgresql":
            _configure_postgresql(self.engine)
        self._read = sessionmaker(self._reader(), expire_on_commit=False, autoflush=True)
        self._write = sessionmaker(
            self.engine.execution_options(shopfloor_write=True),
            expire_on_commit=False,
            autoflush=True,
        )

    @property
    def locks_rows(self) -> bool:
        """SQLite serialises whole write transactions; only PostgreSQL needs row locks."""
        return self.dialect == "postgresql"

    def _reader(self) -> Engine:
        """Reads on PostgreSQL run in autocommit: at READ COMMITTED every statement takes
        its own snapshot anyway, so a transaction around a read bought nothing but two
        round trips (BEGIN, ROLLBACK) and a transaction the server tracks. Switching the
        pooled connection to autocommit and back is local to the driver. On SQLite a
        deferred BEGIN keeps one snapshot across the read's statements, without a lock
        that blocks a writer (WAL)."""
        if self.dialect == "postgresql":
            return self.engine.execution_options(isolation_level="AUTOCOMMIT")
        return self.engine

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A read: what is committed, never a lock a writer waits on. Nothing it does is
        kept: closing the session rolls its connection back once, on the way to the pool
        (a rollback() first cost as much again, expiring what the session had loaded)."""
        with self._read() as session:
            yield session

    @contextmanager
    def plain_reading(self) -> Iterator[Session]:
        """`reading`, for a registry read: the connection is checked out and begun first and
        the session is bound to it, so a read that runs its statements on the connection
        (`connection_of`) never builds the session's transaction; one that uses the ORM
        joins the same transaction. Closing rolls the connection back and returns it."""
        with self._reader().connect() as conn:
            conn.begin()
            session = Session(bind=conn, expire_on_commit=False)
            try:
                yield session
            finally:
                session.close()

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A write transaction; the caller commits. Anything else rolls back."""
        with self._write() as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise

    def retrying(self, fn: Callable[[], T], *, attempts: int = 12) -> T:
        for attempt in range(attempts):
            try:
                return fn()
            except Exception as exc:
                if not is_transient(exc) or attempt == attempts - 1:
                    raise
                time.sleep(min(0.5, 0.005 * 2**attempt) * (0.5 + random.random()))
        raise AssertionError("unreachable")

    def dispose(self) -> None:
        self.engine.dispose()


def connection_of(session: Session) -> Connection:
    """The connection a session's plain statements run on: the one it is bound to (a
    `plain_reading` session), else its transaction's (which it begins)."""
    bind = session.bind
    return bind if isinstance(bind, Connection) else session.connection()


_STATEMENT_EVENTS = ("before_execute", "after_execute", "before_cursor_execute",
                     "after_cursor_execute")
_DIALECT_EVENTS = ("do_execute", "handle_error")


def _observed(conn: Connection) -> bool:
    """Does anything log, count or intercept this connection's statements?"""
    return (getattr(conn, "_echo", True)
            or any(getattr(conn.dispatch, e) for e in _STATEMENT_EVENTS)
            or any(getattr(conn.dialect.dispatch, e) for e in _DIALECT_EVENTS))


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
        self.results: tuple[Any, SimpleResultMetaData, list[tuple[int, Any]]] | None = None

    def parameters(self, given: Mapping[str, Any]) -> Any:
        if given.keys() != self.required:
            raise ValueError(f"parameters {sorted(given)}, expected {sorted(self.required)}")
        values = {**self.defaults, **given}
        for name, proc in self.binders.items():
            values[name] = proc(values[name])
        return values if self.names is None else tuple(values[n] for n in self.names)

    def converters(self, description: Any) -> tuple[SimpleResultMetaData, list[tuple[int, Any]]]:
        """Keys and value conversions, from the first result's description (PostgreSQL's
        conversions depend on the column types the server reports), kept while it holds."""
        codes = tuple((d[0], d[1]) for d in description)
        if self.results is None or self.results[0] != codes:
            procs = [(i, p) for i, (t, d) in enumerate(zip(self.types, description, strict=True))
                     if (p := t.result_processor(self.dialect, d[1])) is not None]
            self.results = (codes, SimpleResultMetaData([d[0] for d in description]), procs)
        return self.results[1], self.results[2]


class Prepared:
    """A SELECT compiled once per dialect and run straight on the driver's cursor.

    For the hottest reads (`get_item`): SQLAlchemy's execution path (an execution
    context, result metadata, event dispatch) cost ~4x what the statement costs in the
    driver. The same compiled SQL runs on the same connection, with the parameters and the
    result conversions (each column type's processors) Core would apply, giving Core's
    `Row`s. When anything listens to the connection's statement events or echo is on, it
    runs through Core instead, so logging and statement counting see it; a driver error is
    wrapped as Core wraps it (and a lost connection invalidated).
    """

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
        if procs:
            rows = [_converted(r, procs) for r in rows]
        result: IteratorResult[Any] = IteratorResult(meta, iter(rows))
        return result.all()


def _converted(row: Sequence[Any], procs: list[tuple[int, Any]]) -> list[Any]:
    out = list(row)
    for i, proc in procs:
        out[i] = proc(out[i])
    return out
