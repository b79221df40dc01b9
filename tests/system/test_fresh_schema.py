"""A new database is built from the tables' metadata (`store.fresh`), not by replaying the
migrations: the two must give the same database, on both databases. One built each way is
compared whole: tables, columns (type, nullability, server default), primary keys,
indexes, unique, foreign and check constraints, PostgreSQL's sequences, and every table's
rows (none, as no migration seeds one: a migration that did would fail here until the fast
path makes the same rows).

Column order is not compared: a column a migration added comes last in its table, where
the metadata declares it among its kin; every statement names its columns.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, create_engine, inspect, text
from sqlalchemy.pool import NullPool

from shopfloor.store import fresh, migrate
from shopfloor.store.engine import Store
from shopfloor.store.tables import Base
from tests.conftest import PG_URL

pytestmark = pytest.mark.quick


@pytest.fixture(params=["sqlite", "postgresql"])
def empty(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Stores on new, empty databases of the parameter's kind, disposed of after."""
    stores: list[Store] = []
    schemas: list[str] = []
    if request.param == "postgresql":
        request.getfixturevalue("pg_schema_url")  # fails loudly if PostgreSQL is away
    admin = create_engine(PG_URL, poolclass=NullPool)

    def make() -> Store:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / f'{uuid.uuid4().hex[:8]}.db'}"
        else:
            schemas.append(f"f_{uuid.uuid4().hex[:10]}")
            with admin.begin() as conn:
                conn.execute(text(f"CREATE SCHEMA {schemas[-1]}"))
            url = f"{PG_URL}?options=-csearch_path%3D{schemas[-1]}"
        stores.append(Store(url))
        return stores[-1]

    yield make
    for store in stores:
        store.dispose()
    with admin.begin() as conn:
        for name in schemas:
            conn.execute(text(f"DROP SCHEMA {name} CASCADE"))


def schema(conn: Connection) -> dict[str, Any]:
    insp = inspect(conn)
    found: dict[str, Any] = {"sequences": sorted(insp.get_sequence_names())
                             if conn.dialect.name == "postgresql" else []}
    for table in insp.get_table_names():
        found[table] = {
            "columns": {c["name"]: (str(c["type"]), c["nullable"], c.get("default"),
                                    c.get("autoincrement"))
                        for c in insp.get_columns(table)},
            "primary key": insp.get_pk_constraint(table),
            "indexes": sorted((i["name"], i["column_names"], i["unique"])
                              for i in insp.get_indexes(table)),
            "unique": sorted((u["name"], u["column_names"])
                             for u in insp.get_unique_constraints(table)),
            "foreign": sorted((f["name"], f["constrained_columns"], f["referred_table"],
                               f["referred_columns"], sorted(f["options"].items()))
                              for f in insp.get_foreign_keys(table)),
            "checks": sorted((c["name"], c["sqltext"]) for c in insp.get_check_constraints(table)),
        }
    return found


def rows(conn: Connection) -> dict[str, list[tuple[Any, ...]]]:
    return {table: sorted((tuple(r) for r in conn.execute(text(f'SELECT * FROM "{table}"'))),
                          key=repr)
            for table in inspect(conn).get_table_names()}


def test_a_new_database_built_from_the_tables_is_the_migrated_one(
        empty: Callable[[], Store]) -> None:
    migrated, built = empty(), empty()
    with migrated.engine.begin() as conn:
        migrate.migrate(conn)
    assert fresh.created(built, migrate.HEAD)
    with migrated.engine.connect() as a, built.engine.connect() as b:
        by_migrations, by_metadata = schema(a), schema(b)
        assert len(by_metadata) > 50 and "alembic_version" in by_metadata
        assert by_metadata.keys() == by_migrations.keys()
        for table, described in by_migrations.items():
            assert by_metadata[table] == described, table
        assert rows(b) == rows(a)
        assert rows(b)["alembic_version"] == [(migrate.HEAD,)]
    assert migrate.current(built) == migrate.HEAD


def test_the_migrations_build_what_the_tables_declare_server_defaults_included(
        empty: Callable[[], Store]) -> None:
    store = empty()
    with store.engine.begin() as conn:
        migrate.migrate(conn)
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_server_default": True,
                                                         "compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    assert diff == [], diff


def test_upgrade_builds_only_an_empty_database_and_migrates_an_older_one(
        empty: Callable[[], Store]) -> None:
    new, older = empty(), empty()
    migrate.upgrade(new)
    assert migrate.current(new) == migrate.HEAD
    assert not fresh.created(new, migrate.HEAD)  # it has tables now: left alone
    previous = sorted(migrate.REVISIONS)[-2]
    with older.engine.begin() as conn:
        migrate.migrate(conn, previous)
    assert migrate.current(older) == previous
    migrate.upgrade(older)  # through Alembic: the fast path never touches a table-holding one
    assert migrate.current(older) == migrate.HEAD
    with new.engine.connect() as a, older.engine.connect() as b:
        assert schema(a) == schema(b)


def test_two_processes_starting_on_one_new_database_both_find_it_built(
        empty: Callable[[], Store]) -> None:
    """Two first calls at once (a CLI call while `serve` starts): one builds, the other
    waits for it and finds the tables, where without the lock both would build and one
    fail on a table the other made."""
    first = empty()
    second = Store(str(first.engine.url.render_as_string(hide_password=False)))
    start = threading.Barrier(2)
    failed: list[BaseException] = []

    def begin(store: Store) -> None:
        start.wait()
        try:
            migrate.upgrade(store)
        except BaseException as e:  # the test's finding, asserted below
            failed.append(e)

    runs = [threading.Thread(target=begin, args=(s,)) for s in (first, second)]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    second.dispose()
    assert failed == []
    assert migrate.current(first) == migrate.HEAD
