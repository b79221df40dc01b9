"""MRP time for 10k items (4-level recipes) with 5k open orders, then for 20k items with
10k orders: the ratio shows how planning grows (2.0 is linear)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.synthetic import TODAY, build
from shopfloor.app import open_registry, worker_for
from shopfloor.registry.actor import Actor
from shopfloor.settings import Settings

ACTOR = Actor.of("bench", "admin")
SIZES = [(10_000, 5_000), (20_000, 10_000)]


def plan_seconds(url: str, items: int, orders: int) -> tuple[float, dict[str, int], str]:
    reg = open_registry(Settings(database_url=url))
    made = build(reg, items, orders)
    best = float("inf")
    summary = ""
    for _ in range(2):
        started = reg.invoke("run_mrp", {"today": TODAY.isoformat()}, ACTOR)
        t0 = time.perf_counter()
        worker_for(reg).run_one(started["job_id"])
        best = min(best, time.perf_counter() - t0)
        job = reg.invoke("get_job", {"job_id": started["job_id"]}, ACTOR)
        assert job["status"] == "succeeded", job["message"]
        summary = job["message"]
    reg.store.dispose()
    return best, made, summary


def main() -> None:
    scale = float(os.environ.get("BENCH_MRP_SCALE", "1"))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (items, orders) in enumerate(SIZES):
            items, orders = int(items * scale), int(orders * scale)
            url = f"sqlite:///{Path(tmp) / f'mrp{n}.db'}"
            seconds, made, summary = plan_seconds(url, items, orders)
            results.append(seconds)
            print(f"MRP {made['items']} items, {made['recipe_lines']} recipe lines, "
                  f"{orders} open orders: {seconds:.2f} s  ({summary})", flush=True)
    print(f"baseline: the 10k-item run; growth for 2x the company: "
          f"{results[1] / results[0]:.2f} (2.0 = linear)")


if __name__ == "__main__":
    main()
