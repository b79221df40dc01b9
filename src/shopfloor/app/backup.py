"""Backups: an online, consistent copy of the books, and a restore into an empty database.

Operations, not a tool: a backup holds the signing secret and every password hash, and a
restore brings back a whole company, so neither is in the catalogue (no agent can call
one). They are `shopfloor backup FILE` and `shopfloor restore FILE`, run by whoever runs
the server, while it runs.

- SQLite: the sqlite3 backup API copies every page in one step, under one read snapshot
  (WAL lets writers go on meanwhile), so a write is wholly in the copy or wholly not. The
  copy is a plain SQLite file (rollback journal, no -wal beside it), sealed: a table in it
  holds a SHA-256 of every row of every table, because SQLite's own checks see a broken
  b-tree but not a damaged overflow page (a long operation-log row) or a changed value.
  A restore is the same API the other way, after the file's rows match their seal.
- PostgreSQL: see `shopfloor.app.pg_backup` (pg_dump's custom format of our schema).

A restore goes only into an empty database (see `_refuse_sqlite_target` and
`pg_backup.restore`), never over a company, and only from a schema revision this code
knows; an older one is migrated to head after the restore.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import make_url

from shopfloor.app import pg_backup
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.store import migrate
from shopfloor.store.engine import Store

SQLITE_MAGIC = b"SQLite format 3\x00"
SEAL = "shopfloor_backup_seal"


@dataclass(frozen=True)
class Report:
    """What a backup or restore did, for the CLI to print."""

    file: str
    database: str
    revision: str
    """The schema revision the file holds."""
    bytes: int
    seconds: float
    upgraded_to: str | None = None
    """After a restore of an older revision: the revision it was migrated to."""

    def payload(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def backup(url: str, file: str | Path, *, overwrite: bool = False,
           pg_bin_dir: str = "") -> Report:
    """Copy the database at `url` to `file`, consistently, while it is in use. The copy is
    written beside `file` and renamed onto it when complete, so `file` is never a half
    backup; it is readable by its owner only (it holds the secret and password hashes)."""
    started = time.monotonic()
    kind = _backend(url)
    target = Path(file)
    with _staged(target, overwrite) as staging:
        if kind == "sqlite":
            revision = _backup_sqlite(url, staging)
        else:
            revision = pg_backup.dump(url, staging, pg_bin_dir)
    return Report(str(target), kind, revision, target.stat().st_size,
                  round(time.monotonic() - started, 3))


def restore(url: str, file: str | Path, *, pg_bin_dir: str = "") -> Report:
    """Restore `file` into the empty database at `url`, then migrate it to head."""
    started = time.monotonic()
    kind = _backend(url)
    source = Path(file)
    held = _file_kind(source)
    if held != kind:
        raise ValidationFailed(
            f"{source} is a {held} backup and the database is {kind}: restore it into a "
            f"{held} database", field="file", details={"backup": held, "database": kind})
    if kind == "sqlite":
        revision = _restore_sqlite(url, source)
    else:
        revision = pg_backup.file_revision(source, pg_bin_dir)
        known(revision, source)
        pg_backup.restore(url, source, revision, pg_bin_dir)
    return Report(str(source), kind, revision, source.stat().st_size,
                  round(time.monotonic() - started, 3),
                  upgraded_to=migrate.HEAD if revision != migrate.HEAD else None)


def known(revision: str, file: Path) -> None:
    """Refuse a backup made by a newer Shopfloor: this code cannot read its schema."""
    if revision not in migrate.REVISIONS:
        raise ValidationFailed(
            f"{file} is from schema revision {revision}, which this Shopfloor does not "
            f"know (its newest is {migrate.HEAD}): restore it with the Shopfloor version "
            "that made it, or a newer one", field="file",
            details={"revision": revision, "head": migrate.HEAD})


def _backend(url: str) -> str:
    kind = make_url(url).get_backend_name()
    if kind not in ("sqlite", "postgresql"):
        raise ValidationFailed(f"cannot back up a {kind} database: SQLite or PostgreSQL only",
                               field="database_url")
    return kind


def _file_kind(file: Path) -> str:
    if not file.is_file():
        raise NotFound(f"no backup file at {file}", field="file")
    with file.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head == SQLITE_MAGIC:
        return "sqlite"
    if head.startswith(pg_backup.MAGIC):
        return "postgresql"
    raise ValidationFailed(f"{file} is not a Shopfloor backup (neither a SQLite file nor a "
                           "pg_dump custom-format archive)", field="file")


@contextlib.contextmanager
def _staged(target: Path, overwrite: bool) -> Iterator[Path]:
    """A private file beside `target`, renamed onto it on success, removed on failure."""
    if not target.parent.is_dir():
        raise NotFound(f"no directory {target.parent} to write the backup in", field="file")
    if target.exists() and not overwrite:
        raise Conflict(f"{target} exists: choose a new name (a dated one), or overwrite it "
                       "with --force", field="file")
    staging = target.with_name(f".{target.name}.partial")
    staging.unlink(missing_ok=True)  # left by a backup that was killed
    os.close(os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        yield staging
        os.replace(staging, target)
    finally:
        staging.unlink(missing_ok=True)


# -- SQLite --------------------------------------------------------------------------------

def _sqlite_file(url: str) -> Path:
    name = make_url(url).database
    if not name or name == ":memory:" or name.startswith("file:"):
        raise ValidationFailed("back up and restore a SQLite database by its file path "
                               "(sqlite:///path/to/shopfloor.db)", field="database_url")
    return Path(name)


def _revision(conn: sqlite3.Connection, what: str) -> str:
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.OperationalError:
        row = None  # no such table
    except sqlite3.DatabaseError as exc:
        raise ValidationFailed(f"{what} cannot be read (damaged or cut off): {exc}",
                               field="file") from None
    if row is None:
        raise ValidationFailed(f"{what} holds no Shopfloor schema", field="file")
    return str(row[0])


def _backup_sqlite(url: str, staging: Path) -> str:
    source = _sqlite_file(url)
    if not source.is_file():
        raise NotFound(f"no database at {source}", field="database_url")
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(staging)
        try:
            src.backup(dst)  # pages=-1: one step, one snapshot
            revision = _revision(dst, f"the database at {source}")
            dst.execute(f"DROP TABLE IF EXISTS {SEAL}")  # a backup file served and backed up
            dst.execute(f"CREATE TABLE {SEAL} (digest TEXT NOT NULL)")
            dst.execute(f"INSERT INTO {SEAL} VALUES (?)", (_rows_digest(dst),))
            dst.commit()
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()
    return revision


def _restore_sqlite(url: str, file: Path) -> str:
    target = _sqlite_file(url)
    if not target.parent.is_dir():
        raise NotFound(f"no directory {target.parent} for the database", field="database_url")
    src = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    try:
        revision = _revision(src, str(file))
        known(revision, file)
        _intact(src, file)
        _sealed(src, file)
        dst = sqlite3.connect(target, timeout=30)
        try:
            _refuse_sqlite_target(dst, target)
            src.backup(dst)
            dst.execute(f"DROP TABLE IF EXISTS {SEAL}")  # the file's, not the company's
            dst.commit()
        finally:
            dst.close()
    finally:
        src.close()
    store = Store(url)
    try:
        migrate.upgrade(store)
    finally:
        store.dispose()
    return revision


def _intact(conn: sqlite3.Connection, file: Path) -> None:
    """A cut-off or damaged file would be copied page for page as it is: check it first."""
    try:
        said = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        said = [str(exc)]
    if said != ["ok"]:
        raise ValidationFailed(f"{file} is damaged or cut off: {'; '.join(said)}",
                               field="file")


def _rows_digest(conn: sqlite3.Connection) -> str:
    """The schema and every row of every table in rowid order: what a restore brings back
    (free space and page layout are not in it, so only damage that matters counts)."""
    digest = hashlib.sha256()
    schema = list(conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name != ? ORDER BY type, name",
        (SEAL,)))
    digest.update(repr(schema).encode())
    for kind, name, _ in schema:
        if kind == "table" and not name.startswith("sqlite_"):
            for row in conn.execute(f'SELECT * FROM "{name}" ORDER BY rowid'):
                digest.update(repr(row).encode())
    return digest.hexdigest()


def _sealed(conn: sqlite3.Connection, file: Path) -> None:
    """A file with a seal must match it; one made before seals had only SQLite's check."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                        (SEAL,)).fetchone() is None:
            return
        said = [r[0] for r in conn.execute(f"SELECT digest FROM {SEAL}")]
        matches = said == [_rows_digest(conn)]
    except sqlite3.DatabaseError as exc:
        raise ValidationFailed(f"{file} is damaged or cut off: {exc}", field="file") from None
    if not matches:
        raise ValidationFailed(f"{file} is damaged: its rows no longer match the seal "
                               "written with them", field="file")


def _refuse_sqlite_target(conn: sqlite3.Connection, target: Path) -> None:
    """The backup API replaces the whole file, so the target must hold no table at all:
    a new file, or an empty one."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    if tables:
        raise Conflict(
            f"{target} is not empty (it holds {', '.join(tables[:5])}"
            f"{', ...' if len(tables) > 5 else ''}): restore only into a new database file",
            field="database_url", details={"tables": len(tables)})
