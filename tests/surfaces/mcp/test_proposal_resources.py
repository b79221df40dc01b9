"""The approval inbox as MCP resources, read by the official SDK client over streamable HTTP.

An agent whose token carries the `approval` claim applies a write through `tools/call`:
it is held as a proposal. Its own client and another person's read
`shopfloor://proposals/pending` and `shopfloor://proposals/{proposal_id}` and find the
proposal there (what it would change, its summary, `pending`); after the other person
approves it with `approve_proposal`, the inbox no longer lists it and the single resource
says `approved`, by whom, and the operation that applied it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import apply, on_hand
from tests.servers import serving
from tests.surfaces.mcp.clients import http_session

PENDING = "shopfloor://proposals/pending"
FOUND = {"location": "MAIN", "reason": "found behind the rack",
         "lines": [{"sku": "M1", "quantity_delta": "5", "unit_cost": "2"}]}


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    apply(r, "create_stock_adjustment", location="MAIN", reason="opening",
          lines=[{"sku": "M1", "quantity_delta": "10", "unit_cost": "2"}])
    return r


async def _read(session: ClientSession, uri: str) -> dict[str, Any]:
    got = await session.read_resource(uri)
    (content,) = got.contents  # type: ignore[union-attr]
    assert str(content.uri) == uri and content.mime_type == "application/json"
    return json.loads(content.text)  # type: ignore[union-attr,no-any-return]


async def _call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.is_error, result  # type: ignore[union-attr]
    return dict(result.structured_content or {})  # type: ignore[union-attr]


def test_a_held_write_is_read_through_the_proposal_resources_until_it_is_approved(
        reg: Registry, sqlite_url: str) -> None:
    settings = Settings(database_url=sqlite_url)
    auth = Authenticator(reg, settings)
    agent = auth.mint("agent", ["operator"], 600, needs_approval=True)
    boss = auth.mint("boss", ["operator"], 600)
    stranger = auth.mint("someone", ["viewer"], 600)

    async def run(url: str) -> None:
        async with http_session(url, agent) as mine, http_session(url, boss) as theirs, \
                http_session(url, stranger) as other:
            assert (await _read(theirs, PENDING))["proposals"] == []
            held = await _call(mine, "create_stock_adjustment", {**FOUND, "preview": False})
            assert held["proposed"] is True and held["applied"] is False
            pid = held["proposal_id"]
            single = f"shopfloor://proposals/{pid}"

            for session in (mine, theirs):  # the proposer and the approver see the same
                inbox = (await _read(session, PENDING))["proposals"]
                assert [(p["proposal_id"], p["actor"], p["tool"], p["status"])
                        for p in inbox] == [(pid, "agent", "create_stock_adjustment",
                                             "pending")]
                assert inbox[0]["summary"] and inbox[0]["summary"] in held["summary"]
                shown = await _read(session, single)
                assert (shown["proposal_id"], shown["status"], shown["decided_by"],
                        shown["operation_id"]) == (pid, "pending", None, None)
                assert shown["arguments"]["reason"] == "found behind the rack"
                assert shown["arguments"]["lines"][0]["quantity_delta"] == "5"
                assert shown["preview"]["summary"] == inbox[0]["summary"]
                stock = [c for c in shown["preview"]["changes"] if c["field"] == "on_hand"]
                assert [(Decimal(c["before"]), Decimal(c["after"])) for c in stock] == \
                    [(Decimal(10), Decimal(15))], shown["preview"]["changes"]
            # a viewer who did not propose it finds nothing, neither listed nor by its id
            assert (await _read(other, PENDING))["proposals"] == []
            with pytest.raises(MCPError) as hidden:
                await other.read_resource(single)
            assert hidden.value.error.code == types.INVALID_PARAMS
            assert hidden.value.error.data == {"uri": single}
            assert on_hand(reg, "M1") == 10  # held: nothing applied yet

            done = await _call(theirs, "approve_proposal",
                               {"proposal_id": pid, "preview": False})
            assert done["applied"] is True and done["proposal_id"] == pid
            assert on_hand(reg, "M1") == 15

            for session in (mine, theirs):
                assert (await _read(session, PENDING))["proposals"] == []
                shown = await _read(session, single)
                assert (shown["status"], shown["decided_by"], shown["operation_id"]) == \
                    ("approved", "boss", done["operation_id"])

    with serving(build_app(reg, settings, run_worker=False)) as url:
        anyio.run(run, url)
