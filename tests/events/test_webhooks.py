"""The outbox and its webhooks, on SQLite and PostgreSQL, against a real HTTP receiver.

An applied write and a finished job each leave one event, in the transaction that made
them; a webhook receives them signed by the Standard Webhooks specification (checked with
the `standardwebhooks` library itself); a receiver that fails first gets the same event
again with the same `webhook-id`; an accepted event is never sent again.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update
from standardwebhooks import Webhook

from shopfloor.app.delivery import Deliverer
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry, worker_for
from shopfloor.kernel.errors import Forbidden, ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store import deliveries
from shopfloor.store.tables import WebhookDelivery
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.receiver import Receiver, receiving

OPERATOR = Actor.of("olga", "operator")


@pytest.fixture
def reg(db_url: str) -> Iterator[Registry]:
    registry = open_registry(Settings(database_url=db_url, webhook_allow_private=True))
    yield registry
    registry.store.dispose()


@contextmanager
def delivering(registry: Registry, name: str = "w1", lease: float = 30.0
               ) -> Iterator[Deliverer]:
    d = Deliverer(registry.store, name=name, allow_private=True,
                  lease=timedelta(seconds=lease), timeout=5.0, poll=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=d.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield d
    finally:
        stop.set()
        thread.join(20)


def final_events(registry: Registry, n: int, **query: Any) -> list[dict[str, Any]]:
    """The events, once at least `n` are final: on PostgreSQL an event is listed once
    every write transaction older than it has ended (another test's, on a shared server,
    included)."""
    deadline = time.monotonic() + 20
    while True:
        events = registry.invoke("list_events", query, OPERATOR)["events"]
        if len(events) >= n or time.monotonic() > deadline:
            return list(events)
        time.sleep(0.05)


def _hook(registry: Registry, rec: Receiver, events: list[str]) -> dict[str, Any]:
    return apply(registry, "create_webhook", url=rec.url, events=events)


def _all_due_now(registry: Registry) -> None:
    """The clock moved on: every delivery's next attempt is due now."""
    with registry.store.writing() as s:
        s.execute(update(WebhookDelivery).values(next_attempt_at=deliveries.now()))
        s.commit()


def _retry_scheduled(registry: Registry, attempts: int) -> None:
    """Wait (with a deadline) until a failed attempt is recorded with its retry time."""
    deadline = time.monotonic() + 20
    while not any(d["attempts"] >= attempts and d["status"] == "pending" for d in
                  registry.invoke("list_webhook_deliveries", {}, ADMIN)["deliveries"]):
        assert time.monotonic() < deadline, "the failed attempt was not recorded"
        time.sleep(0.02)


def _sent_once_all_due(registry: Registry) -> list[int]:
    """What a deliverer sends with every delivery due and every lease expired, three
    passes: what a wrong late repeat would need, without waiting for it to come."""
    _all_due_now(registry)
    deliveries.release_expired(registry.store)
    probe = Deliverer(registry.store, name="probe", allow_private=True, timeout=5.0)
    try:
        return [probe.step() for _ in range(3)]
    finally:
        probe.close()


def test_a_failed_delivery_comes_again_with_the_same_id_and_an_accepted_one_never(
        reg: Registry) -> None:
    with receiving([500]) as rec:
        hook = _hook(reg, rec, ["operation.applied"])
        assert hook["secret"].startswith("whsec_")
        done = Given(reg).location()
        event = final_events(reg, 2, types=["operation.applied"])[-1]
        assert event["data"] == {"operation_id": done["operation_id"],
                                 "tool": "create_location", "summary": done["summary"],
                                 "actor": "alice"}
        with delivering(reg):
            assert rec.wait_for(1, timeout=30)
            _retry_scheduled(reg, 1)
            _all_due_now(reg)  # its retry time (5 s on: the next test) has come
            assert rec.wait_for(2, timeout=30), "the failed event was not sent again"
            first, second = rec.received[:2]
            assert (first.answered, second.answered) == (500, 200)
            arrived = [float(r.headers["webhook-timestamp"]) for r in rec.received[:2]]
            assert arrived[1] - arrived[0] < 30  # the first retry within 30 s
        assert _sent_once_all_due(reg) == [0, 0, 0]  # the accepted event never again
        assert len(rec.received) == 2
        for r in rec.received:
            assert r.headers["webhook-id"] == event["id"]
            body = Webhook(hook["secret"]).verify(r.body, r.headers)
            assert body == event
        rows = reg.invoke("list_webhook_deliveries", {"webhook_id": hook["webhook_id"]},
                          ADMIN)["deliveries"]
        assert [(d["event_id"], d["status"], d["attempts"], d["last_status"]) for d in rows] \
            == [(event["id"], "delivered", 2, 200)]


