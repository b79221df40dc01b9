"""The journal's three figures (issue 31), on SQLite and PostgreSQL:

- the trial balance over a 1M-row ledger's journal (target < 1 s): the ledger is seeded in
  bulk as `stock_valuation` seeds it, then one entry per row with its two lines (the row's
  value to Inventory, the other side to GRNI or cost of goods sold) by INSERT ... SELECT;
  the baseline is a plain SUM over every line;
- exporting 1M journal lines as CSV and as beancount (target < 30 s each, peak RSS growth
  < 50 MB): the export's generator read to the end, its resident memory sampled as it
  goes;
- what the journal costs a one-line adjustment's apply (target at most 10% of its
  throughput): the same apply with the journal's finisher and without, alternated.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

sys.path.insert(0, str(Path(__file__).parents[1]))
os.environ.setdefault("BENCH_VALUATION_ROWS", os.environ.get("BENCH_JOURNAL_ROWS", "1000000"))

from bench import stock_valuation as valuation  # (reads the rows set above)
from bench.apply_throughput import pg_schema
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.domain.accounting import export
from shopfloor.domain.base.context import Op
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry

EXPORT_LINES = int(os.environ.get("BENCH_EXPORT_LINES", "1000000"))
APPLIES = int(os.environ.get("BENCH_JOURNAL_APPLIES", "200"))
ROUNDS = int(os.environ.get("BENCH_JOURNAL_ROUNDS", "4"))
"""Alternated pairs of batches (APPLIES / 8 applies each) for the apply's figure."""
ADMIN = Actor.of("bench", "admin")


def seed_journal(reg: Registry) -> None:
    """One entry per ledger row (its id), two lines each, as the live posting writes."""
    with reg.store.writing() as s:
        s.execute(text(
            "INSERT INTO journal_entries (id, posted_at, operation_id, document_type, "
            "document_number, memo, created_at) SELECT id, created_at, NULL, NULL, NULL, "
            "CASE WHEN reason = 'receipt' THEN 'Goods received' ELSE 'Goods shipped' END, "
            "created_at FROM stock_movements"))
        for side in (
                "'1310', 'inventory', CASE WHEN value > 0 THEN value ELSE 0 END, "
                "CASE WHEN value < 0 THEN -value ELSE 0 END, item_id, location_id",
                "CASE WHEN reason = 'receipt' THEN '2110' ELSE '5000' END, CASE WHEN "
                "reason = 'receipt' THEN 'grni' ELSE 'cogs' END, CASE WHEN value < 0 THEN "
                "-value ELSE 0 END, CASE WHEN value > 0 THEN value ELSE 0 END, NULL, NULL"):
            s.execute(text(
                "INSERT INTO journal_lines (entry_id, account, role, debit, credit, item_id, "
                f"location_id, posted_at) SELECT id, {side}, created_at FROM stock_movements"))
        if reg.store.dialect == "postgresql":  # the ids were given: the sequence follows
            s.execute(text("SELECT setval(pg_get_serial_sequence('journal_entries', 'id'), "
                           "(SELECT MAX(id) FROM journal_entries))"))
        s.commit()
    with reg.store.engine.connect() as conn:
        if reg.store.dialect == "postgresql":
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(
                text("VACUUM ANALYZE"))
        else:
            conn.execute(text("ANALYZE"))
            conn.commit()


