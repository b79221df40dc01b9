"""Webhook addresses decided once (issue 30, item 9): a URL is written the one way a
resolver reads it when the webhook is made, refused when it can never be delivered to,
and each delivery resolves its name once, checks every answer and connects to the
address it checked, keeping the name as the Host header (and TLS's server name).

The machine has no DNS: a delivery test hands the deliverer a resolver of its own (the
outside world's part, not ours) that answers a made-up name, so any second lookup by
the HTTP client itself could only fail.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from shopfloor.app.delivery import Deliverer
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, registry_at
from tests.receiver import receiving


@pytest.fixture
def strict(sqlite_url: str) -> Iterator[Registry]:
    with registry_at(sqlite_url) as reg:
        yield reg


@pytest.fixture
def loose(db_url: str) -> Iterator[Registry]:
    with registry_at(db_url, webhook_allow_private=True) as reg:
        yield reg


@pytest.mark.parametrize("url", [
    "http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/hook",  # full-width
    "http://[::127.0.0.1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/",
    "http://[64:ff9b::a9fe:a9fe]/latest", "http://[2002:7f00:1::]/",
    "http://127.0.0.1.nip.io/", "http://10-0-0-1.sslip.io/x", "http://7f000001.nip.io/",
    "http://:@example.com/", "http://@example.com/", "http://\uff4c\uff4f\uff43\uff41\uff4c"
    "\uff48\uff4f\uff53\uff54/", "http://127\u30020\u30020\u30021/"])
def test_urls_that_can_never_deliver_are_refused(strict: Registry, url: str) -> None:
    with pytest.raises(ShopfloorError) as caught:
        apply(strict, "create_webhook", url=url, events=["operation.applied"])
    assert caught.value.code == "validation_error" and caught.value.field == "url", url
    assert strict.invoke("list_webhooks", {}, ADMIN)["webhooks"] == []


@pytest.mark.parametrize(("given", "kept"), [
    ("HTTPS://B\u00fccher.Example/in", "https://xn--bcher-kva.example/in"),
    ("http://\uff19\uff13.184.216.34:\uff18\uff10\uff18\uff10/x", "http://93.184.216.34:8080/x"),
    ("https://hooks.example.com", "https://hooks.example.com/"),
    ("http://[2606:2800:0220:0001:0248:1893:25c8:1946]/", "http://[2606:2800:220:1:248:1893:25c8:1946]/"),
])
def test_a_url_is_kept_as_it_will_be_delivered_to(strict: Registry, given: str,
                                                    kept: str) -> None:
    made = apply(strict, "create_webhook", url=given, events=["operation.applied"])
    assert made["url"] == kept
    assert [h["url"] for h in strict.invoke("list_webhooks", {}, ADMIN)["webhooks"]] == [kept]


class Resolver:
    """A DNS that answers one name, counting the questions."""

    def __init__(self, name: str, *addresses: str) -> None:
        self.name, self.addresses, self.asked = name, addresses, 0

    def __call__(self, host: str, port: int, *args: Any, **kw: Any) -> list[Any]:
        if host != self.name:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        self.asked += 1
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, port)) for a in self.addresses]


def _deliver(reg: Registry, d: Deliverer, hook: str) -> list[dict[str, Any]]:
    Given(reg).location()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # on PostgreSQL an event waits for older writes
        d.step()
        rows: list[dict[str, Any]] = reg.invoke(
            "list_webhook_deliveries", {"webhook_id": hook}, ADMIN)["deliveries"]
        if rows and rows[0]["attempts"]:
            return rows
        time.sleep(0.05)
    raise AssertionError("no delivery was tried")


REBOUND = "hooks.rebind.test"


def _delivered_by_name(reg: Registry, rec: Any, answers: tuple[str, ...],
                       **deliverer: Any) -> tuple[list[dict[str, Any]], str, Resolver]:
    """A webhook to the receiver `rec` by the name REBOUND, which the DNS answers with
    `answers`, and its first delivery tried by a Deliverer of these settings: (its
    deliveries, the receiver's port, the DNS)."""
    port = rec.url.split(":")[2].split("/")[0]
    hook = apply(reg, "create_webhook", url=f"http://{REBOUND}:{port}/hook",
                 events=["operation.applied"])["webhook_id"]
    dns = Resolver(REBOUND, *answers)
    d = Deliverer(reg.store, resolve=dns, **deliverer)
    try:
        return _deliver(reg, d, hook), port, dns
    finally:
        d.close()


def test_a_delivery_connects_to_the_address_it_checked(loose: Registry) -> None:
    with receiving() as rec:
        rows, port, dns = _delivered_by_name(loose, rec, ("127.0.0.1",), name="pin",
                                             allow_private=True, timeout=5.0)
        assert rows[0]["status"] == "delivered", rows
        assert rec.wait_for(1, 5)
        sent = {k.lower(): v for k, v in rec.received[0].headers.items()}
        assert sent["host"] == f"{REBOUND}:{port}"
        assert dns.asked == 1  # once, by us: the client connected to what we checked


def test_every_answer_is_checked_before_connecting(loose: Registry) -> None:
    with receiving() as rec:
        rows, _, _ = _delivered_by_name(loose, rec, ("93.184.216.34", "127.0.0.1"),
                                        name="strict", allow_private=False, timeout=2.0)
        assert rows[0]["status"] == "pending" and "127.0.0.1" in rows[0]["last_error"], rows
        assert rec.received == []


def test_a_proposed_webhook_shows_no_id_but_the_one_approval_makes(loose: Registry) -> None:
    """Issue 30, item 11: the proposal's preview named an id other than the one made."""
    agent = Actor.of("agent", "admin", needs_approval=True)
    held = apply(loose, "create_webhook", agent, url="http://127.0.0.1:9/x",
                 events=["job.finished"])
    shown = loose.invoke("get_proposal", {"proposal_id": held["proposal_id"]},
                         ADMIN)["preview"]
    made = apply(loose, "approve_proposal", ADMIN, proposal_id=held["proposal_id"])
    hook_id = loose.invoke("list_webhooks", {}, ADMIN)["webhooks"][0]["webhook_id"]
    assert made["webhook_id"] == hook_id
    said = [shown["summary"], shown["document"]["webhook_id"],
            *(c["key"] for c in shown["changes"])]
    assert all("assigned when applied" in s or hook_id in s for s in said), said
    assert "wh_" not in str(shown).replace(hook_id, ""), shown


def test_a_name_that_resolves_to_a_private_address_now_is_refused() -> None:
    """At creation the name is asked once (no DNS here: the resolver is handed in), and
    a slow answer is not waited on for more than `ASK_FOR` seconds (a write waits)."""
    from shopfloor.domain.events import addresses

    loopback = Resolver("hooks.example.com", "93.184.216.34", "127.0.0.1")
    with pytest.raises(ShopfloorError) as caught:
        addresses.checked_url("https://hooks.example.com/in", allow_private=False,
                              resolve=loopback)
    assert caught.value.field == "url" and "127.0.0.1" in caught.value.message
    assert addresses.checked_url("https://hooks.example.com/in", allow_private=True,
                                 resolve=loopback) == "https://hooks.example.com/in"
    public = Resolver("hooks.example.com", "93.184.216.34")
    assert addresses.checked_url("https://hooks.example.com/in", allow_private=False,
                                 resolve=public) == "https://hooks.example.com/in"

    answered = threading.Event()

    def silent(*args: Any, **kw: Any) -> list[Any]:
        answered.wait(addresses.ASK_FOR + 10)  # a resolver that does not answer in time
        return []

    began = time.monotonic()
    try:
        assert addresses.checked_url("https://hooks.example.com/in", allow_private=False,
                                     resolve=silent) == "https://hooks.example.com/in"
        assert time.monotonic() - began < addresses.ASK_FOR + 0.5
    finally:
        answered.set()
