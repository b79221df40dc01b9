"""The schema is the models', on both databases, and Alembic's head is the one the code knows
without importing Alembic."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Base
from tests.helpers import ADMIN

pytestmark = pytest.mark.quick


def test_the_test_databases_schema_matches_the_models(registry: Registry) -> None:
    """(Built from the models, see store/fresh.py; test_fresh_schema.py holds a database
    built by the migrations to the models and to one built from them.)"""
    with registry.store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_server_default": True})
        diff = compare_metadata(context, Base.metadata)
    assert diff == [], diff


def test_open_registry_is_idempotent_on_a_migrated_database(db_url: str) -> None:
    from shopfloor.app.settings import Settings
    from shopfloor.store import migrate

    for _ in range(2):
        registry = open_registry(Settings(database_url=db_url))
        assert migrate.current(registry.store) == migrate.HEAD
        assert registry.invoke("list_locations", {}, ADMIN)["locations"] == []
        registry.store.dispose()


def test_the_fast_path_head_is_alembics_head() -> None:
    """open_registry skips Alembic when the database is at HEAD: a stale HEAD would run
    Alembic on every start, or (worse) skip a migration."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from shopfloor.store import migrate

    cfg = Config()
    cfg.set_main_option("script_location", str(migrate._SCRIPTS))
    assert ScriptDirectory.from_config(cfg).get_current_head() == migrate.HEAD
