"""Calls per second of `get_item` over stdio and streamable HTTP, against an echo tool on
the SDK's low-level server over the same transport (the transport dominates; this shows
what our registry, validation and database add on top)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
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


async def rate(session: ClientSession, name: str, args: dict[str, Any]) -> float:
    await session.call_tool(name, args)
    start = time.perf_counter()
    for _ in range(N):
        result = await session.call_tool(name, args)
        assert not result.is_error
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        settings = Settings(database_url=url)
        reg = open_registry(settings)
        actor = Actor.of("bench", "admin")
        reg.invoke("create_item", {"sku": "B1", "name": "Bench", "preview": False}, actor)
        env = {**os.environ, "SHOPFLOOR_DATABASE_URL": url}
        ours = anyio.run(over_stdio, [sys.executable, "-m", "shopfloor.surfaces.cli", "mcp"],
                         env, "get_item", {"sku": "B1"})
        echo = anyio.run(over_stdio, [sys.executable, str(Path(echo_server.__file__))], env,
                         "echo", {"text": "B1"})
        print(f"mcp_overhead[stdio]  get_item {ours:.0f}/s  echo {echo:.0f}/s  "
              f"ratio {ours / echo:.2f}  (target >= 0.7)")
        token = Authenticator(reg, settings).mint("bench", ["admin"], 600)
        with serving(build_app(reg, settings)) as base:
            ours = anyio.run(over_http, base, token, "get_item", {"sku": "B1"})
        echo_app = echo_server.server().streamable_http_app(stateless_http=True)
        with serving(echo_app) as base:
            echo = anyio.run(over_http, base, token, "echo", {"text": "B1"})
        print(f"mcp_overhead[http]   get_item {ours:.0f}/s  echo {echo:.0f}/s  "
              f"ratio {ours / echo:.2f}  (target >= 0.8)")


if __name__ == "__main__":
    main()
