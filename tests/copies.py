"""A company built once a session, handed to each test as its own fresh copy.

Building a company through the tools (tens of writes and an MRP run) took seconds a test;
copying it takes milliseconds. A test still gets a database no other test has written:
on SQLite a copy of the built file, on PostgreSQL the worker's schema truncated and
loaded again with the built rows (COPY) and sequence values. The builder runs once per
key, dialect and pytest worker; what it returns (document numbers, ids) is handed back
with every copy.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url
from sqlalchemy.pool import NullPool

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Base

Build = Callable[[Registry], Any]


@dataclass(frozen=True)
class _Built:
    refs: Any
    file: Path | None = None  # SQLite: the built database
    rows: tuple[tuple[str, bytes], ...] = ()  # PostgreSQL: each table's COPY text
    sequences: tuple[tuple[str, int], ...] = ()


def _sqlite_file(url: str) -> Path:
    database = make_url(url).database
    assert database, url
    return Path(database)


def _pg_capture(url: str) -> tuple[tuple[tuple[str, bytes], ...], tuple[tuple[str, int], ...]]:
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            raw: Any = conn.connection.driver_connection
            rows = []
            with raw.cursor() as cur:
                for table in Base.metadata.sorted_tables:
                    data = bytearray()
                    # by name: a database built from the tables orders its columns as
                    # they are declared, a migrated one adds a column last
                    columns = ", ".join(f'"{c.name}"' for c in table.columns)
                    with cur.copy(f'COPY "{table.name}" ({columns}) TO STDOUT') as copy:
                        for chunk in copy:
                            data += chunk
                    if data:
                        rows.append((table.name, bytes(data)))
                cur.execute("SELECT sequencename, last_value FROM pg_sequences "
                            "WHERE schemaname = current_schema() AND last_value IS NOT NULL")
                sequences = tuple((str(n), int(v)) for n, v in cur.fetchall())
            conn.rollback()
    finally:
        engine.dispose()
    return tuple(rows), sequences


def _pg_load(url: str, built: _Built) -> None:
    """Into a truncated schema. Foreign keys are not checked while loading (the rows were
    consistent when copied, and COPY's order need not be the order they were made in)."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as conn:
            raw: Any = conn.connection.driver_connection
            with raw.cursor() as cur:
                cur.execute("SET LOCAL session_replication_role = replica")
                for name, data in built.rows:
                    columns = ", ".join(f'"{c.name}"' for c in Base.metadata.tables[name].columns)
                    with cur.copy(f'COPY "{name}" ({columns}) FROM STDIN') as copy:
                        copy.write(data)
                if built.sequences:  # in one round trip
                    cur.execute("SELECT " + ", ".join(
                        "setval(%s::regclass, %s, true)" for _ in built.sequences),
                        [v for name, value in built.sequences for v in (f'"{name}"', value)])
    finally:
        engine.dispose()


class Copies:
    """The session's built companies, by key and dialect."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.built: dict[tuple[str, str], _Built] = {}

    def restore(self, db_url: str, key: str, build: Build) -> Any:
        """Make the fresh database at `db_url` hold the company `build` makes; its refs."""
        dialect = "sqlite" if db_url.startswith("sqlite") else "postgresql"
        known = self.built.get((key, dialect))
        if known is None:
            reg = open_registry(Settings(database_url=db_url))
            try:
                refs = build(reg)
            finally:
                reg.store.dispose()
            if dialect == "sqlite":
                file = self.root / f"{key}.db"
                shutil.copy(_sqlite_file(db_url), file)
                self.built[(key, dialect)] = _Built(refs, file=file)
            else:
                rows, sequences = _pg_capture(db_url)
                self.built[(key, dialect)] = _Built(refs, rows=rows, sequences=sequences)
            return refs
        if known.file is not None:
            shutil.copy(known.file, _sqlite_file(db_url))
        else:
            _pg_load(db_url, known)
        return known.refs

    @contextmanager
    def opened(self, db_url: str, key: str, build: Build) -> Iterator[tuple[Registry, Any]]:
        """`restore`, then a registry on the copy and its refs, disposed afterwards."""
        refs = self.restore(db_url, key, build)
        reg = open_registry(Settings(database_url=db_url))
        try:
            yield reg, refs
        finally:
            reg.store.dispose()
