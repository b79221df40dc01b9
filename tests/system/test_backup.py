"""Books kept safe: a backup taken while the server writes restores to the same books.

On SQLite and PostgreSQL (`db_url`): every row of every table comes back; a write that
ran during the backup is wholly in the copy or wholly absent (documents with all their
ledger rows, ledger equal to balances); a restore refuses a database that holds anything
of ours and a backup from a newer schema; an older backup is migrated to head.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, text

from shopfloor.app import backup, demo
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import catalogue_tools, open_registry
from shopfloor.kernel.errors import Conflict, NotFound, ShopfloorError, ValidationFailed
from shopfloor.registry.registry import Registry
from shopfloor.store import migrate
from shopfloor.store.engine import Store
from shopfloor.store.tables import Base, StockMovement
from tests.conftest import PG_URL
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.surfaces.contract.surfaces import Ran, cli_in_process

TODAY = date(2026, 12, 1)
# Untracked demo items (a lot-tracked line would need its lot named).
PLAIN = [sku for sku, *_ in demo.ITEMS if sku not in demo.TRACKED]
MOVED = ["SCREW-5X60", "OAK-DOWEL-8", "SANDPAPER-120"]


@pytest.fixture
def empty_db(db_url: str, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Makes empty databases of `db_url`'s kind: a new SQLite file, or a new schema."""
    schemas: list[str] = []
    admin = create_engine(PG_URL)

    def new() -> str:
        if db_url.startswith("sqlite"):
            return f"sqlite:///{tmp_path / f'restored-{uuid.uuid4().hex[:8]}.db'}"
        schema = f"t_{uuid.uuid4().hex[:10]}"
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        schemas.append(schema)
        return f"{PG_URL}?options=-csearch_path%3D{schema}"

    yield new
    if schemas:
        with admin.begin() as conn:
            for schema in schemas:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def all_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {t.name: sorted((tuple(r) for r in conn.execute(select(t))), key=repr)
                    for t in Base.metadata.sorted_tables}
    finally:
        engine.dispose()


def revision_of(url: str) -> str | None:
    store = Store(url)
    try:
        return migrate.current(store)
    finally:
        store.dispose()


def ours_in(url: str) -> bool:
    """Does the database hold any table of ours?"""
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
    finally:
        store.dispose()
    return bool(names & (set(Base.metadata.tables) | {"alembic_version"}))


def test_a_restored_backup_holds_every_row_and_keeps_working(
        registry: Registry, db_url: str, empty_db: Callable[[], str], tmp_path: Path) -> None:
    demo.load(registry, ADMIN, today=TODAY)
    lot_sku = next(iter(demo.TRACKED))
    assert registry.invoke("get_stock", {"sku": lot_sku}, ADMIN)["balances"]  # lots in it
    file = tmp_path / "books.backup"
    made = backup.backup(db_url, file)
    assert made.revision == migrate.HEAD and made.bytes == file.stat().st_size > 0
    assert file.stat().st_mode & 0o077 == 0  # the secret and password hashes stay private

    target = empty_db()
    restored = backup.restore(target, file)
    assert restored.revision == migrate.HEAD and restored.upgraded_to is None
    original = all_rows(db_url)
    copy = all_rows(target)
    assert sum(map(len, original.values())) > 300
    for table, rows in original.items():
        assert copy[table] == rows, table
    assert revision_of(target) == migrate.HEAD

    # The copy is a working company: numbering and ids carry on past the restored rows.
    again = open_registry(Settings(database_url=target))
    try:
        assert ledger_mismatches(again) == []
        args: dict[str, Any] = {"location": "MAIN", "reason": "after restore",
                "lines": [{"sku": "FELT-PAD", "quantity_delta": "1"}]}
        in_copy = apply(again, "create_stock_adjustment", **args)
        in_original = apply(registry, "create_stock_adjustment", **args)
        assert in_copy["number"] == in_original["number"]
        apply(again, "create_location", code="SPARE", name="Spare room")
    finally:
        again.store.dispose()


