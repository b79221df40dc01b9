"""One small read through the registry: `get_stock` of one item at one location, in ms per
call on SQLite and on PostgreSQL, and the ratio between them.

On PostgreSQL every round trip to the server costs, however small the query: the figures
come with the round trips one read makes (counted from libpq's protocol trace; a read runs
in autocommit, so only its own statements), the cost of one bare round trip (`SELECT 1` on
an open connection), and the time one read spends inside the driver's execute on each
database, so the gap can be read as "round trips x their price" plus the driver's own
work (psycopg builds column descriptions and converts every value in Python; sqlite3
does it in C, in process), the rest being the same SQLAlchemy and pydantic work on both.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.apply_throughput import PG, pg_schema
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry

CALLS = int(os.environ.get("BENCH_READ_CALLS", "2000"))  # per figure
ITEMS = 50
ACTOR = Actor.of("bench", "admin")
ARGS = {"sku": "R7", "location": "MAIN"}


def setup(url: str) -> Registry:
    reg = open_registry(Settings(database_url=url))
    reg.invoke("create_location", {"code": "MAIN", "name": "Main", "preview": False}, ACTOR)
    for i in range(ITEMS):
        reg.invoke("create_item", {"sku": f"R{i}", "name": f"Read {i}", "preview": False},
                   ACTOR)
    reg.invoke("create_stock_adjustment", {
        "location": "MAIN", "reason": "seed", "preview": False,
        "lines": [{"sku": f"R{i}", "quantity_delta": i + 1} for i in range(ITEMS)]}, ACTOR)
    return reg


def interleaved_ms(calls: dict[str, Callable[[], Any]], n: int = CALLS,
                   block: int = 50) -> dict[str, tuple[float, float]]:
    """Median and mean ms per call of each, sampled in alternating blocks after a warm-up,
    so a noisy machine's drift hits every figure alike."""
    for call in calls.values():
        for _ in range(200):
            call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(max(1, n // block)):
        for name, call in calls.items():
            for _ in range(block):
                start = time.perf_counter()
                call()
                samples[name].append((time.perf_counter() - start) * 1000)
    return {name: (statistics.median(s), statistics.fmean(s)) for name, s in samples.items()}


def pre_pinged(reg: Registry, on: bool) -> None:
    """The old setting (`pool_pre_ping=True`), switched on the live pool for comparison."""
    reg.store.engine.pool._pre_ping = on


@contextmanager
def traced(reg: Registry, path: Path) -> Iterator[None]:
    """libpq's protocol trace of every connection the registry opens from now on."""
    from psycopg import pq

    reg.store.engine.dispose()

    def trace(dbapi_conn: Any, _record: Any) -> None:
        pgconn = dbapi_conn.pgconn
        pgconn.trace(handle.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    with path.open("w") as handle:
        event.listen(reg.store.engine, "connect", trace)
        try:
            yield
        finally:
            event.remove(reg.store.engine, "connect", trace)
            reg.store.engine.dispose()


def round_trips(reg: Registry, calls: int = 20) -> tuple[float, list[str]]:
    """Round trips per read, and what one read waits for: each frontend Query or Sync
    message waits for the server's ReadyForQuery."""
    def read() -> None:
        reg.invoke("get_stock", ARGS, ACTOR)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.log"
        with traced(reg, path):
            read()  # the first call on the traced pool opens the connection
            start = path.stat().st_size
            for _ in range(calls):
                read()
        with path.open() as handle:
            handle.seek(start)
            sent = [ln.rstrip("\n").split("\t") for ln in handle if ln.startswith("F\t")]
    waits, statement = [], ""
    for fields in sent:
        kind, text = fields[2], (fields[3] if len(fields) > 3 else "").strip()
        if kind == "Parse":
            found = re.search(r"\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b.*?\b(?:FROM )?(\w+)",
                              text)
            statement = f"{found.group(1)} {found.group(2)}" if found else text[:30]
        elif kind == "Query":
            waits.append(text.strip('"') or "(empty)")
        elif kind == "Sync":
            waits.append(statement + " ...")
    return len(waits) / calls, waits[: len(waits) // calls]


def in_driver_ms(reg: Registry, calls: int = 500) -> float:
    """Mean ms per read spent inside the DB-API cursor's execute (the driver, and on
    PostgreSQL the wait for the server)."""
    spent: list[float] = []

    def before(*_: Any) -> None:
        spent.append(-time.perf_counter())

    def after(*_: Any) -> None:
        spent[-1] += time.perf_counter()

    engine = reg.store.engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        for _ in range(calls):
            reg.invoke("get_stock", ARGS, ACTOR)
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
    return sum(spent) * 1000 / calls


def bare_round_trip_ms() -> float:
    import psycopg

    with psycopg.connect(PG.replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as conn:
        return interleaved_ms({"bare": lambda: conn.execute("SELECT 1").fetchone()})["bare"][0]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, pg_schema("read") as url:
        lite, pg = setup(f"sqlite:///{tmp}/read.db"), setup(url)

        def pinged() -> Any:
            pre_pinged(pg, True)
            try:
                return pg.invoke("get_stock", ARGS, ACTOR)
            finally:
                pre_pinged(pg, False)

        configured = bool(getattr(pg.store.engine.pool, "_pre_ping", False))
        figures = interleaved_ms({
            "sqlite": lambda: lite.invoke("get_stock", ARGS, ACTOR),
            f"postgresql (pool_pre_ping={configured})": lambda: pg.invoke(
                "get_stock", ARGS, ACTOR),
            "postgresql (pool_pre_ping=True, the old setting)": pinged,
        })
        driver = {"sqlite": in_driver_ms(lite), "postgresql": in_driver_ms(pg)}
        trips, messages = round_trips(pg)
        lite.store.dispose()
        pg.store.dispose()
    bare = bare_round_trip_ms()
    for name, (median, mean) in figures.items():
        print(f"get_stock one item, {name}: {median:.3f} ms median, {mean:.3f} ms mean")
    base, now, old = (m for m, _ in figures.values())
    print(f"ratio postgresql / sqlite (median): {now / base:.2f} "
          f"(with the pre-ping: {old / base:.2f})")
    print(f"postgresql: {trips:.1f} round trips per read; one bare round trip (SELECT 1) "
          f"{bare:.3f} ms -> {trips * bare:.3f} ms of the read is waiting on the server")
    print("postgresql: one read waits for: " + " | ".join(messages))
    gap = now - base
    there = driver["postgresql"] - driver["sqlite"]
    print(f"inside the driver's execute per read: sqlite {driver['sqlite']:.3f} ms, "
          f"postgresql {driver['postgresql']:.3f} ms; of the {gap:.3f} ms gap, "
          f"{there:.3f} ms is there ({trips * bare:.3f} ms of it the round trips), the "
          f"other {gap - there:.3f} ms above it (psycopg builds each result's column "
          "descriptions and converts its rows in Python as SQLAlchemy reads them; sqlite3 "
          "does both in C)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
