"""One adapter per surface: `call(name, args) -> payload` (a result or an error payload).

The CLI in this process through its entry point (`shopfloor.surfaces.cli.main`, the
same code a console script runs, under click's CliRunner isolation) or as a subprocess,
HTTP against a real uvicorn server, MCP in-process, over stdio and
over streamable HTTP with the official SDK client. Each adapter acts as the same actor
("local", admin) unless told otherwise, so payloads can be compared whole.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

import httpx
from click.testing import CliRunner
from mcp import Client

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.mcp.surface import build_server, settings_actor
from tests.surfaces.mcp.clients import http_session, stdio_session

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


def cli_env(db_url: str, role: str) -> dict[str, str]:
    return {"SHOPFLOOR_DATABASE_URL": db_url, "SHOPFLOOR_LOCAL_ROLE": ROLES[role],
            "SHOPFLOOR_LOCAL_ACTOR": "local" if ROLES[role] else ""}


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def cli_in_process(argv: list[str], env: dict[str, str], stdin: str | None = None) -> Ran:
    """`shopfloor ARGV` run by the console script's own `main` in this process: exit
    status, stdout, stderr. A one-shot call turns the collector off (the process would
    exit next), so it is turned back on here."""
    from shopfloor.surfaces.cli import main

    collecting = gc.isenabled()
    saved = sys.argv
    with CliRunner().isolation(input=stdin, env=env) as (out, err, _):
        sys.argv = ["shopfloor", *argv]
        try:
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        finally:
            sys.stdout.flush()  # (as the process's exit would)
            sys.stderr.flush()
            sys.argv = saved
            if collecting:
                gc.enable()
        return Ran(status, out.getvalue().decode(), err.getvalue().decode())


def _cli_payload(status: int, stdout: str, stderr: str) -> dict[str, Any]:
    from shopfloor.surfaces.cli.quick import EXIT_CODES

    payload: dict[str, Any] = json.loads(stdout)
    want = EXIT_CODES.get(payload["error"]["code"], 1) if "error" in payload else 0
    assert status == want, stderr
    return payload


@asynccontextmanager
async def cli_surface(db_url: str, role: str) -> AsyncIterator[Call]:
    """The CLI's code in this process: the same parsing, rendering and exit statuses as
    the installed command, without an interpreter start a call."""
    env = cli_env(db_url, role)

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        return _cli_payload(*cli_in_process(
            ["--fmt", "json", "call", name, "--json", json.dumps(args)], env))

    yield call


@asynccontextmanager
async def cli_process_surface(db_url: str, role: str) -> AsyncIterator[Call]:
    """The CLI as a fresh process a call, as a script runs it."""
    env = {**os.environ, **cli_env(db_url, role)}

    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        out = subprocess.run(
            [sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json", "call", name,
             "--json", json.dumps(args)], capture_output=True, text=True, env=env, timeout=60)
        return _cli_payload(out.returncode, out.stdout, out.stderr)

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
