"""The write session hands back its transaction's connection without asking the ORM
(store/sessions.py), except within a savepoint: there the ORM's answer is what emits the
SAVEPOINT, so a statement that fails inside one is rolled back with it, and the
transaction goes on (a write job's dry run, a ledger begun in a savepoint)."""

from __future__ import annotations

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from shopfloor.registry.registry import Registry
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import Location, table

LOCATIONS = table(Location)
_ADD = Prepared(insert(LOCATIONS))


def _row(code: str) -> dict[str, object]:
    return {"code": code, "name": code, "allow_negative": False, "version": 1}


def test_a_statement_failing_in_a_savepoint_leaves_the_transaction_going(
        registry: Registry) -> None:
    with registry.store.writing() as session:
        _ADD.all(session.connection(), _row("A"))
        savepoint = session.begin_nested()
        failed = False
        try:
            _ADD.all(session.connection(), _row("B"))  # kept: rolled back below
            _ADD.all(session.connection(), _row("A"))  # the code is taken
        except IntegrityError:
            failed = True
        savepoint.rollback()
        _ADD.all(session.connection(), _row("C"))
        session.commit()
    assert failed
    with registry.store.reading() as session:
        codes = session.connection().execute(
            select(LOCATIONS.c.code).order_by(LOCATIONS.c.code)).scalars().all()
        assert list(codes) == ["A", "C"]
        assert session.connection().execute(
            select(func.count()).select_from(LOCATIONS)).scalar() == 2
