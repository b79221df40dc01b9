"""`make bench`: every benchmark, each printing its figures, its baseline and the ratio."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

SCRIPTS = ["cli_startup", "mcp_startup", "mcp_overhead", "apply_throughput", "ledger_scale",
           "read_latency", "memory", "mrp_scale", "mrp_suppliers", "lot_scale",
           "stock_valuation", "documents", "webhooks", "admin_pages", "floor_scheduling",
           "journal", "journal_then_now"]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gb() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GB"
    except OSError:
        pass
    return "unknown"


def _postgres_version() -> str:
    try:
        from sqlalchemy import create_engine, text

        url = os.environ.get("SHOPFLOOR_TEST_PG",
                             "postgresql+psycopg://postgres@127.0.0.1:5432/test")
        engine = create_engine(url, connect_args={"connect_timeout": 5})
        with engine.connect() as conn:
            version = str(conn.execute(text("SHOW server_version")).scalar_one())
        engine.dispose()
        return version
    except Exception as exc:  # the header must not stop the run
        return f"unreachable ({type(exc).__name__})"


def machine_header() -> str:
    """What the figures were measured on, printed before them."""
    import sqlite3

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cores = f"{os.cpu_count()} logical" + (f", {affinity} usable" if affinity else "")
    return "\n".join([
        "== machine",
        f"cpu: {_cpu_model()} ({cores})",
        f"ram: {_ram_gb()}",
        f"os: {platform.system()} {platform.release()}",
        f"python: {platform.python_implementation()} {platform.python_version()}",
        f"sqlite: {sqlite3.sqlite_version}",
        f"postgresql: {_postgres_version()}",
    ])


def main() -> int:
    here = Path(__file__).parent
    failed = 0
    print(machine_header(), flush=True)
    for name in SCRIPTS:
        print(f"== {name}", flush=True)
        failed += subprocess.run([sys.executable, str(here / f"{name}.py")]).returncode != 0
    return failed


if __name__ == "__main__":
    sys.exit(main())
