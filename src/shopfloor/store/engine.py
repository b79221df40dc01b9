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

import contextlib
import logging
import random
import select
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.util import LRUCache

from shopfloor.store.sessions import WriteSession

T = TypeVar("T")
log = logging.getLogger("shopfloor.store")

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
            # A plain read has begun already (Store.plain_reading): its ORM joins that.
            driver = conn.connection.driver_connection
            if not driver.in_transaction:
                driver.execute("BEGIN")


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


def _driver(conn: Connection) -> Any:
    """The DBAPI driver's own connection under a SQLAlchemy one."""
    return conn.connection.driver_connection


class SharedCompiled:
    """Compiled statements shared by every engine of one kind in the process: SQLAlchemy
    keys an engine's cache by its dialect object, so each new engine compiled every
    statement afresh. Keyed here by the dialect's name, driver and server version, as
    `prepared.py` keeps its forms: a statement compiles to the same SQL under every
    engine of one kind. A process with one database compiles as before; one that opens
    many (the tests open one a test, or a hypothesis example) compiles each statement
    once, where compiling had been a third to a half of a test's time."""

    def __init__(self, size: int) -> None:
        self._lru: LRUCache[Any, Any] = LRUCache(size)

    @staticmethod
    def _kind(key: tuple[Any, ...]) -> tuple[Any, ...]:
        dialect = key[0]
        return ((dialect.name, dialect.driver, dialect.server_version_info), *key[1:])

    def get(self, key: tuple[Any, ...], default: Any = None) -> Any:
        return self._lru.get(self._kind(key), default)

    def __setitem__(self, key: tuple[Any, ...], value: Any) -> None:
        self._lru[self._kind(key)] = value


COMPILED = SharedCompiled(2000)


class Store:
    """One database: an engine and the two kinds of transaction Shopfloor uses."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"echo": echo,
                                  "execution_options": {"compiled_cache": COMPILED}}
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
        self._read_engine = self._reader()
        self._pinned_thread: int | None = None
        self._pin: Connection | None = None
        self._pin_busy = False
        self._spare: tuple[Connection, Session] | None = None
        """The pinned connection's last session, left untouched by its read: the next
        read on that connection takes it rather than building one (~2 us a read)."""
        self._read = sessionmaker(self._read_engine, expire_on_commit=False, autoflush=True)
        self._write = sessionmaker(
            self.engine.execution_options(shopfloor_write=True), class_=WriteSession,
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

    def pin_reads(self) -> None:
        """Keep one connection for the plain reads of the calling thread: a server with one
        client that reads on its event loop (MCP over stdio). Checking a connection out of
        the pool and back in cost as much as an item read's statements; one pinned
        connection is all one thread can use at a time. Other threads use the pool."""
        self._pinned_thread = threading.get_ident()

    def _pinned(self) -> Connection | None:
        """The calling thread's pinned connection, idle and alive; None when this thread
        has none or is already reading on it (a read within a read takes the pool's)."""
        if self._pinned_thread != threading.get_ident() or self._pin_busy:
            return None
        conn = self._pin
        if conn is None:
            conn = self._pin = self._read_engine.connect()
        elif self.dialect == "postgresql" and _hung_up(conn.connection.dbapi_connection):
            conn.invalidate()  # as the pool's checkout would: reconnects on next use
        return conn

    @contextmanager
    def plain_reading(self) -> Iterator[Session]:
        """`reading`, for a registry read: the connection is taken (pinned, see `pin_reads`,
        or from the pool) and the session is bound to it, so a read that runs its
        statements on the connection (`store.prepared`) builds neither the session's
        transaction nor the connection's: on SQLite the driver begins (deferred: one
        snapshot for the read's statements, no lock), and SQLAlchemy's transaction, if the
        ORM begins one, joins it; PostgreSQL reads are in autocommit. At the end the
        connection is rolled back (and returned); a session left unused needs no
        closing."""
        pinned = self._pinned()
        if pinned is not None:
            conn, self._pin_busy = pinned, True
        else:
            conn = self._read_engine.connect()
        try:
            if self.dialect == "sqlite":
                _driver(conn).execute("BEGIN")
            spare = self._spare if pinned is not None else None  # (the pinned thread's)
            if spare is not None and spare[0] is conn:
                session, self._spare = spare[1], None
            else:
                session = Session(bind=conn, expire_on_commit=False)
            try:
                yield session
            finally:
                if session.in_transaction() or session.identity_map or session.new:
                    session.close()
                elif pinned is not None and not session.info:
                    self._spare = (conn, session)  # as built: nothing ever used it
        finally:
            if pinned is None:
                conn.close()
            else:
                self._release_pin(conn)

    def _release_pin(self, conn: Connection) -> None:
        """End the pinned connection's read; one that cannot even roll back is dropped (the
        next read pins a fresh one): the read itself has already succeeded or failed."""
        self._pin_busy = False
        try:
            if conn.in_transaction():
                conn.rollback()
            elif self.dialect == "sqlite":
                _driver(conn).rollback()
        except Exception:
            log.warning("dropping the pinned read connection", exc_info=True)
            self._pin = self._spare = None
            with contextlib.suppress(Exception):
                conn.invalidate()
                conn.close()

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
        self._pinned_thread = self._spare = None
        if self._pin is not None:
            pin, self._pin = self._pin, None
            pin.close()
        self.engine.dispose()

