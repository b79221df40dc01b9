"""The SDK's low-level server as Shopfloor declares itself (MCP Apps where every client can
see it), and the stdio stream that answers a line that is not JSON-RPC."""

from __future__ import annotations

import contextvars
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions


class ShopfloorServer(Server[Any]):
    """The SDK's low-level server, declaring MCP Apps where every client can see it.

    `capabilities.extensions` exists only from protocol 2026-07-28 on: the SDK strips it
    from a handshake-era (2025-11-25) initialize result. Those clients find the extension
    under `capabilities.experimental` instead, on stdio and streamable HTTP alike.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        declared = self.extensions if extensions is None else extensions
        experimental = {**declared, **(experimental_capabilities or {})}
        return super().create_initialization_options(
            notification_options, experimental or None, extensions)

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        """`tools.listChanged`: a session's listing grows when its agent enables a
        toolset, and it is told (surfaces/mcp/toolsets.py)."""
        found = super().get_capabilities(*args, **kwargs)
        if found.tools is not None:
            found.tools.list_changed = True
        return found


class Screened:
    """The stdio transport's read stream, where a line that is not JSON-RPC gets a JSON-RPC
    error and the session goes on.

    The SDK's transport hands unparseable lines to the server as exceptions, which it
    drops; a client then waits forever. Here they are answered (-32700 / -32600, id null)
    as the server reads them: in its own reading, not through a relay task and a second
    stream (a task switch and a stream hop on every message).
    """

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context, as the SDK's context-aware stream carries it."""
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            from mcp.shared.message import SessionMessage  # (here: not on every message)
            from pydantic import ValidationError

            parse = isinstance(item, ValidationError) and any(
                e["type"] == "json_invalid" for e in item.errors())
            code, text = (types.PARSE_ERROR, "Parse error") if parse else \
                (types.INVALID_REQUEST, "Invalid Request")
            await self._write.send(SessionMessage(types.JSONRPCError(
                jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=text))))

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> Screened:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Screened:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
