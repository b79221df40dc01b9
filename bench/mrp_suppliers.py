"""MRP choosing suppliers (issue 23): the MRP bench's companies (10k items with 5k open
orders, 20k with 10k, demand over 90 days, components batched weekly; see mrp_scale.py)
with every purchased item sold by two suppliers, three price breaks each: one in boxes of
10 in the company currency, one by the piece in US dollars (so every choice converts a
total), with different lead times, minimums and multiples. Every planned purchase is
chosen among them and grouped by supplier. Best of five runs of the whole job as a worker
runs it, in a process that only plans. Targets: the 20k run under 3 s, growth 10k -> 20k
at most 2.2 (2.0 is linear); the baseline is the 10k run of the same process.
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from sqlalchemy import insert, select, update

from bench.mrp_scale import DAYS, SIZES, spread_demand, verdict
from bench.synthetic import TODAY, build
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry, worker_for
from shopfloor.registry.actor import Actor
from shopfloor.store.tables import ExchangeRate, Item, Job, Supplier, SupplierItem

ACTOR = Actor.of("bench", "admin")
RUNS = 5


def _d(x: float) -> Decimal:
    return Decimal(str(round(x, 4)))


def add_supplier_items(url: str) -> int:
    """Two supplier items per material (Supplier 1 in boxes, Supplier 2 in USD by the
    piece), three breaks each; a USD rate valid from before the plan date."""
    reg = open_registry(Settings(database_url=url))
    rnd = random.Random(11)
    now = datetime.now(UTC)
    it = Item.__table__
    with reg.store.writing() as s:
        s.execute(update(Supplier.__table__).where(Supplier.__table__.c.id == 2)
                  .values(currency="USD"))
        s.execute(insert(ExchangeRate), [{"currency": "USD", "rate": Decimal("0.92"),
                                          "valid_from": TODAY.replace(year=TODAY.year - 1),
                                          "created_at": now}])
        rows = []
        for item_id, price, lead in s.execute(select(it.c.id, it.c.purchase_price,
                                                     it.c.lead_time_days)
                                              .where(it.c.kind == "material")).all():
            p = float(price)
            rows.append({"item_id": item_id, "supplier_id": 1, "purchase_unit": "box",
                         "units_per_purchase_unit": Decimal(10), "minimum_order": Decimal(1),
                         "order_multiple": None, "lead_time_days": lead,
                         "price_breaks": [["1", str(_d(p * 10))], ["10", str(_d(p * 9.5))],
                                          ["50", str(_d(p * 9))]],
                         "preferred": rnd.random() < 0.2, "updated_at": now, "version": 1})
            rows.append({"item_id": item_id, "supplier_id": 2, "purchase_unit": "pcs",
                         "units_per_purchase_unit": Decimal(1), "minimum_order": Decimal(20),
                         "order_multiple": Decimal(5), "lead_time_days": max(1, lead - 5),
                         "price_breaks": [["0", str(_d(p * 1.1))], ["100", str(_d(p))],
                                          ["1000", str(_d(p * 0.85))]],
                         "preferred": False, "updated_at": now, "version": 1})
        s.execute(insert(SupplierItem), rows)
        s.commit()
    reg.store.dispose()
    return len(rows)


def prepare(url: str, items: int, orders: int) -> dict[str, int]:
    reg = open_registry(Settings(database_url=url))
    made = build(reg, items, orders)
    spread_demand(reg)
    reg.store.dispose()
    return {**made, "supplier_items": add_supplier_items(url)}


def plan_seconds(url: str, items: int, orders: int, *, build_it: bool = True
                 ) -> tuple[float, dict[str, int], str]:
    made = json.loads(subprocess.run(
        [sys.executable, __file__, "--build", url, str(items), str(orders)], check=True,
        capture_output=True, text=True).stdout.splitlines()[-1]) if build_it else {}
    reg = open_registry(Settings(database_url=url))
    best, summary = float("inf"), ""
    for _ in range(RUNS):
        started = reg.invoke("run_mrp", {"today": TODAY.isoformat()}, ACTOR)
        gc.collect()
        t0 = time.perf_counter()
        worker_for(reg).run_one(started["job_id"])
        best = min(best, time.perf_counter() - t0)
        with reg.store.reading() as s:
            status, message = s.execute(select(Job.status, Job.message)
                                        .where(Job.id == started["job_id"])).one()
        assert status == "succeeded", message
        summary = message
    reg.store.dispose()
    return best, made, summary


def main() -> None:
    scale = float(os.environ.get("BENCH_MRP_SCALE", "1"))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (items, orders) in enumerate(SIZES):
            items, orders = int(items * scale), int(orders * scale)
            url = f"sqlite:///{Path(tmp) / f's{n}.db'}"
            seconds, made, summary = plan_seconds(url, items, orders)
            results.append(seconds)
            print(f"MRP choosing suppliers: {made['items']} items, {made['supplier_items']} "
                  f"supplier items (3 breaks each), {orders} open orders over {DAYS} days: "
                  f"{seconds:.2f} s ({summary})", flush=True)
        # the same 20k company without supplier items: what choosing costs, same run
        reg = open_registry(Settings(database_url=url))
        with reg.store.writing() as s:
            s.execute(SupplierItem.__table__.delete())
            s.commit()
        reg.store.dispose()
        plain, _, _ = plan_seconds(url, items, orders, build_it=False)
        print(f"the same company with one default supplier per item (no choice): {plain:.2f} s;"
              f" choosing costs {results[1] / plain:.2f}x", flush=True)
    verdict("20k items with suppliers", results)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        print(json.dumps(prepare(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
    else:
        main()
