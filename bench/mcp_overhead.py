"""Calls per second of `get_item` over stdio and streamable HTTP, against an echo tool on
the SDK's low-level server over the same transport (the transport dominates; this shows
what our registry, validation and database add on top).

Each client lists the tools first, as a host does (so the SDK client checks our
structured content against the output schema, as a host's would). Runs alternate
(ours, echo, ours, echo...) so drift on a shared machine hits both; the figure is the
median of BENCH_ROUNDS runs of BENCH_CALLS calls each. Over stdio the server is the
installed `shopfloor` console script, as an MCP host spawns it.
"""

from __future__ import annotations

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
from shopfloor.app import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.mcp.clients import http_session
from tests.servers import serving

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


async def over_http(url: str, token: str, name: str, args: dict[str, Any]) -> float:
    async with http_session(url, token) as s:
        return await rate(s, name, args)


def alternate(ours: Callable[[], float], echo: Callable[[], float]) -> tuple[float, float]:
    runs: dict[str, list[float]] = {"ours": [], "echo": []}
    for _ in range(ROUNDS):
        runs["ours"].append(ours())
        runs["echo"].append(echo())
    return statistics.median(runs["ours"]), statistics.median(runs["echo"])


def report(transport: str, ours: float, echo: float, target: float) -> None:
    print(f"mcp_overhead[{transport}]{' ' * (6 - len(transport))}get_item {ours:.0f}/s  "
          f"echo {echo:.0f}/s  ratio {ours / echo:.2f}  (target >= {target})", flush=True)


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
            lambda: anyio.run(over_stdio, echo_cmd, env, *ECHO)), 0.6)
        token = Authenticator(reg, settings).mint("bench", ["admin"], 600)
        echo_app = echo_server.server().streamable_http_app(stateless_http=True)
        with serving(build_app(reg, settings)) as ours_url, serving(echo_app) as echo_url:
            report("http", *alternate(
                lambda: anyio.run(over_http, ours_url, token, *GET_ITEM),
                lambda: anyio.run(over_http, echo_url, token, *ECHO)), 0.8)
        reg.store.dispose()


if __name__ == "__main__":
    main()
