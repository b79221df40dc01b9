"""Abuse: arbitrary arguments to every tool, broken JSON-RPC, hostile strings everywhere.

Every failure is a coded error (never `internal`), nothing is half-written, and the
servers keep answering afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ERROR_CODES, ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.copies import Copies
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.servers import serving

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "' OR 1=1 --",
           "\u202eevil", "名前", "a\x00b", "x\x1b[31m", "line\nbreak", "\ud800", "X" * 1_000_000]

leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                 st.sampled_from(["M1", "MAIN", "Acme", "Bob", "PO-00001", "1e400", "-0", "NaN",
                                  *HOSTILE[:-1]]))
values = st.recursive(leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(
        ["sku", "quantity", "quantity_delta", "counted_quantity", "unit_price", "unit_cost"]),
        inner, max_size=4)), max_leaves=8)


def _tool_names() -> list[str]:
    """Every tool in the catalogue, known at collection time (no database needed)."""
    from shopfloor.store.engine import Store
    from shopfloor.tools import catalogue

    reg = Registry(Store("sqlite://"), secret=b"collect")
    for toolset in catalogue():
        reg.add(toolset)
    names = [t.name for t in reg.tools()]
    reg.store.dispose()
    return names


TOOLS = _tool_names()
EXAMPLES = int(os.environ.get("SHOPFLOOR_ABUSE_EXAMPLES", "12"))
LONG_EXAMPLES = int(os.environ.get("SHOPFLOOR_ABUSE_LONG_EXAMPLES", "400"))


def _world(reg: Registry) -> None:
    Given(reg).company()
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])
    apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "M2", "quantity": "3"}])


@pytest.fixture
def world(db_url: str, copies: Copies) -> Iterator[Registry]:
    """A fresh copy of `_world`'s company (built once a session and database)."""
    copies.restore(db_url, "abuse", _world)
    reg = open_registry(Settings(database_url=db_url))
    yield reg
    reg.store.dispose()


def _fuzz_tool(reg: Registry, name: str, examples: int) -> None:
    """Arbitrary JSON for the tool's own argument names (and a bogus one): every failure is
    a coded error other than `internal`, every result is JSON, the ledger stays whole.

    The ledger is checked after each call that wrote (any table's row count or version
    sum changed: one statement) and once at the end; most calls are refused, and the
    check after each of them was more than half the test's time."""
    tool = reg.get(name)
    keys = [*tool.input_schema.get("properties", {}), "bogus"]
    last = [snapshot(reg)]

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=st.dictionaries(st.sampled_from(keys), values, max_size=5))
    def run(args: dict[str, Any]) -> None:
        try:
            result = reg.invoke(name, args, ADMIN)
        except ShopfloorError as exc:
            assert exc.code in ERROR_CODES and exc.code != "internal", exc.to_payload()
            json.dumps(exc.to_payload())
        else:
            json.dumps(result)
        now = snapshot(reg)
        if now != last[0]:
            assert not ledger_mismatches(reg)
            last[0] = now

    run()
    assert not ledger_mismatches(reg)


@pytest.mark.parametrize("tool", TOOLS)
def test_any_arguments_to_any_tool_fail_only_with_coded_errors(world: Registry,
                                                               tool: str) -> None:
    _fuzz_tool(world, tool, EXAMPLES)


@pytest.mark.long
@pytest.mark.parametrize("tool", TOOLS)
def test_any_arguments_to_any_tool_long(world: Registry, tool: str) -> None:
    _fuzz_tool(world, tool, LONG_EXAMPLES)


def _int_fields(reg: Registry) -> list[tuple[str, str]]:
    """(tool, argument) for every top-level integer argument."""
    out = []
    for tool in reg.tools():
        for prop, schema in tool.input_schema.get("properties", {}).items():
            options = schema.get("anyOf", [schema])
            if any(o.get("type") == "integer" for o in options):
                out.append((tool.name, prop))
    return out


