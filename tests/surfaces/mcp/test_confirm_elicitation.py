"""Confirmation in the host's own dialog, with the official SDK client as the host.

A client that declared elicitation and applies a destructive write without a token is
asked first: the preview in words, a boolean `confirm`. Over stdio in both protocol
modes (2026-07-28: `input_required` with the state sealed in `requestState`; the
2025-11-25 handshake: `elicitation/create` within the call) and over streamable HTTP
(2026-07-28, stateless: the answer may reach another server).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from decimal import Decimal
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN, apply, on_hand
from tests.helpers import snapshot as full_snapshot
from tests.servers import serving

WRITE_OFF = {"location": "MAIN", "reason": "broken",
             "lines": [{"sku": "M1", "quantity_delta": "-4"}], "preview": False}
WHERES = ["stdio-legacy", "stdio-2026", "http-2026"]
Answer = Callable[[str], types.ElicitResult]


SERVING = ("meta", "event_cursors")
"""What serving writes of its own: the token names (`meta`) and, from the in-process
worker's alert watch, how far it has read the outbox (`event_cursors`)."""


def snapshot(reg: Registry) -> dict[str, Any]:
    """Every table but those serving writes on its own."""
    return {k: v for k, v in full_snapshot(reg).items() if not k.startswith(SERVING)}


def accept(message: str) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"confirm": True})


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company().stock({"M1": "10"}, reason="count")
    return r


class Host:
    """The person at the host: answers each question with `answer`, keeps what it saw."""

    def __init__(self, answer: Answer = accept) -> None:
        self.answer = answer
        self.seen: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams
                       ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.requested_schema["properties"]["confirm"]["type"] == "boolean"
        self.seen.append(params.message)
        return self.answer(params.message)


def _http(url: str, token: str) -> Any:
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return streamable_http_client(f"{url}/mcp", http_client=client)


@asynccontextmanager
async def connected(where: str, reg: Registry, db_url: str, host: Host | None,
                    settings: Settings | None = None) -> AsyncIterator[Client]:
    """An SDK client with (or without) an elicitation callback, over `where`."""
    if where.startswith("stdio"):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "shopfloor.surfaces.cli", "mcp"],
            env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url})
        mode = "legacy" if where == "stdio-legacy" else "2026-07-28"
        async with Client(params, mode=mode, elicitation_callback=host) as client:  # type: ignore[arg-type]
            yield client
        return
    settings = settings or Settings(database_url=db_url)
    with serving(build_app(reg, settings, run_worker=False)) as url:
        token = Authenticator(reg, settings).mint("alice", ["admin"], 600)
        async with Client(_http(url, token), mode="2026-07-28",
                          elicitation_callback=host) as client:
            yield client


def _adjustments(reg: Registry) -> list[dict[str, Any]]:
    entries = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    return list(entries["entries"])


@pytest.mark.parametrize("where", WHERES)
def test_accept_applies_once_and_the_person_saw_the_item_and_the_new_value(
        reg: Registry, sqlite_url: str, where: str) -> None:
    host = Host()
    logged = len(_adjustments(reg))

    async def run() -> dict[str, Any]:
        async with connected(where, reg, sqlite_url, host) as client:
            result = await client.call_tool("create_stock_adjustment", WRITE_OFF)
            assert not result.is_error, result
            return dict(result.structured_content or {})

    applied = anyio.run(run)
    assert applied["applied"] is True and applied["replayed"] is False
    assert len(host.seen) == 1
    message = host.seen[0]
    assert "M1" in message and "10 -> 6" in message and "broken" not in message.split("\n")[0]
    assert on_hand(reg, "M1") == Decimal(6)
    assert len(_adjustments(reg)) == logged + 1


@pytest.mark.parametrize(("where", "action"), [
    ("stdio-legacy", "decline"), ("http-2026", "decline"), ("http-2026", "cancel"),
    ("http-2026", "accept-unticked")])
