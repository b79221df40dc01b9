"""One-line stock adjustments applied per second through the registry, against raw SQL
doing the same ledger insert + balance update in one transaction, same database."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).parents[1]))

from shopfloor.app import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.settings import Settings
from shopfloor.store.types import SCALE

N = int(os.environ.get("BENCH_APPLIES", "400"))
PG = os.environ.get("SHOPFLOOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
ACTOR = Actor.of("bench", "admin")


@contextmanager
def pg_schema(name: str = "") -> Iterator[str]:
    """A fresh schema on the test PostgreSQL, dropped afterwards (even on failure)."""
    from sqlalchemy import create_engine

    schema = f"bench_{name}{os.getpid()}"
    engine = create_engine(PG)
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        engine.dispose()


def measure(url: str, label: str) -> None:
    reg = open_registry(Settings(database_url=url))
    for tool, args in (("create_location", {"code": "MAIN", "name": "Main"}),
                       ("create_item", {"sku": "B1", "name": "Bench"})):
        reg.invoke(tool, {**args, "preview": False}, ACTOR)
    args = {"location": "MAIN", "reason": "bench", "preview": False,
            "lines": [{"sku": "B1", "quantity_delta": "1", "unit_cost": "2"}]}
    reg.invoke("create_stock_adjustment", args, ACTOR)  # creates the balance row
    start = time.perf_counter()
    for _ in range(N):
        reg.invoke("create_stock_adjustment", args, ACTOR)
    ours = N / (time.perf_counter() - start)

    pg = reg.store.dialect == "postgresql"
    qty = Decimal(1) if pg else 10**SCALE
    insert = text("INSERT INTO stock_movements (item_id, location_id, quantity, unit_cost, "
                  "reason, actor, created_at) VALUES (1, 1, :q, :c, 'bench', 'bench', "
                  "CURRENT_TIMESTAMP)")
    bump = text("UPDATE balances SET on_hand = on_hand + :q, version = version + 1 "
                "WHERE item_id = 1 AND location_id = 1")
    start = time.perf_counter()
    for _ in range(N):
        with reg.store.writing() as s:
            s.execute(insert, {"q": qty, "c": qty * 2})
            s.execute(bump, {"q": qty})
            s.commit()
    raw = N / (time.perf_counter() - start)
    print(f"apply_throughput[{label}]  registry {ours:.0f}/s  raw SQL {raw:.0f}/s  "
          f"ratio {ours / raw:.2f}  (target >= 0.5)")
    reg.store.dispose()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        measure(f"sqlite:///{tmp}/bench.db", "sqlite")
    with pg_schema() as url:
        measure(url, "postgresql")


if __name__ == "__main__":
    main()
