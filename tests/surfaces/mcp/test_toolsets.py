"""Toolsets with the official SDK client: what a host is listed over stdio (flag and
environment), over streamable HTTP (header and path), discovery (`find_tools`,
`enable_toolset` and its list-changed notice), and an unlisted tool still answering."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import catalogue_tools, open_registry
from shopfloor.registry.registry import Registry
from shopfloor.registry.toolsets import DISCOVERY
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN
from tests.servers import serving
from tests.surfaces.mcp.clients import http_session

TOOLS = catalogue_tools()
DAY = {t.name for t in TOOLS if t.facts.everyday or t.facts.toolset == DISCOVERY}
FLOOR = {t.name for t in TOOLS if t.facts.toolset == "floor"}
DISCOVERED = {t.name for t in TOOLS if t.facts.toolset == DISCOVERY}


@asynccontextmanager
async def stdio(db_url: str, *args: str, mode: str = "legacy", **env: str
                ) -> AsyncIterator[tuple[Client, list[Any]]]:
    """`shopfloor mcp ARGS` under the SDK's client; the list of notifications it got."""
    heard: list[Any] = []

    async def note(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message)

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shopfloor.surfaces.cli", "mcp", *args],
        env={**{k: v for k, v in os.environ.items() if k != "SHOPFLOOR_TOOLSETS"},
             "SHOPFLOOR_DATABASE_URL": db_url, **env})
    async with Client(params, mode=mode, message_handler=note) as client:  # type: ignore[arg-type]
        yield client, heard


async def names(client: Any) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    return r


def test_stdio_lists_the_office_day_by_default_and_toolsets_by_flag_or_environment(
        reg: Registry, sqlite_url: str) -> None:
    async def run() -> None:
        async with stdio(sqlite_url) as (client, _):
            assert await names(client) == DAY
        async with stdio(sqlite_url, "--toolsets", "default,floor") as (client, _):
            assert await names(client) == DAY | FLOOR
        async with stdio(sqlite_url, SHOPFLOOR_TOOLSETS="floor") as (client, _):
            assert await names(client) == FLOOR | DISCOVERED
        async with stdio(sqlite_url, "--toolsets", "all") as (client, _):
            assert await names(client) == {t.name for t in TOOLS}

    anyio.run(run)


def test_find_tools_ranks_from_the_catalogue_s_words(reg: Registry, sqlite_url: str) -> None:
    async def run() -> None:
        async with stdio(sqlite_url) as (client, _):
            async def found(question: str) -> list[str]:
                res = await client.call_tool("find_tools", {"question": question})
                assert not res.is_error, res
                return [t["name"] for t in res.structured_content["tools"]]  # type: ignore[index]

            assert (await found("receive a purchase order"))[0] == "receive_purchase_order"
            assert "get_stock_valuation" in (await found("how much is my stock worth"))[:3]
            assert await found("zzz qqq") == []

    anyio.run(run)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_enable_toolset_lists_it_and_tells_the_session(reg: Registry, sqlite_url: str,
                                                      mode: str) -> None:
    async def run() -> None:
        async with stdio(sqlite_url, mode=mode) as (client, heard):
            assert not FLOOR & await names(client)
            toolsets = await client.call_tool("list_toolsets", {})
            counts = {t["name"]: t["tools"]
                      for t in toolsets.structured_content["toolsets"]}  # type: ignore[index]
            assert counts["floor"] == len(FLOOR)

            async def enable() -> None:
                res = await client.call_tool("enable_toolset", {"toolsets": ["floor"]})
                assert not res.is_error, res
                assert {t["name"] for t in res.structured_content["tools"]} == FLOOR  # type: ignore[index]

            if mode == "legacy":  # the handshake era hears it on the session's channel
                await enable()
                with anyio.fail_after(10):
                    while not any(isinstance(n, types.ToolListChangedNotification)
                                  for n in heard):
                        await anyio.sleep(0.02)
            else:  # 2026-07-28: on the listen stream it opened
                async with client.listen(tools_list_changed=True) as sub:
                    await enable()
                    with anyio.fail_after(10):
                        event = await sub.__anext__()
                    assert type(event).__name__ == "ToolsListChanged"
            assert await names(client) == DAY | FLOOR
            bad = await client.call_tool("enable_toolset", {"toolsets": ["nothing"]})
            assert bad.is_error
            assert bad.structured_content["error"]["field"] == "toolsets"  # type: ignore[index]

    anyio.run(run)


def test_a_tool_not_listed_still_applies_when_called_by_name(reg: Registry,
                                                            sqlite_url: str) -> None:
    async def run() -> None:
        async with stdio(sqlite_url) as (client, _):
            assert "create_location" not in await names(client)
            args = {"code": "SIDE", "name": "Side store"}
            preview = await client.call_tool("create_location", args)
            assert not preview.is_error, preview
            apply = preview.structured_content["apply"]["arguments"]  # type: ignore[index]
            applied = await client.call_tool("create_location", apply)
            assert applied.structured_content["applied"] is True  # type: ignore[index]

    anyio.run(run)
    codes = [loc["code"] for loc in reg.invoke("list_locations", {}, ADMIN)["locations"]]
    assert "SIDE" in codes


@pytest.fixture
def served(reg: Registry, sqlite_url: str) -> Iterator[tuple[str, str]]:
    settings = Settings(database_url=sqlite_url)
    with serving(build_app(reg, settings)) as url:
        yield url, Authenticator(reg, settings).mint("olga", ["operator"], 300)


def test_streamable_http_chooses_by_header_or_path(served: tuple[str, str]) -> None:
    url, token = served

    async def run() -> None:
        async with http_session(url, token) as s:
            assert {t.name for t in (await s.list_tools()).tools} == DAY
            assert not (await s.call_tool("list_work_centres", {})).is_error  # by name
        async with http_session(url, token, headers={"X-Shopfloor-Toolsets": "floor"}) as s:
            assert {t.name for t in (await s.list_tools()).tools} == FLOOR | DISCOVERED
        async with http_session(url, token, path="/mcp/x/default,floor") as s:
            assert {t.name for t in (await s.list_tools()).tools} == DAY | FLOOR
        async with http_session(url, token, path="/mcp/x/all") as s:
            assert len((await s.list_tools()).tools) == len(TOOLS)
        async with http_session(url, token, path="/mcp/x/nothing") as s:
            with pytest.raises(Exception, match="no toolset nothing"):
                await s.list_tools()

    anyio.run(run)
