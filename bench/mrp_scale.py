"""MRP, time-phased by day: a 10k-item company (4-level recipes) with 5k open orders, then
a 20k-item one with 10k, customer demand spread over 90 days. The time is the whole job
as a worker runs it (read everything, net every item, store the plan), best of five, in a
process that only plans (the company is built by a child process, and a run's outcome is
read in SQL, not decoded); the ratio shows how planning grows (2.0 is linear). Targets
(issue 13): the 20k run under 3 s, growth at most 2.2.

The synthetic company's sales are due within 60 days; here they are spread over 90 (a
sales order every day or so for three months), so every product has several dated needs
and each gets one order per need date, lot for lot (made to order). Components are
batched as most shops batch them, a week's needs at a time (period of supply 7 days on
intermediates and materials). The last line shows the 20k company planned with every
item lot for lot (about 130k planned orders, one per item and need date), for
comparison.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from sqlalchemy import bindparam, func, insert, select, update

from bench.synthetic import TODAY, build
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry, worker_for
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Item, Job, SalesOrder

ACTOR = Actor.of("bench", "admin")
SIZES = [(10_000, 5_000), (20_000, 10_000)]
TARGET_SECONDS, TARGET_GROWTH = 3.0, 2.2
DAYS = 90
RUNS = 5


def spread_demand(reg: Registry) -> None:
    """Sales orders due every day of the next 90, in turn; components batched weekly."""
    so, it = SalesOrder.__table__, Item.__table__
    with reg.store.writing() as s:
        s.execute(update(it).where(it.c.kind != "product").values(supply_period_days=7))
        ids = s.execute(select(so.c.id).order_by(so.c.id)).scalars().all()
        s.execute(update(so).where(so.c.id == bindparam("i")).values(due_date=bindparam("d")),
                  [{"i": i, "d": TODAY + timedelta(days=1 + n % DAYS)}
                   for n, i in enumerate(ids)])
        s.commit()


def plan_seconds(url: str, items: int, orders: int, *, lot_for_lot: bool = False,
                 routed: bool = False) -> tuple[float, float, dict[str, int], str]:
    """Best of five runs (two cores shared with other work: the best is the steadiest
    figure): wall time, and the process's CPU time in that run."""
    # the company is built by a child process: the planner runs in a process that only
    # plans, as a worker does, not in one whose heap is full of building's leftovers
    made = json.loads(subprocess.run(
        [sys.executable, __file__, "--build", url, str(items), str(orders),
         "l4l" if lot_for_lot else "routed" if routed else ""], check=True,
        capture_output=True, text=True
    ).stdout.splitlines()[-1])
    reg = open_registry(Settings(database_url=url))
    best, cpu = float("inf"), 0.0
    summary = ""
    for _ in range(RUNS):
        started = reg.invoke("run_mrp", {"today": TODAY.isoformat()}, ACTOR)
        gc.collect()  # start clean: not the garbage of reading the previous run's plan
        t0, c0 = time.perf_counter(), time.process_time()
        worker_for(reg).run_one(started["job_id"])
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
        # the outcome read in SQL: decoding the stored plan (tens of MB) into Python
        # objects here would leave the next timed run a heap a worker never has
        with reg.store.reading() as s:
            status, message, flags = s.execute(
                select(Job.status, Job.message,
                       func.json_array_length(Job.result, "$.messages"))
                .where(Job.id == started["job_id"])).one()
        assert status == "succeeded", message
        summary = f"{message}; {flags} action messages"
    reg.store.dispose()
    return best, cpu, made, summary


WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]
CALENDARS = ([{"days": WEEKDAYS, "start": "08:00", "end": "16:00"}],
             [{"days": WEEKDAYS, "start": "06:00", "end": "14:00"},
              {"days": WEEKDAYS, "start": "14:00", "end": "22:00"}])
"""Day work (Mon-Fri 08:00-16:00) on the even centres, two shifts (06:00-14:00 and
14:00-22:00) on the odd ones."""


