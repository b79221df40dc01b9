"""Lots at scale, on SQLite and PostgreSQL.

1. `get_stock` of a lot-tracked item and `trace_lot` (forward, through a manufacturing
   order to a customer) with 1M ledger rows, divided by the same with 10k (target <= 1.2):
   both read through indexes (lot balances; movements by lot and by document), so the
   ledger's size should not show. The extra rows belong to other lots of the same items.
2. Receiving a 200-line purchase order whose items are lot-tracked (each line its own lot,
   created by the receipt) against the same order of untracked items, per line (target
   <= 1.5): lots add one lookup, one insert and one lot-balance insert per document.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench import ledger_scale
from bench.apply_throughput import pg_schema
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.types import SCALE

BIG = int(os.environ.get("BENCH_LEDGER_ROWS", "1000000"))
SMALL = 10_000
SAMPLES = int(os.environ.get("BENCH_LOT_SAMPLES", "200"))
RECEIPTS = int(os.environ.get("BENCH_LOT_RECEIPTS", "8"))
LINES = 200
ACTOR = Actor.of("bench", "admin")


def call(reg: Registry, tool: str, **args: Any) -> dict[str, Any]:
    return reg.invoke(tool, {**args, "preview": False}, ACTOR)


def seed(reg: Registry) -> None:
    """A flour lot made into bread, shipped to a customer: the trace every size runs."""
    call(reg, "create_location", code="MAIN", name="Main")
    call(reg, "create_supplier", name="Mill")
    call(reg, "create_customer", name="Cafe")
    call(reg, "create_item", sku="FLOUR", name="Flour", batch_tracked=True)
    call(reg, "create_item", sku="BREAD", name="Bread", kind="product", batch_tracked=True)
    call(reg, "update_recipe", sku="BREAD", components=[{"sku": "FLOUR", "quantity": "1"}])
    po = call(reg, "create_purchase_order", supplier="Mill", location="MAIN",
              lines=[{"sku": "FLOUR", "quantity": "100", "unit_price": "1"}])
    call(reg, "receive_purchase_order", number=po["number"], batch="F1")
    mo = call(reg, "create_manufacturing_order", sku="BREAD", quantity="10", location="MAIN")
    call(reg, "complete_manufacturing_order", number=mo["number"], lot="B1")
    so = call(reg, "create_sales_order", customer="Cafe", location="MAIN",
              lines=[{"sku": "BREAD", "quantity": "4"}])
    call(reg, "fulfill_order", number=so["number"])


def grow(reg: Registry, rows: int) -> None:
    """`rows` ledger rows of 1,000 other flour lots, lot balances and balance to match."""
    pg = reg.store.dialect == "postgresql"
    one = 1 if pg else 10**SCALE
    numbers = ("SELECT i FROM generate_series(1, :n) AS i" if pg else
               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :n) "
               "SELECT i FROM n")
    with reg.store.writing() as s:
        flour = s.execute(text("SELECT id FROM items WHERE sku = 'FLOUR'")).scalar_one()
        s.execute(text(
            "INSERT INTO batches (item_id, lot_number, held, version) "
            f"SELECT :item, 'X' || i, {'false' if pg else '0'}, 1 FROM ({numbers}) AS seq"),
            {"item": flour, "n": 1000})
        s.execute(text(
            "INSERT INTO stock_movements (item_id, location_id, batch_id, quantity, unit_cost, "
            "reason, actor, created_at) SELECT :item, 1, b.id, "
            f"{one}, {one}, 'seed', 'bench', CURRENT_TIMESTAMP FROM ({numbers}) AS seq "
            "JOIN batches b ON b.lot_number = 'X' || (1 + seq.i % 1000)"),
            {"item": flour, "n": rows})
        s.execute(text(
            "INSERT INTO lot_balances (item_id, location_id, batch_id, on_hand, version) "
            "SELECT item_id, location_id, batch_id, SUM(quantity), 1 FROM stock_movements "
            "WHERE reason = 'seed' GROUP BY item_id, location_id, batch_id"))
        s.execute(text(
            "UPDATE balances SET on_hand = (SELECT SUM(quantity) FROM stock_movements m WHERE "
            "m.item_id = balances.item_id AND m.location_id = balances.location_id)"))
        s.commit()
    if pg:
        with reg.store.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))


def setup(url: str, rows: int) -> Registry:
    reg = open_registry(Settings(database_url=url))
    seed(reg)
    grow(reg, rows)
    return reg


READS: dict[str, Callable[[], tuple[str, dict[str, object]]]] = {
    "get_stock (lot-tracked)": lambda: ("get_stock", {"sku": "FLOUR", "location": "MAIN",
                                                      "limit": 1}),
    "trace_lot forward": lambda: ("trace_lot", {"sku": "FLOUR", "lot": "F1"}),
    "trace_lot backward": lambda: ("trace_lot", {"sku": "BREAD", "lot": "B1",
                                                 "direction": "backward"}),
}


def compare_reads(small: Registry, big: Registry, label: str) -> None:
    for name, make in READS.items():
        times: dict[str, list[float]] = {"small": [], "big": []}
        for i in range(SAMPLES):
            order = (("small", small), ("big", big)) if i % 2 == 0 else \
                (("big", big), ("small", small))
            for side, reg in order:
                tool, args = make()
                start = time.perf_counter()
                reg.invoke(tool, args, ACTOR)
                times[side].append(time.perf_counter() - start)
        a, b = statistics.median(times["small"]), statistics.median(times["big"])
        print(f"lot_scale[{label}] {name} median: {SMALL:,} rows {a * 1e3:.2f} ms, "
              f"{BIG:,} rows {b * 1e3:.2f} ms  ratio {b / a:.2f}  (target <= 1.2)", flush=True)


def receipts(url: str, label: str) -> None:
    reg = open_registry(Settings(database_url=url))
    call(reg, "create_location", code="MAIN", name="Main")
    call(reg, "create_supplier", name="Mill")
    for kind in ("U", "T"):
        for i in range(LINES):
            call(reg, "create_item", sku=f"{kind}{i}", name=f"{kind} {i}",
                 batch_tracked=kind == "T")
    times: dict[str, list[float]] = {"U": [], "T": []}
    for r in range(RECEIPTS):
        for kind in ("U", "T") if r % 2 == 0 else ("T", "U"):
            po = call(reg, "create_purchase_order", supplier="Mill", location="MAIN",
                      lines=[{"sku": f"{kind}{i}", "quantity": "5", "unit_price": "1"}
                             for i in range(LINES)])
            lines = [{"sku": f"{kind}{i}", "quantity": "5",
                      **({"lots": [{"lot": f"R{r}-{i}"}]} if kind == "T" else {})}
                     for i in range(LINES)]
            start = time.perf_counter()
            call(reg, "receive_purchase_order", number=po["number"], lines=lines)
            times[kind].append((time.perf_counter() - start) / LINES)
    u, t = statistics.median(times["U"]), statistics.median(times["T"])
    print(f"lot_scale[{label}] {LINES}-line receipt per line: untracked {u * 1e6:.0f} us, "
          f"lot-tracked {t * 1e6:.0f} us  ratio {t / u:.2f}  (target <= 1.5)", flush=True)
    reg.store.dispose()


def pg_pair() -> AbstractContextManager[tuple[str, str]]:
    return ledger_scale.pg_pair("l")


def main() -> None:
    only_receipts = sys.argv[1:] == ["receipts"]  # `python bench/lot_scale.py receipts`
    for label, pair in (("sqlite", ledger_scale.sqlite_pair), ("postgresql", pg_pair)):
        with ExitStack() as stack:
            small_url, big_url = stack.enter_context(pair())
            receipts(small_url.replace("small", "receipts") if label == "sqlite"
                     else stack.enter_context(pg_schema("lrec_")), label)
            if only_receipts:
                continue
            small, big = setup(small_url, SMALL), setup(big_url, BIG)
            stack.callback(small.store.dispose)
            stack.callback(big.store.dispose)
            compare_reads(small, big, label)


if __name__ == "__main__":
    main()