def test_integers_past_32_bits_are_coded_errors(registry: Registry, given: Given) -> None:
    given.company()
    internal = []
    fields = _int_fields(registry)
    assert ("get_item", "id") in fields and ("search_items", "limit") in fields
    for tool, prop in fields:
        for value in (2**31, 2**53):
            try:
                registry.invoke(tool, {prop: value}, ADMIN)
            except ShopfloorError as exc:
                if exc.code == "internal":
                    internal.append(f"{tool}({prop}={value})")
    assert not internal, internal


def test_every_tool_is_fuzzed(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    assert [t.name for t in reg.tools()] == TOOLS and len(TOOLS) >= 40
    reg.store.dispose()


def spawn_stdio(db_url: str) -> subprocess.Popen[bytes]:
    """`shopfloor mcp` over pipes, on this database, for raw JSON-RPC lines."""
    return subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "mcp"],
                            env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
                                 "SHOPFLOOR_TOOLSETS": "all"},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def _init_stdio(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "abuse", "version": "1"}}}
    proc.stdin.write(json.dumps(init).encode() + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
                     .encode() + b"\n")


def _stdio_exchange(proc: subprocess.Popen[bytes], line: bytes, ping_id: int
                    ) -> list[dict[str, Any]]:
    """Send `line`, then a ping; every message that comes back before the ping's answer."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + b"\n")
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).encode()
                     + b"\n")
    proc.stdin.flush()
    replies: list[dict[str, Any]] = []
    while True:
        raw = proc.stdout.readline()
        assert raw, f"the server stopped answering after {line[:40]!r}"
        msg = json.loads(raw)
        if msg.get("id") == ping_id and "result" in msg:
            return replies
        replies.append(msg)


def _stdio_request(proc: subprocess.Popen[bytes], request: dict[str, Any]) -> dict[str, Any]:
    """Send one request and return its answer (requests are answered concurrently, so
    other messages may come first)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(request).encode() + b"\n")
    proc.stdin.flush()
    while True:
        raw = proc.stdout.readline()
        assert raw, "the server stopped answering"
        msg: dict[str, Any] = json.loads(raw)
        if msg.get("id") == request["id"] and "method" not in msg:
            return msg


BIG_CALL = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "create_item", "arguments": {"sku": "X" * 2_000_000, "name": "Big",
                                                          "kind": "material"}}}


@pytest.fixture(scope="module")
def stdio_server(tmp_path_factory: pytest.TempPathFactory,
                 sqlite_template: Path) -> Iterator[subprocess.Popen[bytes]]:
    """One `shopfloor mcp` for the malformed lines, each sent after the others: a server
    that answered one line wrongly, or stopped, fails the line's test (each starting
    its own process cost ~4 s of CPU)."""
    target = tmp_path_factory.mktemp("stdio") / "shopfloor.db"
    shutil.copy(sqlite_template, target)
    proc = spawn_stdio(f"sqlite:///{target}")
    try:
        _init_stdio(proc)
        yield proc
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.parametrize(("line", "code"), [
    (b"{not json", -32700),
    (b"\xff\xfe\x00{", -32700),
    (b"[" * 100_000, -32700),
    (b"[]", -32600),
    (b'{"jsonrpc": "2.0", "id": 7, "method": 5}', -32600),
    (b'{"jsonrpc": "2.0"}', -32600),
], ids=["unparseable", "non-utf8", "deep-nesting", "empty-batch", "method-not-string",
        "no-method"])
def test_stdio_answers_each_malformed_line_once(stdio_server: subprocess.Popen[bytes],
                                                line: bytes, code: int) -> None:
    """Exactly one JSON-RPC error (id null, the right code) per bad line; the next request
    is answered."""
    replies = _stdio_exchange(stdio_server, line, 100)
    assert [(m.get("jsonrpc"), m.get("id"), m.get("error", {}).get("code"))
            for m in replies] == [("2.0", None, code)], replies
    assert len(_stdio_request(stdio_server, {"jsonrpc": "2.0", "id": 101, "method": "tools/list"}
                              )["result"]["tools"]) == len(TOOLS)


