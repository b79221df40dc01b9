"""A new database's schema in one step, without Alembic: the first CLI call on a new file
(and `init`, `serve`, `run`, `mcp`) would otherwise import Alembic and replay every
migration to build what the tables' metadata already says.

A database with no table at all gets the metadata's tables (`create_all`) and Alembic's
version table at head, in one transaction. Nothing else: on an empty database every
migration's data step finds no row to change, and none seeds a row. A database with any
table goes through Alembic as before (`migrate.upgrade`). tests/system/test_fresh_schema.py
builds one database each way, on both databases, and holds them equal: every table,
column (type, nullability, server default), index, constraint and row.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Connection,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    inspect,
    text,
)

from shopfloor.store.engine import Store

VERSION = Table("alembic_version", MetaData(),
                Column("version_num", String(32), nullable=False),
                PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))
"""Alembic's own version table, as its `MigrationContext` makes it."""


def create(conn: Connection, revision: str) -> None:
    """The schema at `revision` (head: this code's tables) into an empty database, inside
    the caller's transaction."""
    from shopfloor.store.tables import Base

    Base.metadata.create_all(conn)
    VERSION.create(conn)
    conn.execute(VERSION.insert().values(version_num=revision))


def created(store: Store, revision: str) -> bool:
    """Build the schema if the database holds no table; False (nothing done) if it holds
    any. On SQLite the look and the build are one write transaction (BEGIN IMMEDIATE):
    a second process starting at once waits, then finds the tables; PostgreSQL's
    transactional DDL gets the same from a lock on the schema's name held to the commit."""
    with store.engine.execution_options(shopfloor_write=True).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(current_schema()))"))
        if inspect(conn).get_table_names():
            return False
        create(conn, revision)
    return True