def test_decline_or_cancel_changes_nothing_and_says_so(reg: Registry, sqlite_url: str,
                                                      where: str, action: str) -> None:
    if action == "accept-unticked":
        host = Host(lambda m: types.ElicitResult(action="accept", content={"confirm": False}))
    else:
        host = Host(lambda m: types.ElicitResult(action=action))  # type: ignore[arg-type]
    before = snapshot(reg)

    async def run() -> dict[str, Any]:
        async with connected(where, reg, sqlite_url, host) as client:
            result = await client.call_tool("create_stock_adjustment", WRITE_OFF)
            assert not result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            assert "Nothing was applied" in text
            return dict(result.structured_content or {})

    answered = anyio.run(run)
    assert answered["applied"] is False and answered["confirmed"] is False
    assert "Nothing was applied" in answered["summary"]
    assert len(host.seen) == 1
    assert snapshot(reg) == before


def test_a_second_accept_of_the_same_request_replays_even_on_another_server(
        reg: Registry, sqlite_url: str) -> None:
    """The 2026-07-28 retry sent twice (a client retrying after a lost answer), the second
    time to another server sharing the database: one effect, the second a replay of the
    first; the sealed state is verified there, not remembered."""
    settings = Settings(database_url=sqlite_url)
    other = open_registry(settings)  # a second server's own registry, over the same database

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        answers: types.InputResponses = {
            "confirm": types.ElicitResult(action="accept", content={"confirm": True})}
        with serving(build_app(reg, settings, run_worker=False)) as one, \
                serving(build_app(other, settings, run_worker=False)) as two:
            token = Authenticator(reg, settings).mint("alice", ["admin"], 600)
            async with AsyncExitStack() as stack:
                first = await stack.enter_async_context(
                    Client(_http(one, token), mode="2026-07-28", elicitation_callback=Host()))
                second = await stack.enter_async_context(
                    Client(_http(two, token), mode="2026-07-28", elicitation_callback=Host()))
                asked = await first.session.call_tool("create_stock_adjustment", WRITE_OFF,
                                                      allow_input_required=True)
                assert isinstance(asked, types.InputRequiredResult)
                assert asked.input_requests is not None and asked.request_state
                question = asked.input_requests["confirm"]
                assert isinstance(question, types.ElicitRequest)
                assert "10 -> 6" in question.params.message
                assert "pv1." not in asked.request_state  # sealed, not merely carried
                done = []
                for client in (first, second):
                    result = await client.session.call_tool(
                        "create_stock_adjustment", WRITE_OFF, input_responses=answers,
                        request_state=asked.request_state)
                    assert isinstance(result, types.CallToolResult) and not result.is_error
                    done.append(dict(result.structured_content or {}))
                return done[0], done[1]

    once, again = anyio.run(run)
    assert once["applied"] is True and once["replayed"] is False
    assert again["replayed"] is True and again["operation_id"] == once["operation_id"]
    assert on_hand(reg, "M1") == Decimal(6)
    assert len(_adjustments(reg)) == 2  # the set-up's and this one


def test_a_tampered_or_foreign_state_is_refused_and_nothing_applies(
        reg: Registry, sqlite_url: str) -> None:
    before = snapshot(reg)
    answers: types.InputResponses = {
        "confirm": types.ElicitResult(action="accept", content={"confirm": True})}

    async def run() -> None:
        async with connected("http-2026", reg, sqlite_url, Host()) as client:
            asked = await client.session.call_tool("create_stock_adjustment", WRITE_OFF,
                                                   allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult) and asked.request_state
            state = asked.request_state
            flipped = state[:-6] + ("A" if state[-6] != "A" else "B") + state[-5:]
            for bad in (flipped, "v1.nonsense", "pv1.x.y"):
                with pytest.raises(MCPError) as refused:
                    await client.session.call_tool("create_stock_adjustment", WRITE_OFF,
                                                   input_responses=answers, request_state=bad)
                assert refused.value.error.code == types.INVALID_PARAMS
            with pytest.raises(MCPError):  # sealed for another tool
                await client.session.call_tool("create_location", {
                    "code": "X", "name": "X", "preview": False}, input_responses=answers,
                    request_state=state)

    anyio.run(run)
    assert snapshot(reg) == before


