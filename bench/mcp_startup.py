"""Spawn -> tools/list answered for `shopfloor mcp`, against the SDK echo server; and the
bytes of tools/list per tool (the context an agent pays on every turn).

Prints absolute medians and the ratio; the baseline runs in the same process, same
machine, so a noisy machine moves both.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).parent
RUNS = int(os.environ.get("BENCH_RUNS", "10"))


async def spawn_to_list(command: list[str], env: dict[str, str]) -> tuple[float, bytes, int]:
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        elapsed = time.perf_counter() - start
    wire = json.dumps(listed.model_dump(by_alias=True, mode="json", exclude_none=True)).encode()
    return elapsed, wire, len(listed.tools)


def median_of(command: list[str], env: dict[str, str]) -> tuple[float, bytes, int]:
    times, wire, count = [], b"", 0
    for _ in range(RUNS):
        t, wire, count = anyio.run(spawn_to_list, command, env)
        times.append(t)
    return statistics.median(times), wire, count


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SHOPFLOOR_DATABASE_URL": f"sqlite:///{tmp}/bench.db"}
        os.system(f"{sys.executable} -m shopfloor.surfaces.cli --db sqlite:///{tmp}/bench.db "
                  "init 2>/dev/null")
        ours, wire, count = median_of([sys.executable, "-m", "shopfloor.surfaces.cli", "mcp"], env)
        echo, _, _ = median_of([sys.executable, str(HERE / "echo_server.py")], env)
    print(f"cold_start  shopfloor mcp spawn->tools/list median of {RUNS}: {ours * 1000:.0f} ms")
    print(f"cold_start  SDK low-level echo server (baseline):        {echo * 1000:.0f} ms")
    print(f"cold_start  ratio {ours / echo:.2f}  (target <= 1.30)")
    print(f"context_bytes  tools/list {len(wire)} bytes for {count} tools = "
          f"{len(wire) / count:.0f} bytes/tool (target <= 1000; best-known peer ~4090)")


if __name__ == "__main__":
    main()