def _when(stamp: str) -> datetime:
    at = datetime.fromisoformat(stamp)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def test_a_receiver_too_slow_to_answer_gets_the_event_again_and_then_never(
        reg: Registry) -> None:
    """The receiver holds its first answer until the deliverer's timeout has passed: the
    delivery is recorded as a timeout with a retry time (the schedule's first, 5 s on);
    once due, the same event goes again with the same `webhook-id` and, answered in time,
    is delivered; no later pass sends it again."""
    with receiving(held=True) as rec:
        hook = _hook(reg, rec, ["operation.applied"])
        Given(reg).location()
        event = final_events(reg, 2, types=["operation.applied"])[-1]
        d = Deliverer(reg.store, name="w1", allow_private=True, timeout=0.5)
        try:
            sent_at = datetime.now(UTC)
            assert d.step() == 1
            (row,) = reg.invoke("list_webhook_deliveries", {"webhook_id": hook["webhook_id"]},
                                ADMIN)["deliveries"]
            assert (row["event_id"], row["status"], row["attempts"], row["last_status"]) == \
                (event["id"], "pending", 1, None)
            assert "Timeout" in row["last_error"], row["last_error"]
            retry_at = _when(row["next_attempt_at"])
            assert sent_at + timedelta(seconds=4) < retry_at < \
                datetime.now(UTC) + timedelta(seconds=6)
            assert rec.wait_held(1, timeout=10)  # it arrived; its answer is still held
            rec.release()  # answered only now, after the sender gave up
            assert rec.wait_for(1, timeout=10)
            assert d.step() == 0 and len(rec.received) == 1  # not due yet: nothing sent
            with reg.store.writing() as s:  # the 5 s have passed
                s.execute(update(WebhookDelivery).values(next_attempt_at=deliveries.now()))
                s.commit()
            assert d.step() == 1
            (row,) = reg.invoke("list_webhook_deliveries", {"webhook_id": hook["webhook_id"]},
                                ADMIN)["deliveries"]
            assert (row["status"], row["attempts"], row["last_status"], row["last_error"]) \
                == ("delivered", 2, 200, None)
            with reg.store.writing() as s:  # due or not, an accepted one is not sent again
                s.execute(update(WebhookDelivery).values(next_attempt_at=deliveries.now()))
                s.commit()
            deliveries.release_expired(reg.store)
            assert [d.step() for _ in range(3)] == [0, 0, 0]
        finally:
            d.close()
        assert len(rec.received) == 2  # every send above was waited for: none in flight
        for r in rec.received:
            assert r.headers["webhook-id"] == event["id"]
            assert Webhook(hook["secret"]).verify(r.body, r.headers) == event


def test_a_signature_made_with_another_secret_does_not_verify(reg: Registry) -> None:
    from standardwebhooks.webhooks import WebhookVerificationError

    with receiving() as rec:
        _hook(reg, rec, ["operation.applied"])
        other = _hook(reg, rec, ["job.finished"])
        Given(reg).location()
        with delivering(reg):
            assert rec.wait_for(1, timeout=20)
        with pytest.raises(WebhookVerificationError):
            Webhook(other["secret"]).verify(rec.received[0].body, rec.received[0].headers)