def _adjust(registry: Registry, stop: threading.Event, made: list[str]) -> None:
    """A long write: one ledger row and one balance per line, for every plain item."""
    lines = [{"sku": sku, "quantity_delta": "1"} for sku in PLAIN]
    while not stop.is_set():
        made.append(apply(registry, "create_stock_adjustment", location="MAIN",
                          reason="during backup", lines=lines)["number"])


def _transfer(registry: Registry, stop: threading.Event, made: list[str]) -> None:
    lines = [{"sku": sku, "quantity": "1"} for sku in MOVED]
    while not stop.is_set():
        made.append(apply(registry, "create_stock_transfer", from_location="MAIN",
                          to_location="SHOP", lines=lines)["number"])


def _documents(url: str) -> dict[str, tuple[int, int]]:
    """Each adjustment and transfer: (its lines, its ledger rows)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            lines: dict[str, int] = dict(conn.execute(text(
                "SELECT a.number, count(l.id) FROM stock_adjustments a JOIN "
                "stock_adjustment_lines l ON l.adjustment_id = a.id GROUP BY a.number "
                "UNION ALL SELECT t.number, count(l.id) FROM stock_transfers t JOIN "
                "stock_transfer_lines l ON l.transfer_id = t.id GROUP BY t.number")).all())
            moves = Counter(n for (n,) in conn.execute(
                select(StockMovement.document_number).where(
                    StockMovement.document_type.in_(["stock_adjustment", "stock_transfer"]))))
    finally:
        engine.dispose()
    assert set(moves) <= set(lines), set(moves) - set(lines)  # no rows without a document
    return {n: (k, moves[n]) for n, k in lines.items()}


def test_writes_during_a_backup_are_wholly_in_it_or_wholly_not(
        registry: Registry, db_url: str, empty_db: Callable[[], str], tmp_path: Path) -> None:
    demo.load(registry, ADMIN, today=TODAY)
    before = set(_documents(db_url))
    stop = threading.Event()
    made: list[str] = []
    writers = [threading.Thread(target=w, args=(registry, stop, made))
               for w in (_adjust, _transfer, _adjust)]
    for w in writers:
        w.start()
    files = []
    try:
        for i in range(3):
            seen = len(made)
            while len(made) < seen + 2 and all(w.is_alive() for w in writers):
                stop.wait(0.01)  # writes are going on when each backup starts
            files.append(backup.backup(db_url, tmp_path / f"during-{i}.backup").file)
        seen = len(made)
        while len(made) < seen + 2 and all(w.is_alive() for w in writers):
            stop.wait(0.01)  # and go on after the last
    finally:
        stop.set()
        for w in writers:
            w.join()
    assert len(made) >= 8, made
    counts = []
    for file in files:
        target = empty_db()
        backup.restore(target, file)
        documents = _documents(target)
        new = {n: v for n, v in documents.items() if n not in before}
        for number, (lines, rows) in new.items():
            wanted = lines * (2 if number.startswith("TR") else 1)
            assert rows == wanted, (file, number, lines, rows)
        assert set(new) <= set(made), set(new) - set(made)
        again = open_registry(Settings(database_url=target))
        try:
            assert ledger_mismatches(again) == [], file
        finally:
            again.store.dispose()
        counts.append(len(new))
    assert 0 < counts[0] <= counts[1] <= counts[2] < len(made), (counts, len(made))


def test_restore_refuses_a_database_that_holds_anything_of_ours(
        registry: Registry, given: Given, db_url: str, empty_db: Callable[[], str],
        tmp_path: Path) -> None:
    given.company()
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    with pytest.raises(Conflict) as refused:
        backup.restore(db_url, file)  # a company
    assert refused.value.field == "database_url"
    migrated = empty_db()
    store = Store(migrated)
    migrate.upgrade(store)  # the schema, no rows: still refused (it is a database of ours)
    store.dispose()
    rows = all_rows(migrated)
    with pytest.raises(Conflict):
        backup.restore(migrated, file)
    assert all_rows(migrated) == rows
    with pytest.raises(Conflict):  # nor is a backup written over an existing file
        backup.backup(db_url, file)
    assert backup.backup(db_url, file, overwrite=True).revision == migrate.HEAD


def test_restore_refuses_a_backup_from_a_newer_schema(
        registry: Registry, given: Given, db_url: str, empty_db: Callable[[], str],
        tmp_path: Path) -> None:
    given.company()
    file = tmp_path / "newer.backup"
    if db_url.startswith("sqlite"):
        backup.backup(db_url, file)
        with sqlite3.connect(file) as copy:  # the version row, edited in the copy
            copy.execute("UPDATE alembic_version SET version_num = '9999'")
    else:  # an archive cannot be edited: edit the source while it is backed up
        with registry.store.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
        try:
            assert backup.backup(db_url, file).revision == "9999"
        finally:
            with registry.store.engine.begin() as conn:
                conn.execute(text("UPDATE alembic_version SET version_num = :v"),
                             {"v": migrate.HEAD})
    target = empty_db()
    with pytest.raises(ValidationFailed) as refused:
        backup.restore(target, file)
    assert refused.value.field == "file" and "9999" in refused.value.message
    assert refused.value.details == {"revision": "9999", "head": migrate.HEAD}
    assert not ours_in(target)


def test_a_cut_off_or_damaged_backup_is_refused_and_the_target_left_empty(
        registry: Registry, db_url: str, empty_db: Callable[[], str], tmp_path: Path) -> None:
    demo.load(registry, ADMIN, today=TODAY)
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    whole = file.read_bytes()
    broken: dict[str, bytes] = {}
    if db_url.startswith("sqlite"):  # damage pages that hold rows, found by SQLite's dbstat
        with sqlite3.connect(file) as copy:
            size = copy.execute("PRAGMA page_size").fetchone()[0]
            for name, kind in (("stock_movements", "leaf"), ("operation_log", "overflow")):
                page = copy.execute(
                    "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? "
                    "ORDER BY pageno LIMIT 1", (name, kind)).fetchone()[0]
                at = (page - 1) * size
                # a leaf: its records' bytes (the end of the page) changed, the b-tree
                # intact; an overflow page: a long row's middle, which SQLite never checks
                lo, hi = (at + size // 2, at + size - 8) if kind == "leaf" else \
                    (at + 8, at + size - 8)
                broken[f"{name}-{kind}"] = whole[:lo] + bytes(
                    b ^ 0x5A for b in whole[lo:hi]) + whole[hi:]
    else:
        at = int(len(whole) * 0.3)
        broken["middle"] = whole[:at + 100] + b"\xff" * 3900 + whole[at + 4000:]
    for part in (0.3, 0.6, 0.9, 0.99, *broken):
        cut = tmp_path / f"cut-{part}.backup"
        cut.write_bytes(broken[part] if isinstance(part, str) else whole[:int(len(whole) * part)])
        target = empty_db()
        with pytest.raises(ShopfloorError) as refused:
            backup.restore(target, cut)
        assert refused.value.code in ("validation_error", "internal"), refused.value
        assert str(cut) in refused.value.message
        assert not ours_in(target), part


def test_an_older_backup_is_migrated_to_head(
        db_url: str, empty_db: Callable[[], str], tmp_path: Path) -> None:
    older = sorted(migrate.REVISIONS)[-2]
    source = empty_db()
    store = Store(source)
    with store.engine.begin() as conn:
        migrate.migrate(conn, older)
        conn.execute(text("INSERT INTO locations (id, code, name, allow_negative, "
                          "code_skeleton, version) VALUES (1, 'OLD', 'From before', "
                          ":f, 'old', 1)"), {"f": False})
    store.dispose()
    file = tmp_path / "older.backup"
    assert backup.backup(source, file).revision == older
    target = empty_db()
    report = backup.restore(target, file)
    assert report.revision == older and report.upgraded_to == migrate.HEAD
    assert revision_of(target) == migrate.HEAD
    again = open_registry(Settings(database_url=target))
    try:
        assert registry_locations(again) == ["OLD"]
    finally:
        again.store.dispose()


def test_a_table_of_someone_elses_in_the_schema_does_not_stop_a_restore(
        registry: Registry, given: Given, db_url: str, empty_db: Callable[[], str],
        tmp_path: Path) -> None:
    """A PostgreSQL schema (public, often) may hold tables of other programs: pg_dump takes
    the whole schema, and the restore brings back ours only. A SQLite file is copied
    whole, theirs too."""
    given.company()
    serial = "INTEGER PRIMARY KEY" if db_url.startswith("sqlite") else "SERIAL PRIMARY KEY"
    with registry.store.engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE their_notes (id {serial}, note TEXT)"))
        conn.execute(text("INSERT INTO their_notes (note) VALUES ('a'), ('b')"))
    try:
        file = tmp_path / "shared.backup"
        backup.backup(db_url, file)
        target = empty_db()
        backup.restore(target, file)
        assert all_rows(target) == all_rows(db_url)
        store = Store(target)
        try:
            with store.engine.connect() as conn:
                theirs = inspect(conn).has_table("their_notes")
        finally:
            store.dispose()
        assert theirs == db_url.startswith("sqlite")
    finally:
        with registry.store.engine.begin() as conn:
            conn.execute(text("DROP TABLE their_notes"))


def registry_locations(registry: Registry) -> list[str]:
    return [loc["code"] for loc in registry.invoke("list_locations", {}, ADMIN)["locations"]]


def cli(url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`shopfloor ARGS` as its own process: what a person's shell gets."""
    return subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SHOPFLOOR_DATABASE_URL": url, **env})


