"""Alerts as MCP resources, heard through `subscriptions/listen` by the official SDK client.

In process and over streamable HTTP: the client reads `shopfloor://alerts/low-stock`,
listens to it, a write makes an item short, a worker's alert check records the change,
and the client hears `notifications/resources/updated` for that resource (and nothing for
a resource it did not ask for), then reads the new content. Over HTTP the change is found
by one server's worker and heard by a client of another server: the outbox carries it.
The other two alerts change the same way: a lot received to expire within 30 days
(`expiring-lots`), an open order past its date (`late-orders`), each one change and one
`alert.changed` event, and the resource then lists it.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated

from shopfloor.app import alerts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.mcp.surface import build_server
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import serving
from tests.surfaces.mcp.clients import http_client

LOW = "shopfloor://alerts/low-stock"
LATE = "shopfloor://alerts/late-orders"
EXPIRING = "shopfloor://alerts/expiring-lots"


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    alerts.check(r)  # the first look: nothing to attend to, no news
    return r


async def _content(client: Client, uri: str) -> dict[str, Any]:
    got = await client.read_resource(uri)
    (text,) = got.contents
    assert text.mime_type == "application/json"
    return json.loads(text.text)  # type: ignore[union-attr]


async def _next(sub: Any, timeout: float) -> Any:
    with anyio.fail_after(timeout):
        async for event in sub:
            return event
    return None


async def _nothing(sub: Any, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        async for _ in sub:
            return False
    return True


def test_a_listening_client_hears_the_alert_it_asked_for_in_process(reg: Registry) -> None:
    async def run() -> None:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(Client(build_server(reg, lambda: ADMIN)))
            listed = {str(r.uri): r for r in (await client.list_resources()).resources}
            assert {LOW, LATE, EXPIRING} <= set(listed)
            assert (await _content(client, LOW))["count"] == 0
            low = await stack.enter_async_context(client.listen(resource_subscriptions=[LOW]))
            late = await stack.enter_async_context(client.listen(
                resource_subscriptions=[LATE]))
            apply(reg, "modify_item", sku="M1", reorder_point="5")
            assert (await anyio.to_thread.run_sync(alerts.check, reg))[0] == 1
            event = await _next(low, timeout=10)
            assert event == ResourceUpdated(uri=LOW)
            shown = await _content(client, LOW)
            assert shown["count"] == 1 and shown["rows"][0]["sku"] == "M1"
            assert await _nothing(late, 1.5), "a stream heard a resource it did not ask for"
            # unchanged content: checked again, nothing recorded, nothing heard
            assert (await anyio.to_thread.run_sync(alerts.check, reg))[0] == 0
            assert await _nothing(low, 1.5)

    anyio.run(run)


def test_a_client_of_one_server_hears_a_change_another_servers_worker_found(
        reg: Registry, sqlite_url: str) -> None:
    settings = Settings(database_url=sqlite_url)
    token = Authenticator(reg, settings).mint("viewer-vic", ["viewer"], 600)
    working = open_registry(settings)

    async def run(listening_url: str) -> None:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(http_client(listening_url, token))
            sub = await stack.enter_async_context(client.listen(
                resource_subscriptions=[LOW, EXPIRING]))
            await anyio.to_thread.run_sync(
                lambda: apply(reg, "modify_item", sku="M2", reorder_point="3"))
            event = await _next(sub, timeout=20)  # the other server's worker finds it
            assert event == ResourceUpdated(uri=LOW)
            shown = await _content(client, LOW)
            assert [r["sku"] for r in shown["rows"]] == ["M2"]

    try:
        with serving(build_app(working, settings, run_worker=True)), \
                serving(build_app(reg, settings, run_worker=False)) as url:
            anyio.run(run, url)
    finally:
        working.store.dispose()


def test_a_handshake_era_client_over_stdio_subscribes_and_hears_the_update(
        reg: Registry, sqlite_url: str) -> None:
    """2025-11-25 has no `subscriptions/listen`: `resources/subscribe`, then
    `notifications/resources/updated` on the session (stdio, where a session lasts)."""
    import os
    import sys
    import warnings

    from mcp import StdioServerParameters

    heard: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            heard.append(str(root.params.uri))
            arrived.set()

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shopfloor.surfaces.cli", "mcp"],
        env={**os.environ, "SHOPFLOOR_DATABASE_URL": sqlite_url})

    async def run() -> None:
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            caps = client.server_capabilities.resources
            assert caps is not None and caps.subscribe
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource(LOW)
            apply(reg, "modify_item", sku="P1", reorder_point="2")
            assert (await anyio.to_thread.run_sync(alerts.check, reg))[0] == 1
            with anyio.fail_after(20):
                await arrived.wait()
            assert heard == [LOW]
            assert [r["sku"] for r in (await _content(client, LOW))["rows"]] == ["P1"]

    anyio.run(run)


def _alert_events(reg: Registry) -> list[dict[str, Any]]:
    got = reg.invoke("list_events", {"types": ["alert.changed"]}, ADMIN)["events"]
    return [e["data"] for e in got]


def _heard_only(reg: Registry, uri: str, make: Any) -> dict[str, Any]:
    """A client listening to `uri` (and to low-stock): `make(reg)` is done, one check
    records exactly one change with its `alert.changed` event, the client hears `uri`
    and nothing else, and a second check finds nothing new. The content it then reads."""
    async def run() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(Client(build_server(reg, lambda: ADMIN)))
            assert (await _content(client, uri))["count"] == 0
            sub = await stack.enter_async_context(client.listen(resource_subscriptions=[uri]))
            low = await stack.enter_async_context(client.listen(resource_subscriptions=[LOW]))
            told = len(_alert_events(reg))
            await anyio.to_thread.run_sync(make, reg)
            assert (await anyio.to_thread.run_sync(alerts.check, reg))[0] == 1
            name = uri.removeprefix("shopfloor://alerts/")
            assert _alert_events(reg)[told:] == [{"alert": name, "uri": uri, "count": 1}]
            assert await _next(sub, timeout=10) == ResourceUpdated(uri=uri)
            shown = await _content(client, uri)
            assert await _nothing(low, 1.5), "low-stock did not change, yet was heard"
            assert (await anyio.to_thread.run_sync(alerts.check, reg))[0] == 0
            assert len(_alert_events(reg)) == told + 1
            return shown

    return anyio.run(run)


def _day(days: int) -> str:
    return (date.today() + timedelta(days=days)).isoformat()


def test_a_lot_received_to_expire_within_30_days_changes_the_expiring_lots_alert(
        reg: Registry) -> None:
    apply(reg, "create_item", sku="FLOUR", name="Flour", kind="material",
          batch_tracked=True, purchase_price="2")

    def receive(lot: str, expiry: str) -> None:
        po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
                   lines=[{"sku": "FLOUR", "quantity": "4", "unit_price": "2"}])
        apply(reg, "receive_purchase_order", number=po["number"], lines=[
            {"sku": "FLOUR", "quantity": "4", "lots": [{"lot": lot, "expiry": expiry}]}])

    receive("LATER", _day(90))  # outside the 30 days: not an alert
    assert alerts.check(reg)[0] == 0
    shown = _heard_only(reg, EXPIRING, lambda r: receive("SOON", _day(10)))
    assert (shown["alert"], shown["count"]) == ("expiring-lots", 1)
    assert [(r["sku"], r["lot"], r["location"], r["expiry"], Decimal(r["on_hand"]))
            for r in shown["rows"]] == [("FLOUR", "SOON", "MAIN", _day(10), Decimal(4))]


def test_an_open_order_past_its_due_date_changes_the_late_orders_alert(
        reg: Registry) -> None:
    apply(reg, "create_sales_order", customer="Bob", location="MAIN", due_date=_day(5),
          lines=[{"sku": "P1", "quantity": "1"}])  # not due yet: not an alert
    assert alerts.check(reg)[0] == 0
    late: list[str] = []

    def order(r: Registry) -> None:
        late.append(apply(r, "create_purchase_order", supplier="Acme", location="MAIN",
                          expected_date=_day(-3), lines=[
                              {"sku": "M1", "quantity": "2", "unit_price": "1"}])["number"])

    shown = _heard_only(reg, LATE, order)
    assert (shown["alert"], shown["count"]) == ("late-orders", 1)
    assert [(r["kind"], r["number"], r["partner"], r["due_date"]) for r in shown["rows"]] == \
        [("purchase_order", late[0], "Acme", _day(-3))]
