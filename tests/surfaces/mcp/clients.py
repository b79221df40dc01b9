"""Official MCP SDK clients (the real peer) over stdio and streamable HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@asynccontextmanager
async def stdio_session(db_url: str, **env: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shopfloor.surfaces.cli", "mcp"],
        env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url, **env})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(url: str, token: str, *, headers: dict[str, str] | None = None,
                       path: str = "/mcp") -> AsyncIterator[ClientSession]:
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}",
                                             **(headers or {})})
    async with client, \
            streamable_http_client(f"{url}{path}", http_client=client) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_client(url: str, token: str) -> AsyncIterator[Client]:
    """The SDK's high-level `Client` of the server at `url` over streamable HTTP, signed in
    with `token` (what `subscriptions/listen` is heard through)."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        yield client
