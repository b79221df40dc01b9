"""The journal's cost against the apply as it was before the journal (issue 31: "the journal
entry costs a one-line apply at most 10% of its throughput today", written when main had no
journal).

`journal.py` times the same code with the journal's finisher on and off, which says what the
posting costs now (15-22%: on SQLite an entry and two lines are seven more B-tree pages to
the WAL, ~70 us of an ~0.7 ms apply, before any Python). This script answers the issue's own
question: a one-line adjustment's apply today, journal included, against the same apply on
main's last commit before the journal (`THEN`, taken from this checkout's history with
`git archive`), each in its own process and database, alternated, on SQLite and PostgreSQL.
The target: today's throughput at least 0.9 of then's, by wall time and by client CPU.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

THEN = "0a0a925"
"""main on 2026-11-27 10:02, the commit before the journal (bb1674a) landed."""
ROUNDS = int(os.environ.get("BENCH_THEN_NOW_ROUNDS", "3"))
ROOT = Path(__file__).resolve().parents[1]
PG = os.environ.get("SHOPFLOOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

CHILD = r'''
import os, statistics, sys, tempfile, time, uuid
from sqlalchemy import create_engine, text
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor

ACTOR = Actor.of("bench", "admin")
db, pg = sys.argv[1], sys.argv[2]
schema = "then_now_" + uuid.uuid4().hex[:8]
if db == "sqlite":
    url = f"sqlite:///{tempfile.mkdtemp()}/bench.db"
else:
    engine = create_engine(pg)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = f"{pg}?options=-csearch_path%3D{schema}"
reg = open_registry(Settings(database_url=url))
reg.invoke("create_location", {"code": "MAIN", "name": "Main", "preview": False}, ACTOR)
reg.invoke("create_item", {"sku": "B1", "name": "Bench", "purchase_price": "2",
                           "preview": False}, ACTOR)
ADJUST = {"location": "MAIN", "reason": "bench", "preview": False,
          "lines": [{"sku": "B1", "quantity_delta": "1", "unit_cost": "2"}]}


def batch(n):
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        reg.invoke("create_stock_adjustment", ADJUST, ACTOR)
    return (time.perf_counter() - wall) / n, (time.process_time() - cpu) / n


batch(100)
runs = [batch(100) for _ in range(8)]
print(statistics.median(w for w, _ in runs) * 1e3, statistics.median(c for _, c in runs) * 1e3)
reg.store.dispose()
if db != "sqlite":
    with engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    engine.dispose()
'''


def then_tree(into: Path) -> Path | None:
    """`THEN`'s src/ unpacked into `into`, or None where this checkout lacks the history."""
    made = subprocess.run(["git", "-C", str(ROOT), "archive", THEN, "src"],
                          capture_output=True)
    if made.returncode:
        return None
    with tarfile.open(fileobj=BytesIO(made.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def apply_ms(src: Path, db: str) -> tuple[float, float]:
    """(wall, client CPU) ms a one-line apply, in a process importing `src`'s package."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both trees compiled once, as users run
    done = subprocess.run([sys.executable, "-c", CHILD, db, PG], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"then_now[{db}] {src}: {done.stderr[-2000:]}")
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        then = then_tree(Path(tmp))
        if then is None:
            print(f"then_now: NOT MEASURED: this checkout has no commit {THEN} (a clone with "
                  "its history has)")
            return 1
        trees = {"then": then, "now": ROOT / "src"}
        ok = True
        for db in ("sqlite", "postgresql"):
            got: dict[str, list[tuple[float, float]]] = {k: [] for k in trees}
            for _ in range(ROUNDS):
                for name, src in trees.items():
                    got[name].append(apply_ms(src, db))
            ratios = []
            for i, kind in enumerate(("wall", "client CPU")):
                before = statistics.median(r[i] for r in got["then"])
                after = statistics.median(r[i] for r in got["now"])
                ratios.append(before / after)
                print(f"then_now[{db}] one-line apply, {kind}: {before:.3f} ms before the journal "
                      f"({THEN}), {after:.3f} ms now with it: now's throughput "
                      f"{before / after:.2f} of then's (target >= 0.9; "
                      f"load average {os.getloadavg()[0]:.1f})", flush=True)
            ok &= min(ratios) >= 0.9
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
