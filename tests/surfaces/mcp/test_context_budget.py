"""The context an agent pays for tools/list on every turn, measured as a real host sees it.

The official SDK client spawns `shopfloor mcp` over stdio (output schemas on) through a
tap that copies the server's stdout line by line into a file, so the figure is the
JSON-RPC response line the server wrote (compact JSON, as on the wire): the same bytes
`bench/mcp_startup.py` counts, not a re-serialisation by the client. The budget holds for
the whole catalogue, so a new tool must pay its way too.

Bytes are cut without losing what an agent needs: every argument and result field is
still listed with its type, and every write still says how to preview and apply.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from pydantic import BaseModel

from shopfloor.app.wiring import catalogue_tools
from shopfloor.registry.facts import COACHING
from shopfloor.registry.tool import Tool

BUDGET = 1000
"""Bytes of tools/list per tool, issue 10's figure: 61 tools (lots, trace, corrections,
returns, planning reads came with issues 11-13) at about 982 each."""
DEFAULT_BUDGET = 30_000
"""Bytes of the first tools/list a host gets (`default`: the office day's tools and
discovery), issue 32's figure; the rest is one `enable_toolset` away."""
MODES = ("legacy", "auto")  # 2025-11-25 handshake, and 2026-07-28

TAP = r"""
import subprocess, sys
log, command = sys.argv[1], sys.argv[2:]
with subprocess.Popen(command, stdout=subprocess.PIPE) as child, open(log, "wb") as out:
    for line in child.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        out.write(line)
        out.flush()
"""


async def _list_through_tap(db_url: str, log: Path, mode: str, toolsets: str = "all"
                            ) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", TAP, str(log), sys.executable, "-m", "shopfloor.surfaces.cli", "mcp"],
        env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
             "SHOPFLOOR_MCP_OUTPUT_SCHEMAS": "true", "SHOPFLOOR_TOOLSETS": toolsets})
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        return list((await client.list_tools()).tools)


def _tools_line(log: Path) -> bytes:
    """The one response line that carries the tool list, without its newline."""
    found = [line.rstrip(b"\n") for line in log.read_bytes().splitlines(keepends=True)
             if b'"tools"' in line and "tools" in json.loads(line).get("result", {})]
    assert len(found) == 1, f"{len(found)} tools/list replies on the wire"
    return found[0]


def _names(node: Any, out: set[str] | None = None) -> set[str]:
    """Every property name anywhere in a schema (rows and `$defs` bodies included)."""
    out = set() if out is None else out
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                if key == "properties":
                    out.update(value)
                for schema in value.values():
                    _names(schema, out)
            else:
                _names(value, out)
    elif isinstance(node, list):
        for value in node:
            _names(value, out)
    return out


def _untyped(node: Any, path: str = "") -> Iterator[str]:
    """Property paths whose schema gives an agent no type to go by."""
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if not {"type", "enum", "const", "anyOf", "$ref"} & set(prop):
                yield f"{path}.{name}"
            yield from _untyped(prop, f"{path}.{name}")
        for key in ("items", "additionalProperties"):
            yield from _untyped(node.get(key), f"{path}[]")
        for variant in node.get("anyOf") or []:
            yield from _untyped(variant, path)


def _model_fields(model: type[BaseModel], mode: str) -> set[str]:
    """The field names pydantic's own, uncompacted schema gives, rows included."""
    return _names(model.model_json_schema(mode=mode))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tools() -> dict[str, Tool]:
    return {t.name: t for t in catalogue_tools()}


def _per_tool(sqlite_url: str, tmp_path: Path, tools: dict[str, Tool],
              mode: str) -> tuple[float, str, list[dict[str, Any]]]:
    log = tmp_path / "stdout.jsonl"
    listed = anyio.run(_list_through_tap, sqlite_url, log, mode)
    line = _tools_line(log)
    wire = json.loads(line)["result"]["tools"]
    assert [t.name for t in listed] == [t["name"] for t in wire] == list(tools)
    return len(line) / len(wire), line, wire


@pytest.mark.parametrize("mode", MODES)
def test_tools_list_fits_the_budget_per_tool_on_the_wire(sqlite_url: str, tmp_path: Path,
                                                          tools: dict[str, Tool],
                                                          mode: str) -> None:
    per_tool, line, wire = _per_tool(sqlite_url, tmp_path, tools, mode)
    assert per_tool <= BUDGET, (
        f"tools/list is {len(line)} bytes for {len(wire)} tools = {per_tool:.0f} per tool "
        f"(budget {BUDGET}); biggest: " + ", ".join(
            f"{t['name']} {len(json.dumps(t, separators=(',', ':')))}"
            for t in sorted(wire, key=lambda t: -len(json.dumps(t)))[:5]))


@pytest.mark.parametrize("mode", MODES)
def test_the_default_tools_list_fits_its_budget_on_the_wire(sqlite_url: str, tmp_path: Path,
                                                            tools: dict[str, Tool],
                                                            mode: str) -> None:
    log = tmp_path / "stdout.jsonl"
    listed = anyio.run(_list_through_tap, sqlite_url, log, mode, "default")
    line = _tools_line(log)
    assert [t.name for t in listed] == [t.name for t in tools.values()
                                        if t.facts.everyday or t.facts.toolset == "discovery"]
    assert len(line) <= DEFAULT_BUDGET, f"default tools/list is {len(line)} bytes"


def test_every_argument_and_result_field_is_still_listed_with_a_type(
        sqlite_url: str, tmp_path: Path, tools: dict[str, Tool]) -> None:
    log = tmp_path / "stdout.jsonl"
    anyio.run(_list_through_tap, sqlite_url, log, "legacy")
    for wired in json.loads(_tools_line(log))["result"]["tools"]:
        tool = tools[wired["name"]]
        inputs, outputs = wired["inputSchema"], wired.get("outputSchema")
        assert _names(inputs) == _model_fields(tool.request, "validation"), tool.name
        assert set(inputs.get("required", [])) == set(
            tool.request.model_json_schema().get("required", [])), tool.name
        assert not list(_untyped(inputs)), (tool.name, list(_untyped(inputs)))
        if tool.facts.writes:
            assert wired["description"].endswith(" " + COACHING), tool.name
            assert outputs is None, tool.name  # registry/results.py says why
        else:
            assert outputs is not None and outputs["type"] == "object", tool.name
            assert _names(outputs) == _model_fields(tool.response, "serialization"), tool.name
            assert not list(_untyped(outputs)), (tool.name, list(_untyped(outputs)))


def test_the_coaching_text_still_carries_the_whole_protocol() -> None:
    """Short, but every step is there: preview, stop, the user confirms where, then what
    the apply sends."""
    for words in ("Preview first", "end your turn", "user confirms", "card", "chat",
                  "preview=false", "preview_token", "idempotency_key"):
        assert words in COACHING, words
    assert len(COACHING) <= 130
