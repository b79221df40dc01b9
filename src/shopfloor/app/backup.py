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
  A restore is the same API the other way, after the file's rows match their seal, into
  a file beside the target that is renamed onto it once checked. A file with no seal is
  refused unless whoever restores asks for it (`unsealed`, said back as a warning): a
  seal dropped is how an altered file would hide.
- PostgreSQL: see `shopfloor.app.pg_backup` (pg_dump's custom format of our schema).

A restore goes only into an empty database (see `_refuse_sqlite_target` and
`pg_backup.restore`), never over a company, and only from a schema revision this code
knows; an older one is migrated to head. Before it commits, the books must agree
(`books.check`: ledger == balances == valuation per item and location). A path that is
a directory, or a file that is not a database, is answered with a coded error naming it.
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

from shopfloor.app import books, pg_backup
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
    warnings: list[str] | None = None
    """What a person who asked for it should know (an unsealed file was restored)."""

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
    with _said(target), _staged(target, overwrite) as staging:
        if kind == "sqlite":
            revision = _backup_sqlite(url, staging)
        else:
            revision = pg_backup.dump(url, staging, pg_bin_dir)
    return Report(str(target), kind, revision, target.stat().st_size,
                  round(time.monotonic() - started, 3))


def restore(url: str, file: str | Path, *, pg_bin_dir: str = "",
            unsealed: bool = False) -> Report:
    """Restore `file` into the empty database at `url`, then migrate it to head; its
    books checked before it commits. `unsealed`: a person takes a SQLite file with no
    seal on trust (the report warns)."""
    started = time.monotonic()
    kind = _backend(url)
    source = Path(file)
    warnings: list[str] = []
    with _said(source):
        held = _file_kind(source)
        if held != kind:
            raise ValidationFailed(
                f"{source} is a {held} backup and the database is {kind}: restore it into "
                f"a {held} database", field="file", details={"backup": held, "database": kind})
        if kind == "sqlite":
            revision = _restore_sqlite(url, source, unsealed, warnings)
        else:
            revision = pg_backup.file_revision(source, pg_bin_dir)
            known(revision, source)
            pg_backup.restore(url, source, revision, pg_bin_dir,
                              check=lambda conn: books.check(conn, str(source)))
        size = source.stat().st_size
    return Report(str(source), kind, revision, size, round(time.monotonic() - started, 3),
                  upgraded_to=migrate.HEAD if revision != migrate.HEAD else None,
                  warnings=warnings or None)


@contextlib.contextmanager
def _said(path: Path) -> Iterator[None]:
    """What the operating system or SQLite refuses (a directory, no permission, a disk
    full, a file that is no database) as a coded error naming the path, not a trace."""
    try:
        yield
    except OSError as exc:
        where = exc.filename if exc.filename is not None else path
        raise ValidationFailed(f"{where}: {exc.strerror or exc}", field="file") from None
    except sqlite3.DatabaseError as exc:
        raise ValidationFailed(f"{path}: {exc}", field="file") from None


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
    if target.is_dir():
        raise ValidationFailed(f"{target} is a directory: name the backup file in it "
                               f"({target / 'shopfloor.backup'})", field="file")
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


def _restore_sqlite(url: str, file: Path, unsealed: bool, warnings: list[str]) -> str:
    """Into a file beside the target, migrated and its books checked, then renamed onto
    the target: a restore that fails leaves the target as it was."""
    target = _sqlite_file(url)
    if not target.parent.is_dir():
        raise NotFound(f"no directory {target.parent} for the database", field="database_url")
    _refuse_sqlite_target(target)
    staging = target.with_name(f".{target.name}.restoring")
    src = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    try:
        revision = _revision(src, str(file))
        known(revision, file)
        _intact(src, file)
        warnings += _sealed(src, file, unsealed)
        staging.unlink(missing_ok=True)  # left by a restore that was killed
        dst = sqlite3.connect(staging)
        try:
            src.backup(dst)
            dst.execute(f"DROP TABLE IF EXISTS {SEAL}")  # the file's, not the company's
            dst.commit()
        finally:
            dst.close()
    finally:
        src.close()
    try:
        store = Store(make_url(url).set(database=str(staging)).render_as_string(False))
        try:
            migrate.upgrade(store)
            with store.engine.connect() as conn:
                books.check(conn, str(file))
        finally:
            store.dispose()
        _refuse_sqlite_target(target)  # still empty: nobody made it a company meanwhile
        os.replace(staging, target)
    finally:
        for left in (staging, staging.with_name(staging.name + "-wal"),
                     staging.with_name(staging.name + "-shm")):
            left.unlink(missing_ok=True)
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


def _sealed(conn: sqlite3.Connection, file: Path, unsealed: bool) -> list[str]:
    """A file with a seal must match it. One without is refused unless a person asks for
    it (a file from before seals, or one whose seal was dropped to hide a change); the
    books check after the restore still applies. Returns what to warn of."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                        (SEAL,)).fetchone() is None:
            if not unsealed:
                raise ValidationFailed(
                    f"{file} is unsealed (it holds no {SEAL}): made before seals, or "
                    "altered since; if you trust it, restore it with --unsealed",
                    field="file")
            return [f"{file} is unsealed: restored on your word, its rows unchecked "
                    "against a seal (its books were checked)"]
        said = [r[0] for r in conn.execute(f"SELECT digest FROM {SEAL}")]
        matches = said == [_rows_digest(conn)]
    except sqlite3.DatabaseError as exc:
        raise ValidationFailed(f"{file} is damaged or cut off: {exc}", field="file") from None
    if not matches:
        raise ValidationFailed(f"{file} is damaged: its rows no longer match the seal "
                               "written with them", field="file")
    return []


def _refuse_sqlite_target(target: Path) -> None:
    """The restore replaces the whole file, so the target must hold no table at all: a
    new file, or an empty one; never a directory or a file that is not a database."""
    if not target.exists():
        return
    if not target.is_file():
        raise ValidationFailed(f"{target} is not a file: name a new database file",
                               field="database_url")
    with target.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if not head:
        return
    if head != SQLITE_MAGIC:
        raise ValidationFailed(f"{target} exists and is not a database: restore only into "
                               "a new database file", field="database_url")
    conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
    finally:
        conn.close()
    if tables:
        raise Conflict(
            f"{target} is not empty (it holds {', '.join(tables[:5])}"
            f"{', ...' if len(tables) > 5 else ''}): restore only into a new database file",
            field="database_url", details={"tables": len(tables)})