def add_routings(reg: Registry) -> None:
    """Ten work centres on two calendars and a three-operation routing on every made item
    (issue 22): MRP then dates each planned order through its routing. A routing's steps
    are three centres apart, so consecutive operations change calendar (even, odd, even
    or odd, even, odd) and each order is three backward walks, not one: the case a shop
    of one calendar would flatter."""
    from decimal import Decimal

    from shopfloor.domain.floor.calendar import shifts_out, week_of
    from shopfloor.store.tables import RoutingOperation, WorkCentre

    with reg.store.writing() as s:
        s.execute(insert(WorkCentre), [
            {"code": f"WC{c}", "name": f"Centre {c}", "hourly_cost": Decimal(30),
             "capacity": 1, "efficiency_percent": Decimal(100),
             "calendar": shifts_out(week_of(CALENDARS[c % 2])), "closed_dates": [],
             "time_zone": "UTC", "version": 1} for c in range(10)])
        centres = list(s.scalars(select(WorkCentre.id).order_by(WorkCentre.code)))
        made = list(s.scalars(select(Item.id).where(Item.kind != "material")))
        s.execute(insert(RoutingOperation), [
            {"item_id": item, "sequence": k * 10, "name": f"Step {k}",
             "work_centre_id": centres[(n + 3 * k) % 10], "setup_minutes": Decimal(15),
             "run_minutes": Decimal("0.5")} for n, item in enumerate(made) for k in range(3)])
        s.commit()


def prepare(url: str, items: int, orders: int, lot_for_lot: bool,
            routed: bool = False) -> dict[str, int]:
    reg = open_registry(Settings(database_url=url))
    made = build(reg, items, orders)
    spread_demand(reg)
    if routed:
        add_routings(reg)
    if lot_for_lot:
        with reg.store.writing() as s:
            s.execute(update(Item.__table__).values(supply_period_days=0))
            s.commit()
    reg.store.dispose()
    return made


def verdict(label: str, results: list[float]) -> None:
    """The two targets every MRP bench holds: the 20k run's time, and its growth from 10k."""
    growth = results[1] / results[0]
    print(f"baseline: the 10k-item run; growth for 2x the company: {growth:.2f} "
          f"(2.0 = linear; target <= {TARGET_GROWTH})")
    print(f"{label}: {results[1]:.2f} s (target < {TARGET_SECONDS:.0f} s): "
          + ("met" if results[1] < TARGET_SECONDS and growth <= TARGET_GROWTH else "MISSED"),
          flush=True)


def main() -> None:
    scale = float(os.environ.get("BENCH_MRP_SCALE", "1"))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (items, orders) in enumerate(SIZES):
            items, orders = int(items * scale), int(orders * scale)
            url = f"sqlite:///{Path(tmp) / f'mrp{n}.db'}"
            seconds, cpu, made, summary = plan_seconds(url, items, orders)
            results.append(seconds)
            print(f"MRP {made['items']} items, {made['recipe_lines']} recipe lines, "
                  f"{orders} open orders, demand over {DAYS} days: {seconds:.2f} s "
                  f"(CPU {cpu:.2f} s; {summary})", flush=True)
    verdict("20k items", results)
    with tempfile.TemporaryDirectory() as tmp:
        items, orders = (int(x * scale) for x in SIZES[1])
        seconds, cpu, _, summary = plan_seconds(f"sqlite:///{Path(tmp) / 'l4l.db'}", items,
                                                orders, lot_for_lot=True)
        print(f"for comparison, every item lot for lot: {seconds:.2f} s (CPU {cpu:.2f} s; "
              f"{summary})")
    with tempfile.TemporaryDirectory() as tmp:
        items, orders = (int(x * scale) for x in SIZES[1])
        seconds, cpu, _, summary = plan_seconds(f"sqlite:///{Path(tmp) / 'routed.db'}", items,
                                                orders, routed=True)
        print(f"20k items, every made item with a 3-operation routing over two calendars: "
              f"{seconds:.2f} s "
              f"(CPU {cpu:.2f} s; {summary}; target < {TARGET_SECONDS:.0f} s): "
              + ("met" if seconds < TARGET_SECONDS else "MISSED"), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        print(json.dumps(prepare(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                                 sys.argv[5] == "l4l", sys.argv[5] == "routed")))
    else:
        main()
