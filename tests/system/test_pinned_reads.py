"""A thread's pinned read connection (Store.pin_reads, as MCP over stdio uses it): reads
on that thread keep one connection yet each sees what is committed when it starts, a
failed read leaves it usable, a read within a read and other threads use the pool, and a
pinned PostgreSQL connection the server has dropped is replaced before it is used."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from shopfloor.kernel.errors import NotFound
from shopfloor.registry.registry import Registry
from tests.conftest import PG_URL
from tests.given import Given
from tests.helpers import ADMIN, apply, named_on_postgres

pytestmark = pytest.mark.quick


def _on_hand(registry: Registry, sku: str) -> str:
    return str(registry.invoke("get_item", {"sku": sku}, ADMIN)["on_hand"])


def _adjust(registry: Registry, qty: str) -> None:
    apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
          lines=[{"sku": "M1", "quantity_delta": qty}])


def _idle(conn: Any) -> bool:
    """No transaction left open on the driver's connection (SQLite or psycopg)."""
    driver = conn.driver_connection
    if hasattr(driver, "in_transaction"):
        return not driver.in_transaction
    return int(driver.info.transaction_status) == 0  # psycopg: IDLE


def test_reads_leave_no_transaction_open(registry: Registry, given: Given) -> None:
    """The ORM reads and the plain ones, on a pinned connection and on the pool's."""
    given.company()
    for pin in (False, True):
        if pin:
            registry.store.pin_reads()
        for name, args in (("get_item", {"sku": "M1"}), ("get_stock", {"sku": "M1"}),
                           ("list_locations", {}), ("get_item", {"sku": "P1"})):
            assert registry.invoke(name, args, ADMIN)
        if pin:
            assert registry.store._pin is not None
            assert _idle(registry.store._pin.connection)
        raw = registry.store.engine.raw_connection()
        try:
            assert _idle(raw)
        finally:
            raw.close()


def test_pinned_reads_keep_one_connection_and_see_each_commit(registry: Registry,
                                                              given: Given) -> None:
    given.company()
    apply(registry, "modify_item", sku="M1", precision=1)  # counted to a tenth
    registry.store.pin_reads()
    assert _on_hand(registry, "M1") == "0"
    pool = registry.store.engine.pool
    pinned = registry.store._pin
    assert pinned is not None and pool.checkedout() == 1  # kept between reads

    writer = threading.Thread(target=_adjust, args=(registry, "4.5"))
    writer.start()
    writer.join(20)
    assert _on_hand(registry, "M1") == "4.5"  # a new snapshot per read
    assert registry.store._pin is pinned

    with pytest.raises(NotFound):
        registry.invoke("get_item", {"sku": "nope"}, ADMIN)
    _adjust(registry, "1")
    assert _on_hand(registry, "M1") == "5.5"

    with registry.store.plain_reading():  # a read within a read takes the pool's
        assert _on_hand(registry, "M2") == "0"
        with registry.store.plain_reading():
            assert pool.checkedout() == 2
    seen: list[str] = []
    other = threading.Thread(target=lambda: seen.append(_on_hand(registry, "M1")))
    other.start()
    other.join(20)
    assert seen == ["5.5"] and pool.checkedout() == 1 and registry.store._pin is pinned
    registry.store.dispose()
    assert registry.store._pin is None


@pytest.fixture
def pg_named(pg_schema_url: str) -> Iterator[tuple[Registry, str]]:
    with named_on_postgres(pg_schema_url, "pinned") as named:
        yield named


def test_a_pinned_connection_the_server_dropped_is_replaced_unseen(pg_named: Any) -> None:
    reg, name = pg_named
    Given(reg).company()
    reg.store.pin_reads()
    assert _on_hand(reg, "M1") == "0"
    engine = create_engine(PG_URL)
    try:
        with engine.connect() as conn:
            ended = conn.execute(text(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                "WHERE application_name = :name"), {"name": name}).all()
    finally:
        engine.dispose()
    assert ended
    _adjust(reg, "2")
    for _ in range(3):
        assert _on_hand(reg, "M1") == "2"
