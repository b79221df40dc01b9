"""The official SDK client drives Shopfloor over stdio and streamable HTTP.

Over stdio every test runs in both protocol modes: the 2025-11-25 initialize handshake
(`mode="legacy"`, what most hosts speak today) and 2026-07-28 (`server/discover`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.server.apps import EXTENSION_ID

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.facts import COACHING
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from shopfloor.ui.cards import JOB_URI, PREVIEW_URI
from tests.given import Given
from tests.helpers import ADMIN
from tests.servers import serving
from tests.surfaces.mcp.clients import http_session

ADJ = {"location": "MAIN", "reason": "found", "lines": [{"sku": "M1", "quantity_delta": "4"}]}
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}  # client mode -> negotiated protocol


@asynccontextmanager
async def stdio_client(db_url: str, mode: str) -> AsyncIterator[Client]:
    """`shopfloor mcp` spawned by the SDK's high-level client in the given mode."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shopfloor.surfaces.cli", "mcp"],
        env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url, "SHOPFLOOR_TOOLSETS": "all"})
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        assert client.protocol_version == MODES[mode]
        yield client


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    return r


@pytest.mark.parametrize("mode", MODES)
def test_stdio_lists_annotated_tools_and_reads_previews_applies(reg: Registry, sqlite_url: str,
                                                                mode: str) -> None:
    async def run() -> None:
        async with stdio_client(sqlite_url, mode) as s:
            listed = {t.name: t for t in (await s.list_tools()).tools}
            assert set(listed) == {t.name for t in reg.tools()}
            for t in reg.tools():
                mt = listed[t.name]
                a = mt.annotations
                assert a is not None and mt.title == t.title
                assert mt.input_schema == t.input_schema and mt.output_schema == t.output_schema
                if t.facts.writes:
                    assert not a.read_only_hint and a.destructive_hint is t.facts.destructive
                    assert mt.meta == {"ui": {"resourceUri": PREVIEW_URI}}
                    assert COACHING in (mt.description or "")
                elif t.facts.job:
                    assert not a.read_only_hint and not a.destructive_hint
                    assert mt.meta == {"ui": {"resourceUri": JOB_URI}}
                elif t.app_only:
                    assert a.read_only_hint
                    assert mt.meta == {"ui": {"resourceUri": JOB_URI, "visibility": ["app"]}}
                else:
                    assert a.read_only_hint and not a.destructive_hint
                    assert not mt.meta
            assert listed["create_item"].annotations.destructive_hint is False  # type: ignore[union-attr]
            assert listed["delete_item"].annotations.destructive_hint is True  # type: ignore[union-attr]
            # a webhook reaches another system: openWorld left at MCP's default (true)
            assert listed["create_webhook"].annotations.open_world_hint is None  # type: ignore[union-attr]
            assert listed["create_item"].annotations.open_world_hint is False  # type: ignore[union-attr]

            read = await s.call_tool("list_locations", {})
            assert not read.is_error
            assert read.structured_content == reg.invoke("list_locations", {}, ADMIN)
            assert "MAIN" in read.content[0].text  # type: ignore[union-attr]

            preview = await s.call_tool("create_stock_adjustment", ADJ)
            sc: dict[str, Any] = preview.structured_content or {}
            assert not preview.is_error and sc["preview"] is True and sc["preview_token"]
            assert "PREVIEW" in preview.content[0].text  # type: ignore[union-attr]
            applied = await s.call_tool("create_stock_adjustment", sc["apply"]["arguments"])
            assert not applied.is_error and applied.structured_content["applied"] is True  # type: ignore[index]
            again = await s.call_tool("create_stock_adjustment", sc["apply"]["arguments"])
            assert again.structured_content["replayed"] is True  # type: ignore[index]

            missing = await s.call_tool("get_item", {"sku": "NOPE"})
            assert missing.is_error
            assert missing.structured_content == {"error": {
                "code": "not_found", "message": "no item with SKU 'NOPE'", "field": "sku",
                "details": {}}}

            listed = (await s.list_resources()).resources
            resources = [r for r in listed if str(r.uri).startswith("ui://")]
            assert [str(r.uri) for r in resources] == [PREVIEW_URI, JOB_URI]
            assert {r.mime_type for r in resources} == {"text/html;profile=mcp-app"}
            others = [str(r.uri) for r in listed if r not in resources]  # test_alert_resources
            assert others == ["shopfloor://proposals/pending"] + [
                f"shopfloor://alerts/{a}" for a in ("low-stock", "expiring-lots", "late-orders",
                                                    "overloaded-centres")]
            card = (await s.read_resource(PREVIEW_URI)).contents[0]
            html = card.text  # type: ignore[union-attr]
            assert "<script src" not in html and "http://" not in html and "https://" not in html
            assert card.meta["ui"]["csp"]["connectDomains"] == []  # type: ignore[index]

    anyio.run(run)
    stock = reg.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    assert stock[0]["on_hand"] == "4"


