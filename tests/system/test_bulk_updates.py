"""store/bulk.update_arrays: many balances written back by one statement on PostgreSQL,
each row only at the version the operation read (what `update_balances` relies on to run
a raced operation again), and the same figures as the row-by-row update on SQLite."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from shopfloor.domain.stock.balance_rows import BALANCES, Slot, update_balances
from shopfloor.registry.registry import Registry
from shopfloor.store.bulk import update_arrays
from shopfloor.store.engine import RetryTransaction
from tests.helpers import ADMIN

SKUS = [f"U{i}" for i in range(6)]


def _stocked(registry: Registry) -> None:
    registry.invoke("create_location", {"code": "MAIN", "name": "Main", "preview": False},
                    ADMIN)
    for sku in SKUS:
        registry.invoke("create_item", {"sku": sku, "name": sku, "purchase_price": "2",
                                        "preview": False}, ADMIN)
    registry.invoke("create_stock_adjustment", {
        "location": "MAIN", "reason": "start", "preview": False,
        "lines": [{"sku": s, "quantity_delta": "3", "unit_cost": "2"} for s in SKUS]}, ADMIN)


def _slots(session: object) -> list[Slot]:
    rows = session.connection().execute(  # type: ignore[attr-defined]
        select(BALANCES.c.id, BALANCES.c.item_id, BALANCES.c.location_id, BALANCES.c.on_hand,
               BALANCES.c.committed, BALANCES.c.average_cost, BALANCES.c.version,
               BALANCES.c.stock_value).order_by(BALANCES.c.id)).all()
    return [Slot(r.id, r.item_id, r.location_id, str(r.id), r.on_hand, r.committed,
                 r.average_cost, r.version, r.stock_value) for r in rows]


def test_many_balances_are_written_at_the_version_read(registry: Registry) -> None:
    _stocked(registry)
    with registry.store.writing() as session:
        slots = _slots(session)
        assert len(slots) == len(SKUS)
        read = [s.version for s in slots]
        for i, s in enumerate(slots):
            s.on_hand, s.average_cost = Decimal(10 + i), Decimal("1.2345675")
            s.value, s.committed = Decimal(10 + i) * Decimal("1.2345675"), Decimal(i)
        update_balances(session, slots)
        session.commit()
    with registry.store.writing() as session:
        after = _slots(session)
    assert [(s.on_hand, s.committed, s.average_cost, s.version) for s in after] == [
        (Decimal(10 + i), Decimal(i), Decimal("1.234568"), slots[i].version)
        for i in range(len(SKUS))]
    assert [s.version for s in after] == [v + 1 for v in read]


def test_a_balance_moved_since_it_was_read_runs_the_operation_again(
        registry: Registry) -> None:
    _stocked(registry)
    with registry.store.writing() as session:
        slots = _slots(session)
        slots[4].version -= 1  # as if another writer had moved it after this read
        for s in slots:
            s.on_hand = Decimal(7)
        with pytest.raises(RetryTransaction):
            update_balances(session, slots)
        session.rollback()
    with registry.store.writing() as session:
        assert {s.on_hand for s in _slots(session)} == {Decimal(3)}


def test_rows_naming_a_column_twice_or_none_are_refused(registry: Registry) -> None:
    _stocked(registry)
    rows = [{"a": i, "b": i} for i in range(5)]
    with registry.store.writing() as session:
        conn = session.connection()
        if conn.dialect.name != "postgresql":
            assert update_arrays(conn, BALANCES, rows, {"a": "id"}, {"b": "version"}) is None
            return
        with pytest.raises(ValueError, match="once"):
            update_arrays(conn, BALANCES, rows, {"a": "id"}, {"a": "version", "b": "on_hand"})
        session.rollback()
