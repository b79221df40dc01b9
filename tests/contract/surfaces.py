"""One adapter per surface: `call(name, args) -> payload` (a result or an error payload).

CLI as a subprocess, HTTP against a real uvicorn server, MCP in-process, over stdio and
over streamable HTTP with the official SDK client. Each adapter acts as the same actor
("local", admin) unless told otherwise, so payloads can be compared whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from mcp import Client

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.mcp.surface import build_server, settings_actor
from tests.mcp.clients import http_session, stdio_session

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
ROLES = {"admin": "admin", "viewer": "viewer", "anonymous": ""}


def _mcp_payload(result: Any) -> dict[str, Any]:
    payload: dict[str, Any] = result.structured_content
    return payload


@asynccontextmanager
async def registry_surface(reg: Registry, role: str) -> AsyncIterator[Call]:
    from shopfloor.app.wiring import local_actor
    from shopfloor.kernel.errors import ShopfloorError

    settings = Settings(local_role=ROLES[role], local_actor="local" if ROLES[role] else "")

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        try:
            return reg.invoke(name, args, local_actor(settings))
        except ShopfloorError as exc:
            return exc.to_payload()

    yield call


@asynccontextmanager
async def cli_surface(db_url: str, role: str) -> AsyncIterator[Call]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url, "SHOPFLOOR_LOCAL_ROLE": ROLES[role],
           "SHOPFLOOR_LOCAL_ACTOR": "local" if ROLES[role] else ""}

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        out = subprocess.run(
            [sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json", "call", name,
             "--json", json.dumps(args)], capture_output=True, text=True, env=env, timeout=60)
        payload: dict[str, Any] = json.loads(out.stdout)
        assert (out.returncode == 0) == ("error" not in payload), out.stderr
        return payload

    yield call


@asynccontextmanager
async def http_surface(url: str, auth: Authenticator, role: str) -> AsyncIterator[Call]:
    headers = {"Authorization": f"Bearer {auth.mint('local', [role], 600)}"} \
        if ROLES[role] else {}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            r = await client.post(f"/api/v1/tools/{name}", json=args)
            payload: dict[str, Any] = r.json()
            assert (r.status_code == 200) == ("error" not in payload)
            return payload

        yield call


@asynccontextmanager
async def mcp_memory_surface(reg: Registry, role: str) -> AsyncIterator[Call]:
    settings = Settings(local_role=ROLES[role], local_actor="local" if ROLES[role] else "")
    async with Client(build_server(reg, settings_actor(settings))) as client:
        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _mcp_payload(await client.call_tool(name, args))

        yield call


@asynccontextmanager
async def mcp_stdio_surface(db_url: str, role: str) -> AsyncIterator[Call]:
    env = {"SHOPFLOOR_LOCAL_ROLE": ROLES[role], "SHOPFLOOR_LOCAL_ACTOR":
           "local" if ROLES[role] else ""}
    async with stdio_session(db_url, **env) as session:
        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _mcp_payload(await session.call_tool(name, args))

        yield call


@asynccontextmanager
async def mcp_http_surface(url: str, auth: Authenticator, role: str) -> AsyncIterator[Call]:
    if not ROLES[role]:
        # The SDK client cannot connect without a token: ask /mcp directly, as it would.
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            async def refused(name: str, args: dict[str, Any]) -> dict[str, Any]:
                r = await client.post("/mcp", json={
                    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": args}},
                    headers={"Accept": "application/json, text/event-stream"})
                assert r.status_code == 401
                payload: dict[str, Any] = r.json()
                return payload

            yield refused
        return
    async with http_session(url, auth.mint("local", [role], 600)) as session:
        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _mcp_payload(await session.call_tool(name, args))

        yield call
