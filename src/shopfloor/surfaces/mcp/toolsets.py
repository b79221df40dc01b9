"""Which tools an MCP client is listed, and telling it when that changes.

A stdio session starts with `--toolsets` (or SHOPFLOOR_TOOLSETS) and grows when the
agent enables a toolset; the session is then told its tool list changed (a handshake-era
client on its own channel, a 2026-07-28 client on the `subscriptions/listen` stream it
opened). Stateless HTTP has no session to grow: each request names its toolsets by the
X-Shopfloor-Toolsets header or the /mcp/x/{toolsets} path, or gets the server's.
The listing is only what is shown: a tool called by name answers whether listed or not.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ServerEvent, ToolsListChanged

from shopfloor.registry import toolsets

HEADER = "x-shopfloor-toolsets"

# The toolsets an HTTP request named (header or path), set by the ASGI wrapper.
requested: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "shopfloor_toolsets", default=None)


class Selection:
    """The toolsets listed: fixed per request (HTTP), or a session's, which grows."""

    def __init__(self, chosen: str | None, *, per_request: bool = False) -> None:
        self._start = chosen
        self._chosen: frozenset[str] | None = None
        self._known: list[str] = []
        self.per_request = per_request

    def know(self, described: list[dict[str, Any]]) -> None:
        self._known = list(dict.fromkeys(t["toolset"] for t in described))

    def current(self) -> frozenset[str]:
        """The selection now (a ValidationFailed names a toolset that is not one)."""
        if self.per_request and requested.get() is not None:
            return toolsets.choose(requested.get(), self._known, field=HEADER)
        if self._chosen is None:
            self._chosen = toolsets.choose(self._start, self._known)
        return self._chosen

    def enable(self, names: list[str]) -> bool:
        """Add toolsets to a session's selection; whether its listing changed."""
        if self.per_request:
            return False
        before = self.current()
        self._chosen = before | frozenset(names)
        return self._chosen != before

    def filter(self, described: list[dict[str, Any]]) -> list[dict[str, Any]]:
        chosen = self.current()
        return [t for t in described
                if toolsets.listed_as(t["toolset"], t["everyday"], chosen)]


class Changes:
    """The server's tools-list-changed announcements: to the asking session's own channel
    (handshake era; the SDK drops it on 2026-07-28 connections, which hear it on a listen
    stream) and to every open `subscriptions/listen` stream."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()

    async def announce(self, ctx: ServerRequestContext[Any]) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await ctx.session.send_tool_list_changed()  # (the client may have left)
        await self.bus.publish(ToolsListChanged())


class Both:
    """A listen stream's bus: its own events (alerts) and the server's list changes."""

    def __init__(self, own: InMemorySubscriptionBus, shared: InMemorySubscriptionBus | None
                 ) -> None:
        self._own = own
        self._shared = shared

    async def publish(self, event: ServerEvent) -> None:
        await self._own.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        ends = [self._own.subscribe(listener)]
        if self._shared is not None:
            ends.append(self._shared.subscribe(listener))

        def unsubscribe() -> None:
            for end in ends:
                end()

        return unsubscribe
