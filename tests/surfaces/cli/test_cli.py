"""The CLI prints exactly what the registry returns, and fails with coded exit statuses.

Commands run through the console script's own `main` in this process (the same parsing,
rendering and exit statuses, without an interpreter start each); a waited job and the
help's host configuration run as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.surfaces.cli import EXIT_CODES, parse_args
from tests.given import Given
from tests.helpers import ADMIN
from tests.surfaces.contract.surfaces import Ran, cli_in_process

LOCAL = Settings().local_actor


def cli(url: str, *args: str, stdin: str | None = None, fmt: str = "json") -> Ran:
    return cli_in_process(["--fmt", fmt, *args], {"SHOPFLOOR_DATABASE_URL": url}, stdin)


def cli_process(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_call_prints_the_registry_payload(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    from shopfloor.registry.actor import Actor

    local = Actor.of(LOCAL, Settings().local_role)
    expected = reg.invoke("search_items", {"query": "item", "limit": 2}, local)
    out = cli(sqlite_url, "call", "search_items", "--arg", "query=item", "--arg", "limit=2")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == expected
    out = cli(sqlite_url, "call", "get_stock", "--json", '{"sku": "M1"}')
    assert json.loads(out.stdout) == reg.invoke("get_stock", {"sku": "M1"}, local)


def test_write_preview_then_apply_from_the_cli(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    args = {"location": "MAIN", "reason": "found", "lines": [{"sku": "M1", "quantity_delta": 3}]}
    preview = json.loads(cli(sqlite_url, "call", "create_stock_adjustment", "--json",
                             json.dumps(args)).stdout)
    assert preview["preview"] is True and preview["preview_token"]
    applied = cli(sqlite_url, "call", "create_stock_adjustment", "--json", "-",
                  stdin=json.dumps({**args, "preview": False,
                                    "preview_token": preview["preview_token"]}))
    assert applied.returncode == 0, applied.stderr
    result = json.loads(applied.stdout)
    assert result["applied"] is True and result["replayed"] is False
    assert set(result) >= {"summary", "operation_id", "number", "lines"}


@pytest.mark.parametrize(("args", "code"), [
    (["call", "no_such_tool"], "not_found"),
    (["call", "get_item", "--arg", "sku=NOPE"], "not_found"),
    (["call", "create_location", "--arg", "name=X"], "validation_error"),
    (["call", "get_stock", "--json", "{not json"], "validation_error"),
    (["call", "create_location", "--arg", "code=MAIN", "--arg", "name=X", "--arg",
      "preview=false"], "conflict"),
    (["call", "create_stock_adjustment", "--json",
      '{"location": "MAIN", "reason": "x", "preview": false,'
      ' "lines": [{"sku": "M1", "quantity_delta": -1}]}'], "insufficient_stock"),
])
def test_errors_exit_non_zero_with_the_code(sqlite_url: str, args: list[str], code: str) -> None:
    Given(open_registry(Settings(database_url=sqlite_url))).company()
    out = cli(sqlite_url, *args)
    assert out.returncode == EXIT_CODES[code], out.stderr
    assert f"error[{code}]" in out.stderr
    payload: dict[str, Any] = json.loads(out.stdout)
    assert payload["error"]["code"] == code


def test_tools_list_has_schemas(sqlite_url: str) -> None:
    out = cli(sqlite_url, "tools", "list")
    tools = json.loads(out.stdout)["tools"]
    assert len(tools) >= 40
    assert all(t["input_schema"]["type"] == "object" for t in tools)
    assert all(t["output_schema"] for t in tools if "preview" not in t["input_schema"]
               ["properties"])  # writes list none (registry/results.py)
    one = json.loads(cli(sqlite_url, "tools", "schema", "get_stock").stdout)
    assert one["name"] == "get_stock"


def test_text_and_yaml_views_render(sqlite_url: str) -> None:
    Given(open_registry(Settings(database_url=sqlite_url))).company()
    for fmt in ("text", "yaml", "md"):
        out = cli(sqlite_url, "call", "list_locations", fmt=fmt)
        assert out.returncode == 0 and "MAIN" in out.stdout, (fmt, out.stderr)


@pytest.mark.parametrize("job", ["mrp", "import"])  # a process each: two workers share them
def test_call_wait_runs_a_job_when_no_worker_is_there(sqlite_url: str, job: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    if job == "mrp":
        out = cli_process(sqlite_url, "call", "run_mrp", "--arg", "today=2026-12-01", "--wait")
        assert out.returncode == 0, out.stderr
        done = json.loads(out.stdout)
        assert done["status"] == "succeeded" and done["kind"] == "mrp", done
        assert "job " in out.stderr  # the progress bar's label
        return
    csv = "sku,name,on_hand:MAIN\nCLI-1,From the CLI,2\n"
    out = cli_process(sqlite_url, "call", "import_items", "--json",
                      json.dumps({"csv": csv, "preview": False}), "--wait")
    assert out.returncode == 0, out.stderr
    done = json.loads(out.stdout)
    assert done["status"] == "succeeded" and done["result"]["created"] == 1, done
    assert "job " in out.stderr
    assert reg.invoke("get_item", {"sku": "CLI-1"}, ADMIN)["name"] == "From the CLI"


def test_arg_keeps_text_for_text_fields(sqlite_url: str) -> None:
    """sku=1001 is the SKU "1001" (a text field), while limit=2 and preview=false are JSON."""
    open_registry(Settings(database_url=sqlite_url))
    out = cli(sqlite_url, "call", "create_item", "--arg", "sku=1001", "--arg", "name=Widget",
              "--arg", "preview=false")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["applied"] is True
    item = json.loads(cli(sqlite_url, "call", "get_item", "--arg", "sku=1001").stdout)
    assert item["sku"] == "1001" and item["name"] == "Widget"
    found = json.loads(cli(sqlite_url, "call", "search_items", "--arg", "query=1001",
                           "--arg", "limit=2").stdout)
    assert [i["sku"] for i in found["items"]] == ["1001"]


def test_parse_args_follows_the_input_schema() -> None:
    schema = {"properties": {
        "sku": {"type": "string"}, "note": {"type": ["string", "null"]},
        "quantity": {"type": ["number", "string"]}, "limit": {"type": "integer"},
        "lines": {"type": "array", "items": {"type": "object"}},
        "ref": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    pairs = ["sku=1001", "note=true", "quantity=2.5", "limit=3", 'lines=[{"sku": "A"}]',
             "ref=007", "other=12", "plain=not json"]
    assert parse_args(None, pairs, schema) == {
        "sku": "1001", "note": "true", "quantity": 2.5, "limit": 3, "lines": [{"sku": "A"}],
        "ref": "007", "other": 12, "plain": "not json"}
    assert parse_args(None, ["sku=1001"]) == {"sku": 1001}  # no schema: JSON if it parses


def test_mcp_help_prints_a_host_configuration_intact() -> None:
    env = {**os.environ, "COLUMNS": "40", "TERM": "xterm-256color"}
    out = subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "mcp", "--help"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith('{"mcpServers"'))
    end = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith("}}}}"))
    config = json.loads("\n".join(lines[start:end + 1]))
    server = config["mcpServers"]["shopfloor"]
    assert server["args"] == ["mcp"] and server["command"].endswith("shopfloor")
    assert "SHOPFLOOR_DATABASE_URL" in server["env"]
    assert any(line.strip() == "http://127.0.0.1:8765/mcp" for line in lines)


@pytest.mark.parametrize("ttl", ["0", "-5"])
def test_token_create_refuses_a_lifetime_that_is_not_positive(sqlite_url: str,
                                                              ttl: str) -> None:
    out = cli(sqlite_url, "token", "create", "--role", "viewer", "--ttl", ttl)
    assert out.returncode == 2 and not out.stdout
    assert "--ttl" in out.stderr and "at least 1" in out.stderr
    ok = cli(sqlite_url, "token", "create", "--role", "viewer", "--ttl", "60")
    assert ok.returncode == 0 and ok.stdout.count(".") == 2  # a JWT
