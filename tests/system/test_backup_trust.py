"""Backups you can trust (issue 30, item 8): a SQLite backup whose seal is gone is refused
unless a person asks for it (`--unsealed`, with a warning); any restore checks the books
(ledger == balances, per item and location, so the valuation agrees) before it commits;
bad paths and targets that are not databases get one line and an exit code, never a
traceback. On SQLite and PostgreSQL where the database matters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select, update

from shopfloor.app import backup, demo
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, Item
from tests.given import Given
from tests.helpers import ADMIN
from tests.system.test_backup import TODAY, cli, cli_here, empty_db, ours_in  # noqa: F401


def _raise_a_balance(url: str, by: int = 1000) -> None:
    """What the probe did: a balance's value raised, its ledger untouched (through our
    column types: SQLite keeps a value as a scaled integer)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            first = conn.scalar(select(Balance.id).where(Balance.on_hand > 0)
                                .order_by(Balance.id))
            conn.execute(update(Balance).where(Balance.id == first)
                         .values(stock_value=Balance.stock_value + Decimal(by)))
    finally:
        engine.dispose()


def _unseal(file: Path) -> None:
    with sqlite3.connect(file) as conn:
        conn.execute(f"DROP TABLE {backup.SEAL}")


def _refused(target: str, file: Path, **kw: bool) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as caught:
        backup.restore(target, file, **kw)
    assert not ours_in(target)
    return caught.value


def test_an_unsealed_backup_is_refused_unless_a_person_asks(
        registry: Registry, given: Given, db_url: str, tmp_path: Path) -> None:
    if not db_url.startswith("sqlite"):
        pytest.skip("a seal is the SQLite file's own; pg_restore checks its archive")
    given.company()
    given.stock({"M1": ("10", "2")})
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    _unseal(file)
    target = f"sqlite:///{tmp_path / 'restored.db'}"
    err = _refused(target, file)
    assert err.code == "validation_error" and err.field == "file"
    assert "unsealed" in err.message and str(file) in err.message
    report = backup.restore(target, file, unsealed=True)
    assert report.warnings and "unsealed" in report.warnings[0]
    assert ours_in(target)


def test_a_tampered_unsealed_backup_is_refused_by_its_books(
        registry: Registry, db_url: str, tmp_path: Path) -> None:
    """The probe's case: seal dropped, a balance raised by 1,000; even asked for, the
    restore finds the books disagree and leaves the target empty."""
    if not db_url.startswith("sqlite"):
        pytest.skip("the SQLite file is what one can edit in place")
    demo.load(registry, ADMIN, today=TODAY)
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    _unseal(file)
    _raise_a_balance(f"sqlite:///{file}")
    err = _refused(f"sqlite:///{tmp_path / 'restored.db'}", file, unsealed=True)
    assert err.code == "conflict" and "books disagree" in err.message, err.message
    assert Decimal(err.details["valuation"]) - Decimal(err.details["ledger"]) == 1000


def test_any_restore_checks_the_books_before_it_commits(
        registry: Registry, given: Given, db_url: str, empty_db: Callable[[], str],  # noqa: F811
        tmp_path: Path) -> None:
    """Books that disagree in the database backed up (sealed as they were) do not come
    back as a company: on PostgreSQL too, where the restore is one transaction."""
    given.company()
    given.stock({"M1": ("10", "2")})
    _raise_a_balance(db_url)
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    target = empty_db()
    err = _refused(target, file)
    assert err.code == "conflict" and "M1@MAIN" in err.message, err.message
    assert err.details["disagreements"] >= 1


def test_a_good_restore_still_goes_through(
        registry: Registry, db_url: str, empty_db: Callable[[], str],  # noqa: F811
        tmp_path: Path) -> None:
    demo.load(registry, ADMIN, today=TODAY)
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    target = empty_db()
    report = backup.restore(target, file)
    assert report.warnings is None and ours_in(target)
    engine = create_engine(target)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(Item)).scalar()
    finally:
        engine.dispose()


def _one_line(done: object) -> str:
    err = getattr(done, "stderr", "")
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error["), err
    return lines[0]


def test_bad_paths_and_targets_get_one_line_and_an_exit_code(
        registry: Registry, given: Given, db_url: str, tmp_path: Path) -> None:
    given.company()
    folder = tmp_path / "folder"
    folder.mkdir()
    for args in (("backup", str(folder)), ("backup", "--force", str(folder)),
                 ("backup", str(tmp_path / "notes.txt" / "x.backup"))):
        if args[-1].endswith("x.backup"):
            (tmp_path / "notes.txt").write_text("hello")
        # the first as its own process, the rest by the same code in this one
        done = cli_here(db_url, *args) if args[1:] != (str(folder),) else cli(db_url, *args)
        assert done.returncode in (2, 3, 4), (args, done.stderr)
        _one_line(done)
        assert folder.is_dir() and not list(folder.iterdir())
    file = tmp_path / "books.backup"
    assert cli_here(db_url, "backup", str(file)).returncode == 0
    if db_url.startswith("sqlite"):
        notes = tmp_path / "notes.db"
        notes.write_text("not a database, a shopping list\n" * 10)
        done = cli_here(f"sqlite:///{notes}", "restore", str(file))
        assert done.returncode in (2, 4), done.stderr
        assert "not a database" in _one_line(done)
        assert notes.read_text().startswith("not a database")
        into_folder = cli_here(f"sqlite:///{folder}", "restore", str(file))
        assert into_folder.returncode in (2, 4), into_folder.stderr
        _one_line(into_folder)
    from_folder = cli_here(db_url, "restore", str(folder))
    assert from_folder.returncode == 3
    _one_line(from_folder)


def test_unsealed_is_said_on_the_command_line(
        registry: Registry, given: Given, db_url: str, tmp_path: Path) -> None:
    if not db_url.startswith("sqlite"):
        pytest.skip("SQLite's seal")
    given.company()
    file = tmp_path / "books.backup"
    backup.backup(db_url, file)
    _unseal(file)
    target = f"sqlite:///{tmp_path / 'restored.db'}"
    refused = cli_here(target, "restore", str(file))
    assert refused.returncode == 2 and "--unsealed" in _one_line(refused)
    done = cli(target, "restore", "--unsealed", str(file))
    assert done.returncode == 0, done.stderr
    assert "warning: " in done.stderr and "unsealed" in done.stderr
