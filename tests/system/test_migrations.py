"""The migrations build exactly the schema the models declare, on both databases."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Base
from tests.helpers import ADMIN

pytestmark = pytest.mark.quick


def test_migrated_schema_matches_the_models(registry: Registry) -> None:
    with registry.store.engine.connect() as conn:
        context = MigrationContext.configure(conn)
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
