"""Calls per second of `get_item` over stdio and streamable HTTP, against an echo tool on
the SDK's low-level server over the same transport (the transport dominates; this shows
what our registry, validation and database add on top).

Over stdio, two clients: the SDK's own, and a plain one that writes one JSON-RPC line to
the server's stdin and reads one line back from its stdout (after initialize and
tools/list), as a host written in another language does: the SDK client's own CPU
(pydantic models, checking the result against the output schema) shares the two cores
with the server, and the plain client shows the servers nearly alone. With the plain
client the bench also reads each server's own CPU time over the calls (/proc/PID/stat,
where there is one): CPU per call swings far less than calls per second on a machine
that is busy with other work, so its ratio (echo's CPU per call over ours) is the
steadier figure.

Each client lists the tools first, as a host does (so the SDK client checks our
structured content against the output schema, as a host's would). Runs alternate
(ours, echo, ours, echo...) so drift on a shared machine hits both; the figure is the
median of BENCH_ROUNDS runs of BENCH_CALLS calls each. Over stdio the server is the
installed `shopfloor` console script, as an MCP host spawns it; over HTTP it is
`shopfloor serve` in its own process, as deployed, and the echo server runs under uvicorn
in its own process the same way (a server in a thread of the client's process shares its
interpreter lock with the client, which made the HTTP figure swing by a fifth between
runs).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench import echo_server
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.auth import Authenticator
from tests.servers import free_port, serving_process
from tests.surfaces.mcp.clients import http_session

N = int(os.environ.get("BENCH_CALLS", "500"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SHOPFLOOR = str(Path(sys.executable).with_name("shopfloor"))
GET_ITEM = ("get_item", {"sku": "B1"})
ECHO = ("echo", {"text": "B1"})


async def rate(session: ClientSession, name: str, args: dict[str, Any]) -> float:
    await session.list_tools()
    await session.call_tool(name, args)
    start = time.perf_counter()
    for _ in range(N):
        result = await session.call_tool(name, args)
        assert not result.is_error, result
    return N / (time.perf_counter() - start)


async def over_stdio(cmd: list[str], env: dict[str, str], name: str,
                     args: dict[str, Any]) -> float:
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        return await rate(s, name, args)


def cpu_seconds(pid: int) -> float | None:
    """A process's user and system CPU time so far (its threads included), or None
    where /proc is not there."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CPU_PER_CALL: dict[str, list[float]] = {"ours": [], "echo": []}
"""The plain client's runs: the server's CPU seconds per call, by server."""


def plain_stdio(cmd: list[str], env: dict[str, str], name: str, args: dict[str, Any]) -> float:
    """Newline-delimited JSON-RPC over the process's pipes, one call at a time; every
    answer is parsed and checked, as the SDK client does. The server's CPU per call goes
    to CPU_PER_CALL."""
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    send, recv = proc.stdin, proc.stdout

    def ask(i: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        send.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                               "params": params}).encode() + b"\n")
        send.flush()
        while True:
            answer: dict[str, Any] = json.loads(recv.readline())
            if answer.get("id") == i:  # (a notification may come first)
                assert "error" not in answer, answer
                return answer

    try:
        ask(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}})
        send.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        ask(1, "tools/list", {})
        call = {"name": name, "arguments": args}
        for i in range(2, 22):  # warm: the registry opens on the first call
            ask(i, "tools/call", call)
        cpu, start = cpu_seconds(proc.pid), time.perf_counter()
        for i in range(22, 22 + N):
            result = ask(i, "tools/call", call)["result"]
            assert not result.get("isError"), result
        rate = N / (time.perf_counter() - start)
        cpu_after = cpu_seconds(proc.pid)
        if cpu is not None and cpu_after is not None:
            CPU_PER_CALL["echo" if name == ECHO[0] else "ours"].append((cpu_after - cpu) / N)
        return rate
    finally:
        send.close()
        proc.wait(10)


async def over_http(url: str, token: str, name: str, args: dict[str, Any]) -> float:
    async with http_session(url, token) as s:
        return await rate(s, name, args)


def alternate(ours: Callable[[], float], echo: Callable[[], float]) -> tuple[float, float]:
    runs: dict[str, list[float]] = {"ours": [], "echo": []}
    for _ in range(ROUNDS):
        runs["ours"].append(ours())
        runs["echo"].append(echo())
    return statistics.median(runs["ours"]), statistics.median(runs["echo"])


def report(transport: str, ours: float, echo: float, target: float | None) -> None:
    aim = f"  (target >= {target})" if target is not None else "  (for information)"
    print(f"mcp_overhead[{transport}]{' ' * max(0, 6 - len(transport))} get_item {ours:.0f}/s  "
          f"echo {echo:.0f}/s  ratio {ours / echo:.2f}{aim}", flush=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        env = {**os.environ, "SHOPFLOOR_DATABASE_URL": url}
        subprocess.run([SHOPFLOOR, "--db", url, "init"], check=True, env=env,
                       stderr=subprocess.DEVNULL)
        settings = Settings(database_url=url)
        reg = open_registry(settings)
        reg.invoke("create_item", {"sku": "B1", "name": "Bench", "preview": False},
                   Actor.of("bench", "admin"))
        echo_cmd = [sys.executable, str(Path(echo_server.__file__))]
        report("stdio", *alternate(
            lambda: anyio.run(over_stdio, [SHOPFLOOR, "mcp"], env, *GET_ITEM),
            lambda: anyio.run(over_stdio, echo_cmd, env, *ECHO)), 0.7)
        report("stdio, plain client", *alternate(
            lambda: plain_stdio([SHOPFLOOR, "mcp"], env, *GET_ITEM),
            lambda: plain_stdio(echo_cmd, env, *ECHO)), 0.7)
        if CPU_PER_CALL["ours"] and CPU_PER_CALL["echo"]:
            ours, echo = (statistics.median(CPU_PER_CALL[k]) for k in ("ours", "echo"))
            print(f"mcp_overhead[stdio, server CPU] get_item {ours * 1e6:.0f} us/call  "
                  f"echo {echo * 1e6:.0f} us/call  ratio {echo / ours:.2f}  "
                  "(echo's CPU per call over ours; target >= 0.7)", flush=True)
        if sys.argv[1:] == ["stdio"]:  # `python bench/mcp_overhead.py stdio`: stdio only
            reg.store.dispose()
            return
        token = Authenticator(reg, settings).mint("bench", ["admin"], 600)
        ports = free_port(), free_port(), free_port()
        ours_url, sse_url, json_url = (f"http://127.0.0.1:{p}" for p in ports)
        with serving_process([SHOPFLOOR, "serve", "--port", str(ports[0])], env, ports[0]), \
                serving_process([*echo_cmd, "http", str(ports[1])], env, ports[1]), \
                serving_process([*echo_cmd, "http", str(ports[2]), "json"], env, ports[2]):
            report("http", *alternate(
                lambda: anyio.run(over_http, ours_url, token, *GET_ITEM),
                lambda: anyio.run(over_http, sse_url, token, *ECHO)), 1.0)
            # Shopfloor answers JSON where nothing streams; the SDK's default is an SSE
            # event per answer. Against an echo server answering JSON too, the ratio shows
            # what the registry, auth and database add at the same transport cost.
            report("http, both JSON", *alternate(
                lambda: anyio.run(over_http, ours_url, token, *GET_ITEM),
                lambda: anyio.run(over_http, json_url, token, *ECHO)), None)
        reg.store.dispose()


if __name__ == "__main__":
    main()
