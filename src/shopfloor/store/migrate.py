"""Schema migrations (Alembic), run by `shopfloor init` and on first use of a database; a
database with no table at all is built without Alembic (`store.fresh`)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, inspect, text
from sqlalchemy.exc import DBAPIError

from shopfloor.store import fresh
from shopfloor.store.engine import Store

_SCRIPTS = Path(__file__).parent / "migrations"


def _head() -> str:
    """The newest revision, from the file names (`NNNN_what.py` holds revision "NNNN"): the
    up-to-date check needs no Alembic import; a test holds it to Alembic's own head."""
    return max(p.name.split("_", 1)[0] for p in (_SCRIPTS / "versions").glob("[0-9]*_*.py"))


HEAD = _head()
REVISIONS = frozenset(p.name.split("_", 1)[0]
                      for p in (_SCRIPTS / "versions").glob("[0-9]*_*.py"))
"""Every revision this code knows: a restore refuses a database made by a newer one."""


def current(store: Store) -> str | None:
    """The stored revision: one statement when there is one (every start after the
    first); the schema is inspected only when it fails."""
    with store.engine.connect() as conn:
        try:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except DBAPIError:
            conn.rollback()
            if inspect(conn).has_table("alembic_version"):
                raise
            return None


def upgrade(store: Store) -> None:
    """Bring the database to HEAD: one statement when it is there; a new (empty) one is
    built from the tables' metadata; one at an older revision is migrated by Alembic."""
    if current(store) == HEAD or fresh.created(store, HEAD):
        return
    with store.engine.begin() as conn:
        migrate(conn)


def migrate(conn: Connection, revision: str = "head") -> None:
    """Migrate to `revision` inside the caller's transaction (a restore builds a backup's
    revision, loads it and goes on to head in one transaction)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(_SCRIPTS))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, revision)