def test_events_go_only_to_webhooks_that_want_them(reg: Registry) -> None:
    """(Deliveries go out a few at a time, so they may arrive in any order: the event's
    `at` and list_events give the order.)"""
    with receiving() as ops, receiving() as jobs:
        _hook(reg, ops, ["operation.applied"])
        hook = _hook(reg, jobs, ["job.finished"])
        for i in range(5):
            apply(reg, "create_location", code=f"L{i}", name=f"Loc {i}")
        started = reg.invoke("run_mrp", {}, ADMIN)
        assert worker_for(reg).run_one(started["job_id"])
        with delivering(reg):
            assert ops.wait_for(5, timeout=20) and jobs.wait_for(1, timeout=20)
        got = sorted(json.loads(r.body)["data"]["summary"] for r in ops.received)
        assert got == sorted([*(f"Create location L{i} (Loc {i})" for i in range(5)),
                              f"Webhook {hook['webhook_id']} to {jobs.url}"])
        (job,) = jobs.received
        assert b'"type":"job.finished"' in job.body and started["job_id"].encode() in job.body


def test_the_secret_is_shown_once(reg: Registry) -> None:
    made = reg.invoke("create_webhook", {"url": "http://127.0.0.1:9/x", "preview": False,
                                         "events": ["alert.changed"],
                                         "idempotency_key": "hook-1"}, ADMIN)
    assert made["secret"].startswith("whsec_")
    again = reg.invoke("create_webhook", {"url": "http://127.0.0.1:9/x", "preview": False,
                                          "events": ["alert.changed"],
                                          "idempotency_key": "hook-1"}, ADMIN)
    assert again["replayed"] and again["webhook_id"] == made["webhook_id"]
    assert again["secret"] is None
    logged = reg.invoke("get_operation_log", {"operation_id": made["operation_id"]},
                        ADMIN)["entries"][0]
    assert made["secret"] not in str(logged)
    listed = reg.invoke("list_webhooks", {}, ADMIN)["webhooks"]
    assert made["secret"] not in str(listed)
    preview = reg.invoke("create_webhook", {"url": "http://127.0.0.1:9/x",
                                            "events": ["alert.changed"]}, ADMIN)
    assert "whsec_" not in str(preview)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:8080/", "http://169.254.169.254/latest",
    "http://10.1.2.3/", "https://192.168.0.10/x", "http://172.16.5.5/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0x7f.1/", "http://0/",
    "http://metadata.internal/", "http://router.local/", "ftp://example.com/x",
    "file:///etc/passwd", "gopher://example.com/", "http://user:pw@example.com/",
    "javascript:alert(1)", "http:///nohost"])
