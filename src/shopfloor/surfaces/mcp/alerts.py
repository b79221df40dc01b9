"""Alerts on the MCP surface: three JSON resources, and `subscriptions/listen` streams
that say when one of them changed.

A listen stream follows the outbox's alert events (written by whichever worker saw the
change, on any server), so a client connected to one server hears about a change
another server's worker found. Each stream looks once a second while it is open; with
no stream open nothing is polled. A stream lasts until its client leaves or the server
stops: `end_streams` (from the server's SIGTERM) ends every open one with its final
message, so no client holds a stopping server open.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated

from shopfloor.surfaces.mcp.toolsets import Both

if TYPE_CHECKING:
    from shopfloor.app.alerts import AlertFeed
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry

log = logging.getLogger("shopfloor.mcp")
JSON = "application/json"
Listen = Callable[[ServerRequestContext[Any], types.SubscriptionsListenRequestParams],
                  Awaitable[types.SubscriptionsListenResult]]


def resources() -> list[types.Resource]:
    from shopfloor.app import alerts  # (the alerts load the store: not at start-up)

    return [types.Resource(uri=alerts.uri_of(name), name=f"alert-{name}", title=title,
                           description=f"{title} (JSON); subscribe to hear of changes",
                           mime_type=JSON)
            for name, (title, _) in alerts.ALERTS.items()]


def is_alert(uri: str) -> bool:
    from shopfloor.app import alerts

    return alerts.name_of(uri) is not None


async def alert_resource(registry: Registry, uri: str, actor: Actor) -> types.ReadResourceResult:
    import json

    from shopfloor.app import alerts

    name = alerts.name_of(uri)
    assert name is not None
    shown = await anyio.to_thread.run_sync(alerts.content, registry, name, actor)
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=uri, mime_type=JSON, text=json.dumps(shown, default=str))])


_OPEN: set[ListenHandler] = set()
"""The listen streams open in this process: a signal stops the whole process, so it ends
every one of them, whichever server (app) it belongs to."""


def end_streams() -> int:
    """End every open listen stream gracefully (its final result sent); on the event
    loop's thread. How many there were."""
    open_now = list(_OPEN)
    for handler in open_now:
        handler.close()
    return len(open_now)


def listener(registry_of: Callable[[], Awaitable[Registry]], *, poll: float = 1.0,
             changes: InMemorySubscriptionBus | None = None) -> Listen:
    """The `subscriptions/listen` handler: the SDK's own stream (ack first, then one
    `notifications/resources/updated` per change the client asked for), fed by a feed
    over the outbox for as long as the stream is open; `changes` carries the server's
    tools-list changes (mcp_toolsets)."""

    async def listen(ctx: ServerRequestContext[Any],
                     params: types.SubscriptionsListenRequestParams
                     ) -> types.SubscriptionsListenResult:
        from shopfloor.app import alerts

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
        handler = ListenHandler(Both(bus, changes))
        _OPEN.add(handler)
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            try:
                ended.append(await handler(ctx, params))
            finally:
                _OPEN.discard(handler)
                tg.cancel_scope.cancel()
        return ended[0]

    return listen


class LegacySubscriptions:
    """`resources/subscribe` for handshake-era (2025-11-25) sessions, which have no
    `subscriptions/listen`: a subscribed session is sent `notifications/resources/updated`
    on its own channel. Only where a session lasts (stdio); stateless HTTP has no channel
    to send on afterwards. One thread follows the outbox while anyone is subscribed."""

    def __init__(self, registry_of: Callable[[], Awaitable[Registry]], *, poll: float = 1.0
                 ) -> None:
        self._registry_of = registry_of
        self._poll = poll
        self._subs: dict[Any, set[str]] = {}
        self._lock = threading.Lock()
        self._feed: AlertFeed | None = None
        self._token: Any = None
        self._thread: threading.Thread | None = None

    async def subscribe(self, ctx: ServerRequestContext[Any],
                        params: types.SubscribeRequestParams) -> types.EmptyResult:
        if self._feed is None:
            from shopfloor.app import alerts

            self._feed = await anyio.to_thread.run_sync(alerts.AlertFeed,
                                                        await self._registry_of())
        self._token = anyio.lowlevel.current_token()
        with self._lock:
            self._subs.setdefault(ctx.session, set()).add(str(params.uri))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._follow, daemon=True,
                                                name="resource-subscriptions")
                self._thread.start()
        return types.EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any],
                          params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        with self._lock:
            uris = self._subs.get(ctx.session, set())
            uris.discard(str(params.uri))
            if not uris:
                self._subs.pop(ctx.session, None)
        return types.EmptyResult()

    def _follow(self) -> None:
        while True:
            time.sleep(self._poll)
            with self._lock:
                if not self._subs:
                    self._thread = None
                    return
                subs = {session: set(uris) for session, uris in self._subs.items()}
            assert self._feed is not None
            try:
                changed = self._feed.changed()
            except Exception:
                log.warning("could not read the alert events", exc_info=True)
                continue
            for session, uris in subs.items():
                for uri in changed:
                    if uri not in uris:
                        continue
                    try:
                        anyio.from_thread.run(session.send_resource_updated, uri,
                                              token=self._token)
                    except Exception:  # the session ended: forget it
                        with self._lock:
                            self._subs.pop(session, None)
                        break


def handlers(registry_of: Callable[[], Awaitable[Registry]], *, lasting_sessions: bool,
             changes: InMemorySubscriptionBus | None = None) -> dict[str, Any]:
    """The server's subscription handlers: `subscriptions/listen` everywhere, and
    `resources/subscribe` where sessions last (stdio)."""
    found: dict[str, Any] = {"on_subscriptions_listen": listener(registry_of,
                                                                  changes=changes)}
    if lasting_sessions:
        subs = LegacySubscriptions(registry_of)
        found.update(on_subscribe_resource=subs.subscribe,
                     on_unsubscribe_resource=subs.unsubscribe)
    return found
