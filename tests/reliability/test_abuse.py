"""Abuse: arbitrary arguments to every tool, broken JSON-RPC, hostile strings everywhere.

Every failure is a coded error (never `internal`), nothing is half-written, and the
servers keep answering afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopfloor.app import open_registry
from shopfloor.registry.errors import ERROR_CODES, ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.helpers import ADMIN, apply, basic_setup, ledger_matches_balances
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


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Registry]:
    import shutil

    path = tmp_path_factory.mktemp("abuse") / "abuse.db"
    shutil.copy(sqlite_template, path)
    reg = open_registry(Settings(database_url=f"sqlite:///{path}"))
    basic_setup(reg)
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])
    apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "M2", "quantity": "3"}])
    yield reg
    reg.store.dispose()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_arguments_to_any_tool_fail_only_with_coded_errors(world: Registry,
                                                               data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(world.tools()))
    keys = [*tool.input_schema.get("properties", {}), "bogus"]
    args = data.draw(st.dictionaries(st.sampled_from(keys), values, max_size=5))
    try:
        result = world.invoke(tool.name, args, ADMIN)
    except ShopfloorError as exc:
        assert exc.code in ERROR_CODES and exc.code != "internal", exc.to_payload()
        json.dumps(exc.to_payload())
    else:
        json.dumps(result)
    assert not ledger_matches_balances(world)


def _jsonrpc_lines(proc: subprocess.Popen[str], count: int) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    return [json.loads(proc.stdout.readline()) for _ in range(count)]


def test_stdio_survives_malformed_json_rpc(sqlite_url: str) -> None:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": sqlite_url}
    proc = subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "mcp"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "abuse", "version": "1"}}}
        proc.stdin.write(json.dumps(init) + "\n")
        proc.stdin.flush()
        assert _jsonrpc_lines(proc, 1)[0]["id"] == 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
                         + "\n")
        for garbage in ["{not json", "[]", '{"jsonrpc": "2.0", "id": 7, "method": 5}',
                        '{"jsonrpc": "2.0", "id": 8, "method": "no/such/method"}',
                        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                    "params": {"name": "create_item",
                                               "arguments": {"sku": "X" * 2_000_000}}})]:
            proc.stdin.write(garbage + "\n")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}) + "\n")
        proc.stdin.flush()
        seen: dict[Any, dict[str, Any]] = {}
        while 10 not in seen:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, "the server stopped answering"
            msg = json.loads(line)
            seen[msg.get("id")] = msg
        assert "error" in seen[8] and seen[8]["error"]["code"] == -32601
        big = seen[9]["result"]
        assert big["isError"] and big["structuredContent"]["error"]["code"] == "validation_error"
        assert len(seen[10]["result"]["tools"]) > 30
        assert any("error" in m and m["error"]["code"] in (-32700, -32600, -32602)
                   for m in seen.values())
    finally:
        proc.kill()
        proc.wait(10)


def test_http_and_mcp_http_survive_malformed_and_oversized_bodies(sqlite_url: str) -> None:
    conf = Settings(database_url=sqlite_url)
    reg = open_registry(conf)
    basic_setup(reg)
    token = Authenticator(reg, conf).mint("abuser", ["admin"], 600)
    headers = {"Authorization": f"Bearer {token}",
               "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    with serving(build_app(reg, conf)) as url:
        for body in (b"{not json", b"\xff\xfe\x00", b"[]", b'{"jsonrpc": "2.0"}',
                     b"{" + b'"a":' * 10 + b"1" + b"}" * 10, b"x" * (5 * 1024 * 1024)):
            r = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=60)
            assert 400 <= r.status_code < 500, (body[:20], r.status_code)
            r = httpx.post(f"{url}/api/v1/tools/get_stock", content=body, headers=headers,
                           timeout=60)
            assert r.status_code in (400, 422), (body[:20], r.status_code)
            assert r.json()["error"]["code"] == "validation_error"
        ok = httpx.post(f"{url}/mcp", headers=headers, timeout=60,
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert ok.status_code == 200
        ok = httpx.post(f"{url}/api/v1/tools/get_stock", json={}, headers=headers)
        assert ok.status_code == 200


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_refused_or_kept_exactly(registry: Registry, name: str) -> None:
    basic_setup(registry)
    try:
        apply(registry, "create_item", sku="H1", name=name)
    except ShopfloorError as exc:
        assert exc.code == "validation_error" and exc.field == "name"
        return
    assert registry.invoke("get_item", {"sku": "H1"}, ADMIN)["name"] == name.strip()


def test_cli_refuses_non_utf8_bytes(sqlite_url: str) -> None:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": sqlite_url}
    basic_setup(open_registry(Settings(database_url=sqlite_url)))
    out = subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json",
                          "call", "create_location", "--arg", b"code=\xff\xfeX", "--arg",
                          "name=bad", "--arg", "preview=false"],  # type: ignore[list-item]
                         capture_output=True, env=env, timeout=60)
    assert out.returncode == 2, out.stderr
    assert json.loads(out.stdout)["error"]["field"] == "code"
