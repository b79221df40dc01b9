"""get_stock_valuation over 1M ledger rows and 10k items, on SQLite and PostgreSQL.

The figures an accountant asks for: the value now (the balances), as at a day's end
(the ledger up to it) and a month's and a year's flows (one grouped pass over the ledger
up to the period's end), each timed through the registry. Target: each under 1 s. The
baseline, measured in the same run, is the cheapest thing that reads every row: a plain
SUM over the ledger's values; the ratio says what grouping and classifying costs on top.

The ledger is seeded in bulk straight into the tables (a year of rows, two locations,
receipts and issues at each item's cost), and the balances are set to its sums, as the
ledger keeps them.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.apply_throughput import pg_schema
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Item
from shopfloor.store.types import SCALE

ROWS = int(os.environ.get("BENCH_VALUATION_ROWS", "1000000"))
ITEMS = int(os.environ.get("BENCH_VALUATION_ITEMS", "10000"))
SAMPLES = int(os.environ.get("BENCH_VALUATION_SAMPLES", "5"))
TODAY = datetime.now(UTC).date()
FIRST_DAY = TODAY - timedelta(days=365)  # the seeded year: the last 365 days
ACTOR = Actor.of("bench", "viewer")
TARGET = 1.0


def seed(reg: Registry) -> None:
    """Items and locations, then ROWS ledger rows in one INSERT ... SELECT, then the
    balances as the ledger's sums."""
    admin = Actor.of("bench", "admin")
    for code in ("MAIN", "SHOP"):
        reg.invoke("create_location", {"code": code, "name": code, "preview": False}, admin)
    pg = reg.store.dialect == "postgresql"
    with reg.store.writing() as s:
        s.execute(insert(Item.__table__), [
            {"sku": f"V{i:05d}", "name": f"Valued {i}", "kind": ("material", "product")[i % 2]}
            for i in range(ITEMS)])
        s.commit()
    unit = 1 if pg else 10**SCALE  # one unit, as each database stores a decimal
    # Four rows in five bring two in at (1 + item % 7), the fifth takes one out at it.
    qty = f"(CASE WHEN i % 5 = 0 THEN -1 ELSE 2 END) * {unit}"
    cost = "(1 + i % 7)"
    if pg:
        numbers = "SELECT CAST(g AS BIGINT) AS i FROM generate_series(1, :rows) AS g"
        at = ("CAST(:t0 AS TIMESTAMPTZ) + (i * 31535 / :rows) * INTERVAL '1000 seconds' "
              "+ (i % 997) * INTERVAL '1 second'")
    else:
        numbers = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                   "WHERE i < :rows) SELECT i FROM n")
        at = ("strftime('%Y-%m-%d %H:%M:%S', :t0, '+' || ((i * 31535 / :rows) * 1000 "
              "+ i % 997) || ' seconds') || '.000000'")
    with reg.store.writing() as s:
        s.execute(text(
            "INSERT INTO stock_movements (item_id, location_id, quantity, unit_cost, value, "
            "reason, actor, created_at) SELECT 1 + i % :items, 1 + (i / :items) % 2, "
            f"{qty}, {cost} * {unit}, {qty} * {cost}, "
            "CASE WHEN i % 5 = 0 THEN 'shipment' ELSE 'receipt' END, 'bench', "
            f"{at} FROM ({numbers}) AS seq"),
            {"rows": ROWS, "items": ITEMS, "t0": f"{FIRST_DAY} 00:00:00" + ("+00" if pg else "")})
        s.execute(text(
            "INSERT INTO balances (item_id, location_id, on_hand, committed, average_cost, "
            "stock_value, version) SELECT item_id, location_id, SUM(quantity), 0, 0, "
            "SUM(value), 1 FROM stock_movements GROUP BY item_id, location_id"))
        s.commit()
    with reg.store.engine.connect() as conn:
        if pg:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(
                text("VACUUM ANALYZE"))
        else:
            conn.execute(text("ANALYZE"))
            conn.commit()


def baseline(reg: Registry) -> Callable[[], Any]:
    def run() -> Any:
        with reg.store.reading() as s:
            return s.execute(text("SELECT SUM(value) FROM stock_movements")).scalar_one()
    return run


MONTH_END = TODAY.replace(day=1) - timedelta(days=1)  # the last month an accountant closes
MIDDLE = TODAY - timedelta(days=182)  # the slowest day to value: half the ledger either side
CALLS: dict[str, dict[str, object]] = {
    "now (first page)": {},
    f"as at {MONTH_END} (last month's end)": {"date": str(MONTH_END)},
    f"period {MONTH_END.replace(day=1)}..{MONTH_END}": {
        "start": str(MONTH_END.replace(day=1)), "date": str(MONTH_END)},
    f"as at {MIDDLE} (mid-ledger)": {"date": str(MIDDLE)},
    f"period {FIRST_DAY}..{TODAY} (the whole ledger)": {"start": str(FIRST_DAY)},
}


def median(run: Callable[[], Any]) -> float:
    run()  # warm the caches and the statement cache
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(reg: Registry, label: str) -> bool:
    base = median(baseline(reg))
    print(f"stock_valuation[{label}] baseline SUM(value) over {ROWS:,} rows: "
          f"{base * 1e3:.1f} ms", flush=True)
    ok = True
    for name, args in CALLS.items():
        def call(args: dict[str, object] = args) -> Any:
            return reg.invoke("get_stock_valuation", args, ACTOR)
        took = median(call)
        total = call()["total"]["value"]
        ok &= took < TARGET
        print(f"stock_valuation[{label}] {name}: {took * 1e3:.1f} ms (total {total})  "
              f"ratio {took / base:.2f} x baseline  (target < {TARGET:.0f} s: "
              f"{'met' if took < TARGET else 'MISSED'})", flush=True)
    return ok


@contextmanager
def sqlite_url() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{tmp}/valuation.db"


def main() -> int:
    ok = True
    for label, where in (("sqlite", sqlite_url), ("postgresql", pg_schema)):
        if os.environ.get("BENCH_VALUATION_ONLY", label) != label:
            continue
        with ExitStack() as stack:
            reg = open_registry(Settings(database_url=stack.enter_context(where())))
            stack.callback(reg.store.dispose)
            start = time.perf_counter()
            seed(reg)
            print(f"stock_valuation[{label}] seeded {ROWS:,} rows over {ITEMS:,} items in "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            ok &= measure(reg, label)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
