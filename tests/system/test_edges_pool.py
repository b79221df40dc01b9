"""PostgreSQL connections: a read sends no liveness ping first (a round trip per checkout),
yet a pooled connection the server has dropped is still replaced before it is used."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from bench.read_latency import traced
from shopfloor.registry.registry import Registry
from tests.conftest import PG_URL
from tests.given import Given
from tests.helpers import ADMIN, apply, named_on_postgres, on_hand


@pytest.fixture
def pg_registry(pg_schema_url: str) -> Iterator[tuple[Registry, str]]:
    with named_on_postgres(pg_schema_url, "edges_pool") as named:
        yield named


def _simple_queries(path: Path, start: int) -> list[str]:
    with path.open() as handle:
        handle.seek(start)
        sent = [ln.rstrip("\n").split("\t") for ln in handle if ln.startswith("F\t")]
    return [f[3].strip().strip('"') for f in sent if f[2] == "Query"]


def test_a_read_on_a_pooled_connection_sends_no_ping(pg_registry: Any, tmp_path: Path) -> None:
    reg, _ = pg_registry
    path = tmp_path / "trace.log"
    with traced(reg, path):
        reg.invoke("list_locations", {}, ADMIN)  # opens the connection
        start = path.stat().st_size
        for _ in range(3):
            reg.invoke("list_locations", {}, ADMIN)
        queries = _simple_queries(path, start)
    others = [q for q in queries if not q.startswith("SELECT locations.")]
    assert others == [], queries  # nor BEGIN/ROLLBACK: reads run in autocommit


def _terminate(name: str) -> int:
    engine = create_engine(PG_URL)
    try:
        with engine.connect() as conn:
            return len(conn.execute(text(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                "WHERE application_name = :name"), {"name": name}).all())
    finally:
        engine.dispose()


def test_connections_the_server_dropped_are_replaced_unseen(pg_registry: Any) -> None:
    reg, name = pg_registry
    Given(reg).company()
    barrier = threading.Barrier(4)

    def hold() -> None:  # four connections in the pool at once
        with reg.store.reading() as s:
            s.execute(text("SELECT 1"))
            barrier.wait(10)

    threads = [threading.Thread(target=hold) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert _terminate(name) >= 4
    for _ in range(6):
        assert reg.invoke("list_locations", {}, ADMIN)["locations"]
    apply(reg, "create_stock_adjustment", location="MAIN", reason="after the drop",
          lines=[{"sku": "M1", "quantity_delta": "3"}])
    assert on_hand(reg, "M1") == 3
    assert _terminate(name) >= 1
    apply(reg, "create_stock_adjustment", location="MAIN", reason="a write first",
          lines=[{"sku": "M1", "quantity_delta": "2"}])
    assert on_hand(reg, "M1") == 5