def test_stdio_survives_a_stream_of_abuse(stdio_server: subprocess.Popen[bytes]) -> None:
    proc = stdio_server
    assert proc.stdin is not None and proc.stdout is not None
    for garbage in [b"{not json", b"[]", b'{"jsonrpc": "2.0", "id": 8, "method": "no/such"}',
                    json.dumps(BIG_CALL).encode()]:
        proc.stdin.write(garbage + b"\n")
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list"})
                     .encode() + b"\n")
    proc.stdin.flush()
    seen: list[dict[str, Any]] = []
    # Requests are answered concurrently: wait for all three answers, in any order.
    while not {8, 9, 10} <= {m.get("id") for m in seen}:
        line = proc.stdout.readline()
        assert line, "the server stopped answering"
        seen.append(json.loads(line))
    errors = [(m["id"], m["error"]["code"]) for m in seen if "error" in m]
    assert sorted(errors, key=str) == sorted([(None, -32700), (None, -32600), (8, -32601)],
                                             key=str), seen
    assert [m["id"] for m in seen if "error" in m and m["id"] is not None] == [8]
    big = next(m for m in seen if m.get("id") == 9)["result"]
    assert big["isError"]
    assert big["structuredContent"]["error"]["code"] == "validation_error"
    assert big["structuredContent"]["error"]["field"] == "sku"
    tools = next(m for m in seen if m.get("id") == 10)["result"]["tools"]
    assert len(tools) == len(TOOLS)


