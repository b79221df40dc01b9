"""Latency with 1M ledger rows divided by the latency with 10k, on SQLite and PostgreSQL.

`get_stock` reads the balance table, so ledger size should not matter (target <= 1.2);
`list_stock_movements` (first page, newest first; and one item's first page) reads the
ledger itself through its indexes. Both databases are seeded once per size, PostgreSQL is
ANALYZEd after seeding, and samples alternate small/big so drift on a noisy machine
hits both sides alike.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.apply_throughput import pg_schema
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.types import SCALE

BIG = int(os.environ.get("BENCH_LEDGER_ROWS", "1000000"))
SMALL = 10_000
SAMPLES = int(os.environ.get("BENCH_LEDGER_SAMPLES", "300"))
ACTOR = Actor.of("bench", "admin")


def grow_ledger(reg: Registry, rows: int) -> None:
    """Bulk ledger rows over 50 items (a seeded history); balances set to match."""
    pg = reg.store.dialect == "postgresql"
    one = 1 if pg else 10**SCALE  # one unit, as each database stores a decimal
    numbers = ("SELECT i FROM generate_series(1, :rows) AS i" if pg else
               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :rows) "
               "SELECT i FROM n")
    with reg.store.writing() as s:
        s.execute(text(
            "INSERT INTO stock_movements (item_id, location_id, quantity, unit_cost, reason, "
            f"actor, created_at) SELECT 1 + (i % 50), 1, {one}, {one}, 'seed', 'bench', "
            f"CURRENT_TIMESTAMP FROM ({numbers}) AS seq"), {"rows": rows})
        s.execute(text(
            "UPDATE balances SET on_hand = (SELECT SUM(quantity) FROM stock_movements m WHERE "
            "m.item_id = balances.item_id AND m.location_id = balances.location_id)"))
        s.commit()
    if pg:
        with reg.store.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))


def setup(url: str, rows: int) -> Registry:
    reg = open_registry(Settings(database_url=url))
    reg.invoke("create_location", {"code": "MAIN", "name": "Main", "preview": False}, ACTOR)
    for i in range(50):
        reg.invoke("create_item", {"sku": f"L{i}", "name": f"Ledger {i}", "preview": False},
                   ACTOR)
        reg.invoke("create_stock_adjustment", {"location": "MAIN", "reason": "seed",
                   "preview": False, "lines": [{"sku": f"L{i}", "quantity_delta": "1"}]}, ACTOR)
    grow_ledger(reg, rows)
    return reg


CALLS: dict[str, Callable[[int], tuple[str, dict[str, object]]]] = {
    "get_stock": lambda i: ("get_stock", {"sku": f"L{i % 50}", "location": "MAIN"}),
    "list_stock_movements page 1": lambda i: ("list_stock_movements", {"limit": 50}),
    "list_stock_movements page 1 of one sku": lambda i: (
        "list_stock_movements", {"sku": f"L{i % 50}", "limit": 50}),
}


def compare(small: Registry, big: Registry, label: str) -> None:
    for name, make in CALLS.items():
        times: dict[str, list[float]] = {"small": [], "big": []}
        for i in range(SAMPLES):
            order = (("small", small), ("big", big)) if i % 2 == 0 else \
                (("big", big), ("small", small))
            for side, reg in order:
                tool, args = make(i)
                start = time.perf_counter()
                reg.invoke(tool, args, ACTOR)
                times[side].append(time.perf_counter() - start)
        a, b = statistics.median(times["small"]), statistics.median(times["big"])
        target = "  (target <= 1.2)" if name == "get_stock" else ""
        print(f"ledger_scale[{label}] {name} median: {SMALL:,} rows {a * 1e3:.2f} ms, "
              f"{BIG:,} rows {b * 1e3:.2f} ms  ratio {b / a:.2f}{target}", flush=True)


@contextmanager
def sqlite_pair() -> Iterator[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{tmp}/small.db", f"sqlite:///{tmp}/big.db"


@contextmanager
def pg_pair(prefix: str = "") -> Iterator[tuple[str, str]]:
    """Two PostgreSQL schemas, a small ledger and a big one, dropped afterwards."""
    with pg_schema(f"{prefix}small_") as small, pg_schema(f"{prefix}big_") as big:
        yield small, big


def main() -> None:
    for label, pair in (("sqlite", sqlite_pair), ("postgresql", pg_pair)):
        with ExitStack() as stack:
            small_url, big_url = stack.enter_context(pair())
            small, big = setup(small_url, SMALL), setup(big_url, BIG)
            stack.callback(small.store.dispose)
            stack.callback(big.store.dispose)
            compare(small, big, label)


if __name__ == "__main__":
    main()