def test_private_and_odd_urls_are_refused_naming_url(sqlite_url: str, url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    try:
        with pytest.raises(ShopfloorError) as caught:
            apply(reg, "create_webhook", url=url, events=["operation.applied"])
        assert caught.value.code == "validation_error" and caught.value.field == "url", url
        assert reg.invoke("list_webhooks", {}, ADMIN)["webhooks"] == []
    finally:
        reg.store.dispose()


def test_public_urls_are_taken_and_private_ones_with_the_setting(sqlite_url: str) -> None:
    strict = open_registry(Settings(database_url=sqlite_url))
    try:
        made = apply(strict, "create_webhook", url="https://hooks.example.com/in",
                     events=["operation.applied"])
        assert made["url"] == "https://hooks.example.com/in"
        apply(strict, "create_webhook", url="http://93.184.216.34:8080/x",
              events=["job.finished"])
    finally:
        strict.store.dispose()
    loose = open_registry(Settings(database_url=sqlite_url, webhook_allow_private=True))
    try:
        apply(loose, "create_webhook", url="http://127.0.0.1:9/x", events=["job.finished"])
        with pytest.raises(ShopfloorError) as caught:  # still http(s) only
            apply(loose, "create_webhook", url="file:///etc/passwd", events=["job.finished"])
        assert caught.value.field == "url"
    finally:
        loose.store.dispose()


def test_delivery_refuses_a_name_that_resolves_to_a_private_address(reg: Registry) -> None:
    """A name is checked again as each delivery connects (its answer may have changed
    since it was accepted): `localhost`, taken by a deployment that allowed private
    addresses then, is refused by a deliverer that does not, by what it resolves to."""
    with receiving() as rec:
        port = rec.url.split(":")[2].split("/")[0]
        _hook(reg, rec, ["operation.applied"])
        hook = apply(reg, "create_webhook", url=f"http://localhost:{port}/hook",
                     events=["operation.applied"])
        Given(reg).location()
        final_events(reg, 3)  # on PostgreSQL, listed once older transactions have ended
        strict = Deliverer(reg.store, name="strict", allow_private=False, timeout=2.0)
        try:
            strict.step()
        finally:
            strict.close()
        assert rec.received == []
        rows = reg.invoke("list_webhook_deliveries", {"webhook_id": hook["webhook_id"]},
                          ADMIN)["deliveries"]
        assert rows[0]["status"] == "pending" and "not a public address" in rows[0][
            "last_error"]


def test_a_killed_workers_deliveries_are_sent_again_after_its_lease(reg: Registry) -> None:
    with receiving() as rec:
        _hook(reg, rec, ["operation.applied"])
        Given(reg).location()
        final_events(reg, 2)
        deliveries.fan_out(reg.store)
        held = deliveries.claim(reg.store, "dead-worker", 10, timedelta(seconds=1))
        assert len(held) == 1  # taken, never sent: the worker died
        assert deliveries.claim(reg.store, "w1", 10, timedelta(seconds=30)) == []
        with delivering(reg, lease=1.0):
            assert rec.wait_for(1, timeout=20)
        assert _sent_once_all_due(reg) == [0, 0, 0]
        assert len(rec.received) == 1
        assert rec.received[0].headers["webhook-id"] == held[0].event_id


def test_a_deleted_webhook_gets_nothing_more(reg: Registry) -> None:
    with receiving([500]) as rec:
        hook = _hook(reg, rec, ["operation.applied"])
        Given(reg).location()
        with delivering(reg):
            assert rec.wait_for(1, timeout=20)
            _retry_scheduled(reg, 1)
            apply(reg, "delete_webhook", webhook_id=hook["webhook_id"])
            Given(reg).location("SHOP")
            final_events(reg, 3)
        assert _sent_once_all_due(reg) == [0, 0, 0]  # past the first retry's 5 s
        assert len(rec.received) == 1
        rows = reg.invoke("list_webhook_deliveries", {"webhook_id": hook["webhook_id"]},
                          ADMIN)["deliveries"]
        assert [d["status"] for d in rows] == ["failed"]
        assert reg.invoke("list_webhooks", {}, ADMIN)["webhooks"] == []


def test_list_events_pages_in_order_and_needs_the_operator_role(reg: Registry) -> None:
    for i in range(7):
        apply(reg, "create_location", code=f"L{i}", name=f"Loc {i}")
    final_events(reg, 7)
    seen: list[str] = []
    cursor = None
    while True:
        page = reg.invoke("list_events", {"limit": 3, **({"cursor": cursor} if cursor else {})},
                          OPERATOR)
        if not page["events"]:
            break
        seen += [e["data"]["summary"] for e in page["events"]]
        cursor = page["next_cursor"]
    assert seen == [f"Create location L{i} (Loc {i})" for i in range(7)]
    assert reg.invoke("list_events", {"cursor": cursor}, OPERATOR)["next_cursor"] == cursor
    with pytest.raises(Forbidden):
        reg.invoke("list_events", {}, Actor.of("vic", "viewer"))
    with pytest.raises(Forbidden):
        reg.invoke("list_webhooks", {}, OPERATOR)
    with pytest.raises(ShopfloorError) as caught:
        reg.invoke("list_events", {"cursor": "1; drop table events"}, OPERATOR)
    assert caught.value.field == "cursor"


def test_a_refused_apply_and_a_preview_leave_no_event(reg: Registry) -> None:
    Given(reg).location()
    before = final_events(reg, 1)
    reg.invoke("create_location", {"code": "SHOP", "name": "Shop"}, ADMIN)  # a preview
    with pytest.raises(ShopfloorError):
        apply(reg, "create_location", code="MAIN", name="Main again")
    assert reg.invoke("list_events", {}, OPERATOR)["events"] == before