def cli_here(url: str, *args: str, **env: str) -> Ran:
    """The same command by the console script's `main` in this process (no interpreter
    start): for the further cases of a property one real process has shown."""
    return cli_in_process(list(args), {"SHOPFLOOR_DATABASE_URL": url, **env})


def test_the_commands_fail_with_coded_exit_statuses(
        registry: Registry, given: Given, db_url: str, empty_db: Callable[[], str],
        tmp_path: Path) -> None:
    given.company()
    file = tmp_path / "books.backup"
    done = cli(db_url, "backup", str(file))
    assert done.returncode == 0 and "Backed up" in done.stderr, done.stderr
    again = cli(db_url, "backup", str(file))
    assert again.returncode == 4 and "error[conflict]" in again.stderr, again.stderr
    into_company = cli_here(db_url, "restore", str(file))
    assert into_company.returncode == 4, into_company.stderr
    assert "error[conflict]" in into_company.stderr, into_company.stderr
    not_a_backup = tmp_path / "notes.txt"
    not_a_backup.write_text("hello")
    bad = cli_here(empty_db(), "restore", str(not_a_backup))
    assert bad.returncode == 2 and "not a Shopfloor backup" in bad.stderr, bad.stderr
    missing = cli_here(empty_db(), "restore", str(tmp_path / "nowhere.backup"))
    assert missing.returncode == 3, missing.stderr
    target = empty_db()
    restored = cli(target, "--fmt", "json", "restore", str(file))
    assert restored.returncode == 0, restored.stderr
    assert '"revision": "' + migrate.HEAD in restored.stdout
    if db_url.startswith("postgresql"):
        lost = cli_here(db_url, "backup", str(tmp_path / "x.backup"),
                        SHOPFLOOR_PG_BIN_DIR=str(tmp_path))
        assert lost.returncode == 3 and "pg_dump" in lost.stderr, lost.stderr
        assert not (tmp_path / "x.backup").exists()


def test_backing_up_is_never_a_tool() -> None:
    """An agent must not copy out the secret and the password hashes, nor replace the
    books: backup and restore are commands of whoever runs the server."""
    names = [t.name for t in catalogue_tools()]
    assert not [n for n in names if "backup" in n or "restore" in n or "dump" in n]


def test_a_missing_database_is_not_backed_up(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        backup.backup(f"sqlite:///{tmp_path / 'none.db'}", tmp_path / "none.backup")
    assert not (tmp_path / "none.db").exists() and not list(tmp_path.iterdir())