def trial(reg: Registry, label: str) -> bool:
    def base() -> Any:
        with reg.store.reading() as s:
            return s.execute(text("SELECT SUM(debit) FROM journal_lines")).scalar_one()

    def call() -> Any:
        return reg.invoke("get_trial_balance", {}, ADMIN)

    def month() -> Any:
        end = valuation.MONTH_END
        return reg.invoke("get_trial_balance", {"start": str(end.replace(day=1)),
                                                "end": str(end)}, ADMIN)

    b = valuation.median(base)
    ok = True
    for name, run in (("whole history", call), ("last month", month)):
        took = valuation.median(run)
        tb = run()
        ok &= took < 1.0 and tb["debit"] == tb["credit"]
        print(f"journal[{label}] trial balance, {name}: {took * 1e3:.0f} ms  ratio "
              f"{took / b:.2f} x SUM(debit) ({b * 1e3:.0f} ms)  (target < 1 s: "
              f"{'met' if took < 1.0 else 'MISSED'}; debits {tb['debit']} = credits "
              f"{tb['credit']})", flush=True)
    return ok


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def exported(reg: Registry, label: str) -> bool:
    """The first EXPORT_LINES lines' entries (they are in id order, half an entry's
    lines each), written nowhere, as CSV and as a beancount ledger."""
    ok = True
    with reg.store.reading() as s:
        last = s.execute(text("SELECT posted_at FROM journal_entries WHERE id = :i"),
                         {"i": EXPORT_LINES // 2}).scalar_one()
        end = last if isinstance(last, datetime) else datetime.fromisoformat(str(last))
        end = end.replace(tzinfo=end.tzinfo or UTC)
        op = Op(s, "bench", datetime.now(UTC), dialect=reg.store.dialect)
        for kind, lines, header in (("CSV", export.csv_lines, 1),
                                    ("beancount", export.beancount_lines, 0)):
            start_rss = peak = _rss_kb()
            begun = time.perf_counter()
            rows = 0
            for chunks, chunk in enumerate(lines(op, "EUR", None, end)):
                # CSV: a line per account of an entry; beancount: its postings, indented
                rows += chunk.count("\n") if kind == "CSV" else \
                    chunk.count("\n  ") + chunk.startswith("  ")
                if chunks % 200 == 0:
                    peak = max(peak, _rss_kb())
            took = time.perf_counter() - begun
            growth = (max(peak, _rss_kb()) - start_rss) / 1024
            met = took < 30 and growth < 50
            ok &= met
            rows -= header
            print(f"journal[{label}] export {kind}: {rows:,} lines in {took:.1f} s "
                  f"({rows / took:,.0f} lines/s), peak RSS growth {growth:.1f} MB  (target "
                  f"< 30 s and < 50 MB: {'met' if met else 'MISSED'})", flush=True)
    return ok


def _backends(reg: Registry) -> Callable[[], float]:
    """PostgreSQL: the CPU seconds this registry's server backends have used so far (each
    connection's pid, read as the pool opens it; /proc/<pid>/schedstat, in ns), so the
    apply's figure counts the server's work, not only the client's. Nothing elsewhere."""
    if reg.store.dialect != "postgresql":
        return lambda: 0.0
    pids: set[int] = set()

    def opened(dbapi_conn: Any, _record: Any) -> None:
        with dbapi_conn.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            pids.add(cur.fetchone()[0])

    event.listen(reg.store.engine, "connect", opened)
    reg.store.engine.pool.dispose()  # (every connection from now on is one that was seen)

    def used() -> float:
        total = 0
        for pid in list(pids):
            try:
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
            except (OSError, ValueError):
                pids.discard(pid)  # (a closed connection's time is lost: rare, counted 0)
        return total / 1e9

    return used


def applies(reg: Registry, label: str) -> bool:
    """Alternating batches of one-line adjustments, with the journal and without: the
    medians of wall time (what the target says), of this process's CPU time and, on
    PostgreSQL, of that plus the server backends' (the machine may be shared: CPU time is
    what another process's load disturbs least)."""
    reg.invoke("create_location", {"code": "APPLY", "name": "Apply", "preview": False}, ADMIN)
    posting = reg.finishers
    server = _backends(reg)

    def batch(n: int) -> tuple[float, float, float]:
        start, cpu, srv = time.perf_counter(), time.process_time(), server()
        for _ in range(n):
            reg.invoke("create_stock_adjustment", {
                "location": "APPLY", "reason": "bench", "preview": False,
                "lines": [{"sku": "V00001", "quantity_delta": "1", "unit_cost": "2"}]}, ADMIN)
        took = time.process_time() - cpu
        return ((time.perf_counter() - start) / n, took / n, (took + server() - srv) / n)

    batch(20)  # warm
    with_journal: list[tuple[float, float, float]] = []
    without: list[tuple[float, float, float]] = []
    for _ in range(ROUNDS):
        reg.finishers = posting
        with_journal.append(batch(APPLIES // 8))
        reg.finishers = ()
        without.append(batch(APPLIES // 8))
    reg.finishers = posting
    on, off = (statistics.median(r[0] for r in runs) for runs in (with_journal, without))
    cost = on / off - 1
    print(f"journal[{label}] one-line apply: {1 / on:.0f}/s with the journal, {1 / off:.0f}/s "
          f"without ({on * 1e3:.2f} vs {off * 1e3:.2f} ms): the journal costs "
          f"{cost * 100:.1f}% (target at most 10%: {'met' if cost <= 0.10 else 'MISSED'})",
          flush=True)
    for i, what in ((1, "CPU (this process)"), (2, "CPU (this process and the server's)")):
        if i == 2 and reg.store.dialect != "postgresql":
            continue
        c_on, c_off = (statistics.median(r[i] for r in runs) for runs in (with_journal,
                                                                           without))
        print(f"journal[{label}] one-line apply, {what}: {c_on * 1e3:.3f} vs "
              f"{c_off * 1e3:.3f} ms: the journal costs {(c_on / c_off - 1) * 100:.1f}%",
              flush=True)
    return cost <= 0.10


@contextmanager
def sqlite_url() -> Iterator[str]:
    with valuation.sqlite_url() as url:
        yield url


def main() -> int:
    ok = True
    where: dict[str, Callable[[], Any]] = {"sqlite": sqlite_url, "postgresql": pg_schema}
    for label, make in where.items():
        if os.environ.get("BENCH_JOURNAL_ONLY", label) != label:
            continue
        with ExitStack() as stack:
            reg = open_registry(Settings(database_url=stack.enter_context(make())))
            stack.callback(reg.store.dispose)
            start = time.perf_counter()
            valuation.seed(reg)
            seed_journal(reg)
            print(f"journal[{label}] seeded {valuation.ROWS:,} ledger rows and "
                  f"{2 * valuation.ROWS:,} journal lines in "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            parts = os.environ.get("BENCH_JOURNAL_PARTS", "trial,export,apply").split(",")
            ok &= trial(reg, label) if "trial" in parts else True
            ok &= exported(reg, label) if "export" in parts else True
            ok &= applies(reg, label) if "apply" in parts else True
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
