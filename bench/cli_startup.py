"""A script's CLI call, from spawn to exit: wall time and peak RSS of `shopfloor call
get_item` and `shopfloor tools list`, against `python -c pass` and against the floor any
call pays, `python -c "import sqlalchemy.orm, pydantic"`.

Runs alternate (pass, floor, call, list, pass, ...) so drift on a shared machine hits all
of them; medians and ratios come from the same run. Bytecode caching is on, as users
have it (PYTHONDONTWRITEBYTECODE is removed from the children's environment), and the
catalogue's description is cached first, as after any earlier start.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(os.environ.get("BENCH_RUNS", "10"))
SHOPFLOOR = str(Path(sys.executable).with_name("shopfloor"))
TARGETS = {"call": 1.6, "list": 1.5}
RSS_TARGET_MB = 80


def timed(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, float]:
    """Seconds from spawn to exit, the process's peak RSS in MB, and its CPU seconds (user
    and system: what a loaded machine stretches least)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} exited {proc.returncode}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(SHOPFLOOR_DATABASE_URL=f"sqlite:///{tmp}/bench.db",
                   SHOPFLOOR_CACHE_DIR=f"{tmp}/cache")
        for args in (["init"], ["demo"], ["tools", "list"]):
            subprocess.run([SHOPFLOOR, *args], env=env, cwd=tmp, check=True,
                           capture_output=True)
        commands = {
            "pass": [sys.executable, "-c", "pass"],
            "floor": [sys.executable, "-c", "import sqlalchemy.orm, pydantic"],
            "call": [SHOPFLOOR, "call", "get_item", "--arg", "sku=OAK-BOARD-25"],
            "list": [SHOPFLOOR, "tools", "list"],
        }
        for command in commands.values():  # warm the bytecode and the page cache
            timed(command, env, tmp)
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for _ in range(RUNS):
            for name, command in commands.items():
                runs[name].append(timed(command, env, tmp))
    wall = {n: statistics.median(t for t, _, _ in r) for n, r in runs.items()}
    rss = {n: max(m for _, m, _ in r) for n, r in runs.items()}
    cpu = {n: statistics.median(c for _, _, c in r) for n, r in runs.items()}
    load = os.getloadavg()[0]
    for name in ("pass", "floor"):
        print(f"cli_startup  python {name:5} median of {RUNS}: {wall[name] * 1000:.0f} ms, "
              f"peak RSS {rss[name]:.0f} MB")
    for name, label in (("call", "call get_item"), ("list", "tools list")):
        print(f"cli_startup  shopfloor {label}: {wall[name] * 1000:.0f} ms = "
              f"{wall[name] / wall['floor']:.2f}x the floor (target <= {TARGETS[name]}), "
              f"{wall[name] / wall['pass']:.1f}x python -c pass; peak RSS {rss[name]:.0f} MB "
              f"(target <= {RSS_TARGET_MB}); CPU {cpu[name] * 1000:.0f} ms = "
              f"{cpu[name] / cpu['floor']:.2f}x the floor's {cpu['floor'] * 1000:.0f} ms "
              f"(load average {load:.1f})")


if __name__ == "__main__":
    main()
