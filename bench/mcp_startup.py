"""Spawn -> tools/list answered for `shopfloor mcp`, and -> its first tools/call
(`get_item` on the demo company's first item), against the SDK echo server; and the bytes
of tools/list for `default`, each toolset and `all` (the context an agent pays on every
turn).

Runs alternate (ours, echo, ours, echo...) so drift on a shared machine hits both; prints
the medians and their ratio. The server is the installed `shopfloor` console script, as
an MCP host spawns it. The bytes are those of the JSON-RPC response line the server
writes (compact JSON, as on the wire), not a re-serialisation by the client; a second
line splits them by part (schemas, description, annotations...) to show where they go.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).parent
RUNS = int(os.environ.get("BENCH_RUNS", "10"))
SHOPFLOOR = str(Path(sys.executable).with_name("shopfloor"))


async def spawn_to_list(command: list[str], env: dict[str, str],
                        call: tuple[str, dict[str, Any]]) -> tuple[float, float]:
    """Seconds from spawn to tools/list answered, and to the first tools/call answered."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        to_list = time.perf_counter() - start
        result = await session.call_tool(*call)
        to_call = time.perf_counter() - start
    assert listed.tools and not result.is_error
    return to_list, to_call


def wire_bytes(command: list[str], env: dict[str, str], toolsets: str = "all"
               ) -> tuple[int, list[dict[str, Any]]]:
    """The size of the tools/list response line as written by the server, and its tools."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with subprocess.Popen(command, env={**env, "SHOPFLOOR_TOOLSETS": toolsets},
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        proc.stdin.flush()
        for line in proc.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                proc.stdin.close()
                proc.wait(10)
                return len(line.rstrip(b"\n")), reply["result"]["tools"]
    raise RuntimeError("no tools/list reply")


def parts(tools: list[dict[str, Any]]) -> str:
    """Where the bytes go: each member of a listed tool, summed over the catalogue, per
    tool (its key, quotes and separators included)."""
    sizes: dict[str, int] = {}
    for t in tools:
        for key, value in t.items():
            size = len(json.dumps({key: value}, separators=(",", ":"), ensure_ascii=False)) - 1
            sizes[key] = sizes.get(key, 0) + size
    return ", ".join(f"{k} {v / len(tools):.0f}"
                     for k, v in sorted(sizes.items(), key=lambda kv: -kv[1]))


def catalogue() -> list[dict[str, Any]]:
    from shopfloor.app.described import cached_catalogue

    return cached_catalogue()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(SHOPFLOOR_DATABASE_URL=url, SHOPFLOOR_CACHE_DIR=f"{tmp}/cache")
        for args in (["init"], ["demo"]):
            subprocess.run([SHOPFLOOR, *args], check=True, env=env, capture_output=True)
        found = subprocess.run([SHOPFLOOR, "--fmt", "json", "call", "search_items", "--json",
                                '{"limit": 1}'], env=env, check=True, capture_output=True)
        sku = json.loads(found.stdout)["items"][0]["sku"]
        commands = {"ours": [SHOPFLOOR, "mcp"],
                    "echo": [sys.executable, str(HERE / "echo_server.py")]}
        calls = {"ours": ("get_item", {"sku": sku}), "echo": ("echo", {"text": "hi"})}
        for name, command in commands.items():  # the catalogue's cache, bytecode: warm
            anyio.run(spawn_to_list, command, env, calls[name])
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(RUNS):
            for name, command in commands.items():
                times[name].append(anyio.run(spawn_to_list, command, env, calls[name]))
        size, tools = wire_bytes(commands["ours"], env)
        sizes = {name: wire_bytes(commands["ours"], env, name)
                 for name in ("default", *dict.fromkeys(t["toolset"] for t in catalogue()))}
    count = len(tools)
    ours, echo = (statistics.median(t for t, _ in times[n]) for n in ("ours", "echo"))
    ours_call, echo_call = (statistics.median(c for _, c in times[n]) for n in ("ours", "echo"))
    print(f"cold_start  shopfloor mcp spawn->tools/list median of {RUNS}: {ours * 1000:.0f} ms")
    print(f"cold_start  SDK low-level echo server (baseline):        {echo * 1000:.0f} ms")
    print(f"cold_start  ratio {ours / echo:.2f}  (target <= 1.15)")
    print(f"cold_start  spawn->first tools/call (get_item): {ours_call * 1000:.0f} ms vs echo "
          f"{echo_call * 1000:.0f} ms, ratio {ours_call / echo_call:.2f}  (target <= 1.5)")
    print(f"context_bytes  tools/list all: {size} bytes on the wire for {count} tools = "
          f"{size / count:.0f} bytes/tool (target <= 1000; best-known peer ~4090)")
    default, listed = sizes.pop("default")
    print(f"context_bytes  tools/list default: {default} bytes, {len(listed)} tools "
          f"(target <= 30000)")
    print("context_bytes  by toolset (with discovery's 3): " + ", ".join(
        f"{name} {b} ({len(ts)})" for name, (b, ts) in sizes.items()))
    print(f"context_bytes  per tool by part: {parts(tools)}")


if __name__ == "__main__":
    main()
