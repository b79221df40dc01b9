"""Hostile strings on every surface: refused with a coded error naming the field, or
stored and returned exactly; shown safely; and the server keeps answering.

Each surface (REST, MCP over streamable HTTP, MCP over stdio, the CLI) sends every
hostile string as an item's `name` (create_item) and as an adjustment's `reason`
(create_stock_adjustment), on SQLite and PostgreSQL. An applied write must return the
string exactly, and reading it back through the same surface (get_item / search_items,
get_operation_log) must return it exactly too. What people read (the CLI's text and
Markdown, the MCP text content) must not carry a raw control character, a bidi
override or live markup.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN
from tests.servers import serving
from tests.surfaces.mcp.clients import http_session, stdio_session

HOSTILE = {
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(1)>",
    "sql": "' OR 1=1; DROP TABLE items; --",
    "esc": "x\x1b]0;pwned\x07\x1b[2J",
    "c1-csi": "red\x9b31m",
    "bidi": "\u202eexe.txt",
    "nul": "a\x00b",
    "surrogate": "\ud800",
    "unicode": "名前 ✓ 🚀",
    "1MB": "X" * 1_000_000,
}
# What a terminal or a chat window would act on rather than show.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# Bugs outside this file, found by it (see the report): (database, field, string id).

Reply = tuple[dict[str, Any], str | None]  # the payload, and the text people would read
Call = Callable[[str, dict[str, Any]], Awaitable[Reply]]


def _kind(db_url: str) -> str:
    return "sqlite" if db_url.startswith("sqlite") else "postgresql"


# -- surfaces ---------------------------------------------------------------------------
@asynccontextmanager
async def rest(reg: Registry, conf: Settings) -> AsyncIterator[Call]:
    token = Authenticator(reg, conf).mint("local", ["admin"], 600)
    with serving(build_app(reg, conf)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60,
                                     headers={"Authorization": f"Bearer {token}"}) as client:
            async def call(name: str, args: dict[str, Any]) -> Reply:
                # ASCII JSON, so a lone surrogate travels as its escape (httpx's json= can't)
                r = await client.post(f"/api/v1/tools/{name}", content=json.dumps(args),
                                      headers={"Content-Type": "application/json"})
                assert r.headers["content-type"] == "application/json", r.headers
                payload: dict[str, Any] = r.json()  # a 500 is a coded `internal` error too
                assert (r.status_code == 200) == ("error" not in payload)
                return payload, None

            yield call


def _mcp_call(session: Any) -> Call:
    async def call(name: str, args: dict[str, Any]) -> Reply:
        result = await session.call_tool(name, args)
        payload: dict[str, Any] = result.structured_content
        assert result.is_error == ("error" in payload)
        return payload, result.content[0].text

    return call


@asynccontextmanager
async def mcp_http(reg: Registry, conf: Settings) -> AsyncIterator[Call]:
    token = Authenticator(reg, conf).mint("local", ["admin"], 600)
    with serving(build_app(reg, conf)) as url:
        async with http_session(url, token) as session:
            yield _mcp_call(session)


@asynccontextmanager
async def mcp_stdio(reg: Registry, conf: Settings) -> AsyncIterator[Call]:
    async with stdio_session(conf.database_url) as session:
        yield _mcp_call(session)


def cli_run(db_url: str, *args: str, stdin: bytes = b"", fmt: str = "json"
            ) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url}
    return subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", fmt,
                           *args], input=stdin, capture_output=True, env=env, timeout=120)


@asynccontextmanager
async def cli(reg: Registry, conf: Settings) -> AsyncIterator[Call]:
    async def call(name: str, args: dict[str, Any]) -> Reply:
        # Arguments on stdin (`--json -`): a 1 MB argv entry is over Linux's limit.
        out = cli_run(conf.database_url, "call", name, "--json", "-",
                      stdin=json.dumps(args).encode())
        assert b"Traceback" not in out.stderr or b"error[internal]" in out.stderr, \
            out.stderr[-2000:]
        payload: dict[str, Any] = json.loads(out.stdout)
        assert (out.returncode == 0) == ("error" not in payload), out.stderr[-500:]
        return payload, None

    yield call


FIELDS = ("name", "reason")  # an item's name, an adjustment's reason: the two written
SURFACES = {"rest": rest, "mcp_http": mcp_http, "mcp_stdio": mcp_stdio, "cli": cli}
# The SDK's JSON layer cannot carry a lone surrogate (see test_mcp_refuses_*).
CARRIES_SURROGATES = {"rest", "cli"}


# -- the cases --------------------------------------------------------------------------
def _write(field: str, key: str, value: str) -> tuple[str, dict[str, Any]]:
    if field == "name":
        return "create_item", {"sku": f"H-{key}", "name": value, "kind": "material",
                               "preview": False}
    return "create_stock_adjustment", {"location": "MAIN", "reason": value, "preview": False,
                                       "lines": [{"sku": "M1", "quantity_delta": "1"}]}


async def _write_one(call: Call, field: str, key: str, value: str
                     ) -> tuple[str | None, str | None]:
    """Send `value` as `field`: (a problem or None, the operation id if it was applied)."""
    tool, args = _write(field, key, value)
    payload, text = await call(tool, args)
    if text is not None and UNSAFE.search(text):
        return f"raw control characters in the text shown: {text[:120]!r}", None
    if "error" in payload:
        err = payload["error"]
        if (err["code"], err["field"]) != ("validation_error", field):
            return (f"refused with {err['code']} on field {err['field']}: "
                    f"{err['message'][:200]}"), None
        return None, None
    if payload.get(field) != value:
        return f"applied, but returned {str(payload.get(field))[:80]!r}", None
    return None, str(payload["operation_id"])


async def _run_surface(surface: str, reg: Registry, conf: Settings,
                       fields: tuple[str, ...] = FIELDS) -> dict[tuple[str, str], str]:
    problems: dict[tuple[str, str], str] = {}
    applied: dict[tuple[str, str], str] = {}
    async with SURFACES[surface](reg, conf) as call:
        for field in fields:
            for key, value in HOSTILE.items():
                if key == "surrogate" and surface not in CARRIES_SURROGATES:
                    continue
                problem, operation = await _write_one(call, field, key, value)
                if problem:
                    problems[(field, key)] = problem
                elif operation:
                    applied[(field, key)] = operation
        # Read everything back through the same surface: exactly what was sent, or absent.
        items, text = await call("search_items", {"query": "H-", "limit": 100})
        names = {i["sku"]: i["name"] for i in items["items"]}
        log, log_text = await call("get_operation_log", {"tool": "create_stock_adjustment",
                                                         "limit": 100})
        reasons = {e["operation_id"]: e["arguments"]["reason"] for e in log["entries"]}
        for shown in (text, log_text):
            if shown is not None and UNSAFE.search(shown):
                problems[("display", "read")] = f"raw control characters: {shown[:200]!r}"
        for key, value in HOSTILE.items():
            if ("name", key) in applied and names.get(f"H-{key}") != value:
                problems[("name", key)] = "read back differently"
            if ("name", key) not in applied and f"H-{key}" in names:
                problems[("name", key)] = "refused, yet an item was stored"
            operation = applied.get(("reason", key))
            if operation and reasons.get(operation) != value:
                problems[("reason", key)] = "the operation log does not hold the reason exactly"
        if len(reasons) != sum(f == "reason" for f, _ in applied):
            problems[("reason", "log")] = "the operation log holds other adjustments"
        alive, _ = await call("get_stock", {"sku": "M1"})
        assert "balances" in alive, f"{surface} stopped answering: {alive}"
    return problems


def _check(db_url: str, surface: str, fields: tuple[str, ...] = FIELDS) -> None:
    conf = Settings(database_url=db_url)
    reg = open_registry(conf)
    Given(reg).company()
    try:
        problems = asyncio.run(_run_surface(surface, reg, conf, fields))
    finally:
        reg.store.dispose()
    assert not problems, json.dumps({f"{f}/{k}": v for (f, k), v in problems.items()},
                                    indent=1, ensure_ascii=True)


@pytest.mark.parametrize("surface", ["rest", "mcp_http", "mcp_stdio"])
def test_hostile_strings_are_refused_or_kept_exactly(db_url: str, surface: str) -> None:
    _check(db_url, surface)


@pytest.mark.parametrize("field", FIELDS)
def test_hostile_strings_through_the_cli(sqlite_url: str, field: str) -> None:
    """The CLI spawns a process per call: SQLite here, both databases under `-m long`
    (the storage path on PostgreSQL is the one REST and MCP cover above); a field at a
    time, so that two workers share its processes."""
    _check(sqlite_url, "cli", (field,))


@pytest.mark.long
def test_hostile_strings_through_the_cli_long(db_url: str) -> None:
    _check(db_url, "cli")


# -- the CLI: bytes that are not UTF-8, and what a terminal is shown ----------------------
@pytest.mark.parametrize("field", ["name", "reason"])
def test_cli_refuses_non_utf8_stdin(sqlite_url: str, field: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    tool, args = _write(field, "bytes", "PLACEHOLDER")
    before = reg.invoke("get_operation_log", {"tool": tool}, ADMIN)["entries"]
    raw = json.dumps(args).encode().replace(b"PLACEHOLDER", b"bad \xff\xfe\xc3 bytes")
    out = cli_run(sqlite_url, "call", tool, "--json", "-", stdin=raw)
    assert out.returncode == 2, out.stderr[-2000:]
    error = json.loads(out.stdout)["error"]
    assert (error["code"], error["field"]) == ("validation_error", field)
    assert b"Traceback" not in out.stderr
    assert reg.invoke("get_operation_log", {"tool": tool}, ADMIN)["entries"] == before
    reg.store.dispose()


def test_cli_text_and_markdown_show_stored_hostile_strings_inert(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    for key in ("script", "img", "c1-csi", "bidi", "unicode"):
        reg.invoke("create_item", {"sku": f"H-{key}", "name": HOSTILE[key], "kind": "material",
                                   "preview": False}, ADMIN)
    reg.store.dispose()
    text = cli_run(sqlite_url, "call", "search_items", "--arg", "query=H-", fmt="text")
    assert text.returncode == 0, text.stderr
    shown = text.stdout.decode()
    assert not UNSAFE.search(shown), shown
    assert "red\\x9b31m" in shown and "\\u202eexe.txt" in shown and "名前 ✓ 🚀" in shown
    md = cli_run(sqlite_url, "call", "search_items", "--arg", "query=H-", fmt="md")
    shown = md.stdout.decode()
    assert not UNSAFE.search(shown) and "<script" not in shown and "<img" not in shown, shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    # A reason with terminal escapes, applied and shown by the CLI's text view.
    args = json.dumps({"location": "MAIN", "reason": HOSTILE["esc"], "preview": False,
                       "lines": [{"sku": "M1", "quantity_delta": "1"}]}).encode()
    applied = cli_run(sqlite_url, "call", "create_stock_adjustment", "--json", "-", stdin=args,
                      fmt="text")
    assert applied.returncode == 0, applied.stderr
    shown = applied.stdout.decode()
    assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "reason: x\\x1b]0;pwned\\x07\\x1b[2J" in shown


# -- MCP transports: a lone surrogate cannot be carried; the session goes on --------------
def test_mcp_refuses_lone_surrogates_and_keeps_answering(sqlite_url: str) -> None:
    conf = Settings(database_url=sqlite_url)
    reg = open_registry(conf)
    Given(reg).company()
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "create_item", "arguments": {"sku": "S1", "name": "\ud800", "kind": "material",
                                             "preview": False}}}
    line = json.dumps(call).encode()  # ASCII: the surrogate travels as the escape \ud800
    assert b"\\ud800" in line
    from tests.system.test_abuse import spawn_stdio

    proc = spawn_stdio(sqlite_url)
    try:
        from tests.system.test_abuse import _init_stdio, _stdio_exchange

        _init_stdio(proc)
        replies = _stdio_exchange(proc, line, 6)
        assert [(m.get("id"), m.get("error", {}).get("code")) for m in replies] in (
            [(None, -32700)], [(5, -32602)]), replies
    finally:
        proc.kill()
        proc.wait(10)
    token = Authenticator(reg, conf).mint("local", ["admin"], 600)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    with serving(build_app(reg, conf)) as url:
        r = httpx.post(f"{url}/mcp", content=line, headers=headers, timeout=60)
        assert 400 <= r.status_code < 500 and r.json()["error"]["code"] == -32700, r.text
        ok = httpx.post(f"{url}/mcp", headers=headers, timeout=60, json={
            "jsonrpc": "2.0", "id": 7, "method": "ping"})
        assert ok.status_code == 200
    assert reg.invoke("search_items", {"query": "S1"}, ADMIN)["items"] == []
    reg.store.dispose()
