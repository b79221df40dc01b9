"""Databases for the tests: a fresh SQLite file and a fresh PostgreSQL schema.

Tests of the concepts take the `db_url` fixture and so run on both. PostgreSQL
must be reachable at 127.0.0.1:5432 (database `test`): if it is not, those tests fail
with a message saying so; they never skip silently.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.engine import Store
from shopfloor.store.migrate import upgrade
from shopfloor.store.tables import Base
from tests.copies import Copies
from tests.given import Given
from tests.helpers import registry_at

# argon2-cffi's test profile for every password the suite hashes, in this process and the
# servers and CLIs it starts (tests/accounts checks the real parameters stay the default)
os.environ["SHOPFLOOR_PASSWORD_HASHING"] = "cheapest-for-tests"
PG_URL = os.environ.get("SHOPFLOOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
ADMIN = Actor.of("alice", "admin")


# The browser tests in two groups of about equal time (measured 2026-11-27 on the shared
# machine, one Chromium a worker: about 305 s of test time each; with a Chromium a test
# they had drifted to 390 s and 610 s), each on one worker, one test at a time: no more
# than two Chromiums run at once. A new browser module joins the second group. The demo
# company's tests (test_admin_day, test_admin_mrp) share a group: it is built once.
FIRST_BROWSER_GROUP = ("test_admin_day", "test_admin_mrp", "test_admin_guards",
                       "test_admin_floor_forms", "test_admin_records", "test_admin_office",
                       "test_admin_partners")


def _browser_group(item: pytest.Item) -> str:
    return "browser-1" if item.path.stem in FIRST_BROWSER_GROUP else "browser-2"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`--dist loadgroup`) each browser group runs on one worker, in
    parallel with the other group and the rest of the suite; one group held every browser
    test and was the run's long pole."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group(_browser_group(item)))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.db"
    store = Store(f"sqlite:///{path}")
    upgrade(store)
    store.dispose()
    return path


@pytest.fixture(scope="session")
def pg_schema_url() -> Iterator[str]:
    engine = create_engine(PG_URL)
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:  # pragma: no cover - environment failure
        pytest.fail(
            f"PostgreSQL is not reachable at {PG_URL} ({type(exc).__name__}). Start it with "
            "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` or set "
            "SHOPFLOOR_TEST_PG. PostgreSQL tests never skip.",
            pytrace=False,
        )
    schema = f"t_{uuid.uuid4().hex[:10]}"
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    store = Store(url)
    upgrade(store)
    store.dispose()
    yield url
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    engine.dispose()


def _truncate(url: str) -> None:
    """Every table emptied and every sequence restarted, in one round trip. DELETE rather
    than TRUNCATE: a test leaves a few rows, and TRUNCATE makes new files for each of ~50
    tables and their indexes (0.6-1.9 s a test on the shared machine, DELETE 0.1 s)."""
    empty = "; ".join([
        "SET LOCAL session_replication_role = replica",  # no foreign key or trigger checks
        *(f'DELETE FROM "{t.name}"' for t in reversed(Base.metadata.sorted_tables)),
        "SELECT setval(quote_ident(sequencename)::regclass, start_value, false) "
        "FROM pg_sequences WHERE schemaname = current_schema()",
    ])
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(empty)
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> str:
    if request.param == "sqlite":
        target = tmp_path / "shopfloor.db"
        shutil.copy(sqlite_template, target)
        return f"sqlite:///{target}"
    url: str = request.getfixturevalue("pg_schema_url")
    _truncate(url)
    return url


@pytest.fixture(scope="session")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Copies:
    """Companies built once a session, copied into each test's fresh database."""
    return Copies(tmp_path_factory.mktemp("copies"))


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    target = tmp_path / "shopfloor.db"
    shutil.copy(sqlite_template, target)
    return f"sqlite:///{target}"


@pytest.fixture
def registry(db_url: str) -> Iterator[Registry]:
    with registry_at(db_url) as reg:
        yield reg


@pytest.fixture
def given(registry: Registry) -> Given:
    """The test's company, said in the fixture language of tests/given.py."""
    return Given(registry)
