"""Protocol errors as MCP defines them, and the document resources, through the official
SDK client (in process: the server's own dispatch, no transport).

What the conformance suite found: a resource nobody serves is invalid params (-32602)
naming the URI, not an internal error; resources/templates/list lists templates; a
tools/list cursor this server never gave out is -32602; an unknown tool is a protocol
error, not a tool's result.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.mcp.surface import build_server
from shopfloor.ui.cards import PREVIEW_URI
from tests.given import Given
from tests.helpers import ADMIN

VIEWER = Actor.of("vic", "viewer")


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company().stock({"M1": "3"}, reason="count")
    return r


def talk(reg: Registry, actor: Actor, body: Callable[[Client], Awaitable[None]]) -> None:
    async def run() -> None:
        async with Client(build_server(reg, lambda: actor)) as client:
            await body(client)

    anyio.run(run)


def test_an_unknown_resource_is_invalid_params_naming_the_uri(reg: Registry) -> None:
    async def body(client: Client) -> None:
        for uri in ("test://nowhere", "shopfloor://items/NOPE", "shopfloor://nothing/1",
                    "ui://shopfloor/none"):
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert caught.value.error.code == types.INVALID_PARAMS, uri
            assert caught.value.error.data == {"uri": uri}

    talk(reg, ADMIN, body)


def test_documents_are_read_through_their_read_tool_as_the_caller(reg: Registry) -> None:
    async def body(client: Client) -> None:
        listed = await client.list_resource_templates()
        templates = {t.uri_template: t for t in listed.resource_templates}
        assert "shopfloor://items/{sku}" in templates
        assert "shopfloor://purchase-orders/{number}" in templates
        assert "shopfloor://proposals/{proposal_id}" in templates
        assert {t.mime_type for t in templates.values()
                if "/documents/" not in t.uri_template} == {"application/json"}
        assert {t.mime_type for t in templates.values()
                if "/documents/" in t.uri_template} == {"application/pdf"}
        read = await client.read_resource("shopfloor://items/M1")
        (content,) = read.contents
        assert isinstance(content, types.TextResourceContents)
        assert json.loads(content.text) == reg.invoke("get_item", {"sku": "M1"}, ADMIN)
        card = await client.read_resource(PREVIEW_URI)
        assert card.contents[0].uri == PREVIEW_URI

    talk(reg, VIEWER, body)


def test_a_cursor_never_given_out_is_invalid_params(reg: Registry) -> None:
    async def body(client: Client) -> None:
        for listing in (client.list_tools, client.list_resources,
                        client.list_resource_templates):
            with pytest.raises(MCPError) as caught:
                await listing(cursor="not-a-cursor", cache_mode="bypass")  # type: ignore[operator]
            assert caught.value.error.code == types.INVALID_PARAMS
        assert (await client.list_tools()).next_cursor is None

    talk(reg, ADMIN, body)


def test_an_unknown_tool_is_a_protocol_error_and_a_refused_one_a_result(reg: Registry) -> None:
    async def body(client: Client) -> None:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
        assert caught.value.error.code == types.INVALID_PARAMS
        assert "no_such_tool" in caught.value.error.message
        forbidden = await client.call_tool("create_location", {"code": "X", "name": "X"})
        assert forbidden.is_error  # a tool that exists answers with its coded error
        assert forbidden.structured_content["error"]["code"] == "forbidden"  # type: ignore[index]

    talk(reg, VIEWER, body)
