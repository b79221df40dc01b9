"""get_stock latency with 1M ledger rows divided by the latency with 10k: reads come from
the balance table, so ledger size should not matter."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).parents[1]))

from shopfloor.app import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings

BIG = int(os.environ.get("BENCH_LEDGER_ROWS", "1000000"))
SMALL = 10_000
ACTOR = Actor.of("bench", "admin")


def grow_ledger(reg: Registry, rows: int) -> None:
    """Bulk ledger rows over 50 items (a seeded history); balances set to match."""
    with reg.store.writing() as s:
        s.execute(text(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :rows) "
            "INSERT INTO stock_movements (item_id, location_id, quantity, unit_cost, reason, "
            "actor, created_at) SELECT 1 + (i % 50), 1, 1000000, 1000000, 'seed', 'bench', "
            "CURRENT_TIMESTAMP FROM n"), {"rows": rows})
        s.execute(text(
            "UPDATE balances SET on_hand = (SELECT SUM(quantity) FROM stock_movements m WHERE "
            "m.item_id = balances.item_id AND m.location_id = balances.location_id)"))
        s.commit()


def latency(reg: Registry) -> float:
    samples = []
    for i in range(300):
        start = time.perf_counter()
        reg.invoke("get_stock", {"sku": f"L{i % 50}", "location": "MAIN"}, ACTOR)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def setup(url: str) -> Registry:
    reg = open_registry(Settings(database_url=url))
    reg.invoke("create_location", {"code": "MAIN", "name": "Main", "preview": False}, ACTOR)
    for i in range(50):
        reg.invoke("create_item", {"sku": f"L{i}", "name": f"Ledger {i}", "preview": False}, ACTOR)
        reg.invoke("create_stock_adjustment", {"location": "MAIN", "reason": "seed",
                   "preview": False, "lines": [{"sku": f"L{i}", "quantity_delta": "1"}]}, ACTOR)
    return reg


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small = setup(f"sqlite:///{tmp}/small.db")
        grow_ledger(small, SMALL)
        big = setup(f"sqlite:///{tmp}/big.db")
        grow_ledger(big, BIG)
        a, b = latency(small), latency(big)
    print(f"ledger_scale  get_stock median: {SMALL:,} rows {a * 1e3:.2f} ms, {BIG:,} rows "
          f"{b * 1e3:.2f} ms  ratio {b / a:.2f}  (target <= 1.2)")


if __name__ == "__main__":
    main()
