"""Alerts on the MCP surface: three JSON resources, and `subscriptions/listen` streams
that say when one of them changed.

A listen stream follows the outbox's alert events (written by whichever worker saw the
change, on any server), so a client connected to one server hears about a change
another server's worker found. Each stream looks once a second while it is open; with
no stream open nothing is polled.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated

from shopfloor.app import alerts

if TYPE_CHECKING:
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry

log = logging.getLogger("shopfloor.mcp")
JSON = "application/json"
Listen = Callable[[ServerRequestContext[Any], types.SubscriptionsListenRequestParams],
                  Awaitable[types.SubscriptionsListenResult]]


def resources() -> list[types.Resource]:
    return [types.Resource(uri=alerts.uri_of(name), name=f"alert-{name}", title=title,
                           description=f"{title} (JSON); subscribe to hear of changes",
                           mime_type=JSON)
            for name, (title, _) in alerts.ALERTS.items()]


def is_alert(uri: str) -> bool:
    return alerts.name_of(uri) is not None


async def read(registry: Registry, uri: str, actor: Actor) -> types.ReadResourceResult:
    import json

    name = alerts.name_of(uri)
    assert name is not None
    shown = await anyio.to_thread.run_sync(alerts.content, registry, name, actor)
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=uri, mime_type=JSON, text=json.dumps(shown, default=str))])


def listener(registry_of: Callable[[], Awaitable[Registry]], *, poll: float = 1.0
             ) -> Listen:
    """The `subscriptions/listen` handler: the SDK's own stream (ack first, then one
    `notifications/resources/updated` per change the client asked for), fed by a feed
    over the outbox for as long as the stream is open."""

    async def listen(ctx: ServerRequestContext[Any],
                     params: types.SubscriptionsListenRequestParams
                     ) -> types.SubscriptionsListenResult:
        registry = await registry_of()
        feed = await anyio.to_thread.run_sync(alerts.AlertFeed, registry)
        bus = InMemorySubscriptionBus()

        async def follow() -> None:
            while True:
                await anyio.sleep(poll)
                try:
                    changed = await anyio.to_thread.run_sync(feed.changed)
                except Exception:  # the database away for a moment: look again later
                    log.warning("could not read the alert events", exc_info=True)
                    continue
                for uri in changed:
                    await bus.publish(ResourceUpdated(uri=uri))

        ended: list[types.SubscriptionsListenResult] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            try:
                ended.append(await ListenHandler(bus)(ctx, params))
            finally:
                tg.cancel_scope.cancel()
        return ended[0]

    return listen