@pytest.mark.parametrize("mode", MODES)
def test_mcp_apps_extension_is_declared_in_both_protocol_modes(reg: Registry, sqlite_url: str,
                                                               mode: str) -> None:
    """2026-07-28 declares extensions under capabilities.extensions; a 2025-11-25 result
    has no such field (the SDK strips it), so there it is an experimental capability."""
    async def run() -> None:
        async with stdio_client(sqlite_url, mode) as s:
            caps = s.server_capabilities
            if mode == "legacy":
                assert caps.experimental is not None and EXTENSION_ID in caps.experimental
            else:
                assert caps.extensions is not None and EXTENSION_ID in caps.extensions
            assert (await s.call_tool("list_locations", {})).is_error is False

    anyio.run(run)


@pytest.fixture
def served(reg: Registry, sqlite_url: str) -> Iterator[tuple[str, Authenticator]]:
    settings = Settings(database_url=sqlite_url, toolsets="all")
    with serving(build_app(reg, settings)) as url:
        yield url, Authenticator(reg, settings)


def test_streamable_http_behind_jwt(reg: Registry, served: tuple[str, Authenticator]) -> None:
    url, auth = served
    r = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"

    async def run() -> None:
        async with http_session(url, auth.mint("viewer-vic", ["viewer"], 300)) as s:
            caps = s.server_capabilities
            assert caps is not None and caps.experimental is not None
            assert EXTENSION_ID in caps.experimental  # a 2025-11-25 session, as over stdio
            assert len((await s.list_tools()).tools) == len(reg.tools())
            ok = await s.call_tool("get_stock", {})
            assert not ok.is_error
            for t in reg.tools():
                if t.facts.writes or t.facts.job:
                    res = await s.call_tool(t.name, {})
                    assert res.is_error, t.name
                    assert res.structured_content["error"]["code"] == "forbidden"  # type: ignore[index]
        async with http_session(url, auth.mint("operator-olga", ["operator"], 300)) as s:
            res = await s.call_tool("modify_item", {"sku": "M1", "name": "x"})
            assert res.structured_content["error"]["code"] == "forbidden"  # type: ignore[index]
            preview = await s.call_tool("create_stock_adjustment", ADJ)
            args = preview.structured_content["apply"]["arguments"]  # type: ignore[index]
            applied = await s.call_tool("create_stock_adjustment", args)
            assert applied.structured_content["applied"] is True  # type: ignore[index]

    anyio.run(run)
    log = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    assert [e["actor"] for e in log["entries"]] == ["operator-olga"]


async def _follow_jobs(s: Any) -> None:
    """With a progress token a job-starting call reports progress and returns the finished
    job; without one it returns at once with the job queued."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    done = await s.call_tool("run_mrp", {"today": "2026-12-01"}, progress_callback=on_progress)
    assert not done.is_error, done
    out = done.structured_content
    assert out["status"] == "succeeded" and out["summary"].startswith("MRP: "), out
    assert "purchase_orders" in out["result"]
    assert seen and seen[-1][0] == 1.0 and all(t == 1.0 for _, t, _ in seen)
    assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen)

    quick = await s.call_tool("run_mrp", {})
    assert quick.structured_content["status"] == "queued"

    csv = "sku,name,on_hand:MAIN\nMCP-1,From MCP,3\n"
    preview = await s.call_tool("import_items", {"csv": csv})
    apply_args = preview.structured_content["apply"]["arguments"]
    seen.clear()
    done = await s.call_tool("import_items", apply_args, progress_callback=on_progress)
    out = done.structured_content
    assert out["status"] == "succeeded" and out["result"]["created"] == 1, out
    assert seen and seen[-1][0] == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_job_progress_notifications_over_stdio(reg: Registry, sqlite_url: str,
                                               mode: str) -> None:
    async def run() -> None:
        async with stdio_client(sqlite_url, mode) as s:
            await _follow_jobs(s)

    anyio.run(run)


def test_job_progress_notifications_over_http(reg: Registry,
                                              served: tuple[str, Authenticator]) -> None:
    url, auth = served

    async def run() -> None:
        async with http_session(url, auth.mint("planner", ["admin"], 600)) as s:
            await _follow_jobs(s)

    anyio.run(run)


def test_an_answer_over_one_mib_reaches_the_sdk_client_over_http(reg: Registry,
                                                                  sqlite_url: str) -> None:
    """A big company's plan read back with get_job: the SDK's client refuses an SSE event
    over 1 MiB, so a call that streams nothing is answered with a plain JSON body."""
    from shopfloor.store import queue

    rows = [{"sku": f"PLAN-{i:05d}", "note": "n" * 100} for i in range(12_000)]
    with reg.store.writing() as s:
        job_id = queue.enqueue(s, "run_mrp", {"today": "2026-12-01"}, "planner").id
        s.commit()
    assert queue.claim(reg.store, "test-worker", job_id) is not None
    queue.finish(reg.store, job_id, "test-worker", "succeeded", "planned", {"orders": rows})
    settings = Settings(database_url=sqlite_url)

    async def run(url: str, token: str) -> None:
        async with http_session(url, token) as s:
            got = await s.call_tool("get_job", {"job_id": job_id})
            assert not got.is_error
            assert got.structured_content is not None
            assert got.structured_content["result"]["orders"] == rows

    with serving(build_app(reg, settings, run_worker=False)) as url:
        anyio.run(run, url, Authenticator(reg, settings).mint("planner", ["admin"], 600))