def test_an_accept_after_the_stock_moved_is_stale_and_applies_nothing(
        reg: Registry, sqlite_url: str) -> None:
    """The same rule as a token apply: what the person agreed to must still be so."""
    def moved_meanwhile(message: str) -> types.ElicitResult:
        apply(reg, "create_stock_adjustment", location="MAIN", reason="found",
              lines=[{"sku": "M1", "quantity_delta": "1"}])
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def run() -> types.CallToolResult:
        async with connected("http-2026", reg, sqlite_url, Host(moved_meanwhile)) as client:
            return await client.call_tool("create_stock_adjustment", WRITE_OFF)

    result = anyio.run(run)
    assert result.is_error
    assert result.structured_content["error"]["code"] == "stale_preview"  # type: ignore[index]
    assert on_hand(reg, "M1") == Decimal(11)


def test_an_accept_after_the_preview_expired_is_stale_and_applies_nothing(
        reg: Registry, sqlite_url: str) -> None:
    """The sealed state lives as long as its preview token: an answer given too late is
    the token's `stale_preview` (with a fresh preview), not a forged-state refusal."""
    reg.preview_ttl = timedelta(0)

    async def run() -> types.CallToolResult:
        async with connected("http-2026", reg, sqlite_url, Host()) as client:
            return await client.call_tool("create_stock_adjustment", WRITE_OFF)

    result = anyio.run(run)
    error = result.structured_content["error"]  # type: ignore[index]
    assert result.is_error and error["code"] == "stale_preview"
    assert "expired" in error["message"] and error["details"]["preview"]["preview"] is True
    assert on_hand(reg, "M1") == Decimal(10)


def test_clients_without_elicitation_keep_todays_contract(reg: Registry,
                                                          sqlite_url: str) -> None:
    async def run() -> dict[str, Any]:
        async with connected("http-2026", reg, sqlite_url, None) as client:
            result = await client.call_tool("create_stock_adjustment", WRITE_OFF)
            return dict(result.structured_content or {})

    assert anyio.run(run)["applied"] is True
    assert on_hand(reg, "M1") == Decimal(6)


@pytest.mark.parametrize(("rule", "tool", "args", "asked"), [
    ("none", "create_stock_adjustment", WRITE_OFF, False),
    ("destructive", "create_location", {"code": "DOCK", "name": "Dock", "preview": False},
     False),
    ("all", "create_location", {"code": "DOCK", "name": "Dock", "preview": False}, True),
])
def test_confirm_writes_decides_which_applies_ask(reg: Registry, sqlite_url: str, rule: str,
                                                 tool: str, args: dict[str, Any],
                                                 asked: bool) -> None:
    host = Host()
    settings = Settings(database_url=sqlite_url, confirm_writes=rule)

    async def run() -> dict[str, Any]:
        async with connected("http-2026", reg, sqlite_url, host, settings) as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result
            return dict(result.structured_content or {})

    assert anyio.run(run)["applied"] is True
    assert bool(host.seen) is asked
    if asked:
        assert "DOCK" in host.seen[0]


def test_preview_said_as_a_string_is_asked_and_a_repeat_of_its_key_replays_unasked(
        reg: Registry, sqlite_url: str) -> None:
    """`"false"` applies as the request model reads it, so it is asked like `false`; the
    agent repeating the call with the same idempotency key gets the first result, and the
    person is not asked about what already happened."""
    host = Host()
    args = {**WRITE_OFF, "preview": "false", "idempotency_key": "write-off-1"}

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        async with connected("http-2026", reg, sqlite_url, host) as client:
            first = await client.call_tool("create_stock_adjustment", args)
            again = await client.call_tool("create_stock_adjustment", args)
            return dict(first.structured_content or {}), dict(again.structured_content or {})

    first, again = anyio.run(run)
    assert len(host.seen) == 1
    assert first["applied"] is True and again["replayed"] is True
    assert again["operation_id"] == first["operation_id"]
    assert on_hand(reg, "M1") == Decimal(6)