def _jsonrpc_body(r: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message in a streamable-HTTP answer (plain JSON or one SSE event)."""
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in r.text.splitlines() if line.startswith("data:")]
        assert len(data) == 1, r.text[:300]
        body: dict[str, Any] = json.loads(data[0])
    else:
        body = r.json()
    return body


@pytest.fixture
def http_world(sqlite_url: str) -> Iterator[tuple[str, dict[str, str]]]:
    conf = Settings(database_url=sqlite_url)
    reg = open_registry(conf)
    Given(reg).company()
    token = Authenticator(reg, conf).mint("abuser", ["admin"], 600)
    headers = {"Authorization": f"Bearer {token}",
               "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json",
               "X-Shopfloor-Toolsets": "all"}  # every tool listed, as the checks count them
    with serving(build_app(reg, conf)) as url:
        yield url, headers
    reg.store.dispose()


MCP_BAD_BODIES = {
    "unparseable": (b"{not json", {-32700}),
    "non-utf8": (b"\xff\xfe\x00", {-32700}),
    "empty-batch": (b"[]", {-32600, -32602}),
    "no-method": (b'{"jsonrpc": "2.0"}', {-32600, -32602}),
    "bad-keys": (b"{" + b'"a":' * 10 + b"1" + b"}" * 10, {-32700}),
    "deep-nesting": (b"[" * 100_000, {-32700}),
    "deep-nesting-closed": (b"[" * 100_000 + b"]" * 100_000, {-32700, -32600, -32602}),
}


@pytest.mark.parametrize("case", list(MCP_BAD_BODIES))
def test_mcp_http_answers_malformed_bodies_with_json_rpc_errors(
        http_world: tuple[str, dict[str, str]], case: str) -> None:
    url, headers = http_world
    body, codes = MCP_BAD_BODIES[case]
    r = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=60)
    assert 400 <= r.status_code < 500, (case, r.status_code)
    msg = _jsonrpc_body(r)
    assert msg["jsonrpc"] == "2.0" and msg["id"] is None, msg
    assert msg["error"]["code"] in codes and msg["error"]["message"], msg
    ok = httpx.post(f"{url}/mcp", headers=headers, timeout=60,
                    json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert len(_jsonrpc_body(ok)["result"]["tools"]) == len(TOOLS)


@pytest.mark.parametrize("case", ["5MB", "text/plain"])
def test_mcp_http_transport_refusals_are_json_rpc_errors(
        http_world: tuple[str, dict[str, str]], case: str) -> None:
    url, headers = http_world
    if case == "5MB":
        r = httpx.post(f"{url}/mcp", content=b"x" * (5 * 1024 * 1024), headers=headers,
                       timeout=60)
    else:
        r = httpx.post(f"{url}/mcp", content=b"{}", timeout=60,
                       headers={**headers, "Content-Type": "text/plain"})
    assert 400 <= r.status_code < 500
    msg = r.json()
    assert msg["jsonrpc"] == "2.0" and isinstance(msg["error"]["code"], int)


def test_mcp_http_big_argument_is_a_tool_error(http_world: tuple[str, dict[str, str]]) -> None:
    url, headers = http_world
    r = httpx.post(f"{url}/mcp", json={**BIG_CALL, "params": {
        "name": "create_item", "arguments": {"sku": "B1", "name": "N" * 2_000_000,
                                             "kind": "material"}}},
        headers=headers, timeout=60)
    assert r.status_code == 200, r.text[:300]
    msg = _jsonrpc_body(r)
    assert msg["id"] == 9 and msg["result"]["isError"], msg
    error = msg["result"]["structuredContent"]["error"]
    assert (error["code"], error["field"]) == ("validation_error", "name")
    ok = httpx.post(f"{url}/mcp", headers=headers, timeout=60, json={
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_item", "arguments": {"sku": "M1"}}})
    assert _jsonrpc_body(ok)["result"]["structuredContent"]["sku"] == "M1"


def _api_error(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field",
                                                             "details"}, body
    error: dict[str, Any] = body["error"]
    return error


@pytest.mark.parametrize(("case", "body"), [
    ("unparseable", b"{not json"), ("non-utf8", b"\xff\xfe\x00"), ("array", b"[]"),
    ("deep-nesting", b"[" * 100_000), ("deep-object", b'{"a":' * 100_000),
    ("5MB", b"x" * (5 * 1024 * 1024)),
])
def test_rest_refuses_malformed_bodies_in_its_error_shape(
        http_world: tuple[str, dict[str, str]], case: str, body: bytes) -> None:
    url, headers = http_world
    r = httpx.post(f"{url}/api/v1/tools/get_stock", content=body, headers=headers, timeout=60)
    error = _api_error(r, 400)
    assert error["code"] == "validation_error" and error["message"]
    ok = httpx.post(f"{url}/api/v1/tools/get_stock", json={}, headers=headers)
    assert ok.status_code == 200


def test_rest_big_argument_and_wrong_methods(http_world: tuple[str, dict[str, str]]) -> None:
    url, headers = http_world
    r = httpx.post(f"{url}/api/v1/tools/get_stock", json={"sku": "X" * 2_000_000},
                   headers=headers, timeout=60)
    error = _api_error(r, 422)
    assert (error["code"], error["field"]) == ("validation_error", "sku")
    for method in ("PUT", "DELETE", "PATCH"):
        r = httpx.request(method, f"{url}/api/v1/tools/get_stock", headers=headers, json={})
        error = _api_error(r, 405)
        assert error["code"] == "validation_error" and method in error["message"]
        assert set(r.headers["allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
    assert httpx.get(f"{url}/api/v1/tools/get_stock", headers=headers).status_code == 200
    assert httpx.post(f"{url}/api/v1/tools/get_stock", headers=headers,
                      json={}).status_code == 200


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_refused_or_kept_exactly(registry: Registry, given: Given,
                                                   name: str) -> None:
    given.company()
    try:
        apply(registry, "create_item", sku="H1", name=name)
    except ShopfloorError as exc:
        assert exc.code == "validation_error" and exc.field == "name"
        return
    assert registry.invoke("get_item", {"sku": "H1"}, ADMIN)["name"] == name.strip()


def test_cli_refuses_non_utf8_bytes(sqlite_url: str) -> None:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": sqlite_url}
    Given(open_registry(Settings(database_url=sqlite_url))).company()
    out = subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json",
                          "call", "create_location", "--arg", b"code=\xff\xfeX", "--arg",
                          "name=bad", "--arg", "preview=false"],  # type: ignore[list-item]
                         capture_output=True, env=env, timeout=60)
    assert out.returncode == 2, out.stderr
    assert json.loads(out.stdout)["error"]["field"] == "code"
