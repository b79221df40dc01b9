"""Webhook delivery: each worker fans the outbox out to webhooks, claims due deliveries,
sends them signed by the Standard Webhooks specification, and records the answers.

A claimed batch is sent by a few threads at once, each request bounded by the timeout,
and the batch is small enough that its slowest case ends well inside the lease: a lease
never runs out under a live worker, so an event is sent twice only when a worker dies
holding it (then within a lease and a sweep, under a minute).
"""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
from standardwebhooks import Webhook

from shopfloor.app import polling
from shopfloor.domain.events.addresses import Resolve, public_addresses, resolved
from shopfloor.domain.events.retries import next_delay
from shopfloor.store import deliveries
from shopfloor.store.deliveries import Claimed, Outcome
from shopfloor.store.engine import Store

log = logging.getLogger("shopfloor.webhooks")
CLIENTS = 64
"""Host names whose connections are kept open at once."""

__all__ = ["Deliverer"]


def headers_for(secret: str, event_id: str, body: str, at: datetime) -> dict[str, str]:
    """The three Standard Webhooks headers, signed with the webhook's secret."""
    return {"webhook-id": event_id, "webhook-timestamp": str(math.floor(at.timestamp())),
            "webhook-signature": Webhook(secret).sign(event_id, at, body),
            "content-type": "application/json", "user-agent": "Shopfloor-Webhooks/1"}


class Deliverer:
    def __init__(self, store: Store, *, name: str, allow_private: bool = False,
                 lease: timedelta = timedelta(seconds=30), timeout: float = 10.0,
                 senders: int = 8, poll: float = 0.5,
                 also: Callable[[threading.Event], object] | None = None,
                 resolve: Resolve = socket.getaddrinfo) -> None:
        self.store = store
        self.resolve = resolve
        """Where names are looked up: the system's resolver (a test hands in its own)."""
        self.name = name
        self.allow_private = allow_private
        self.lease = lease
        self.timeout = timeout
        self.senders = senders
        self.batch = senders * 8
        self.budget = lease.total_seconds() / 2
        """A batch stops sending at half its lease (what is left goes back, untried), so
        a lease never runs out under a live worker however slow the receivers are."""
        self.poll = poll
        self.also = also
        """Run every `poll` seconds in a thread beside the deliveries (the alert check)."""
        self._clients: OrderedDict[str, httpx.Client] = OrderedDict()
        """One client (and so one connection pool) per host name: a pinned request's
        origin is the address, and a pool shared by two names on one address would hand
        the second a TLS connection made (and its certificate checked) for the first."""
        self._clients_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=senders, thread_name_prefix="webhook")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        with self._clients_lock:
            clients, self._clients = list(self._clients.values()), OrderedDict()
        for client in clients:
            client.close()

    def _client_for(self, host: str) -> httpx.Client:
        with self._clients_lock:
            client = self._clients.get(host)
            if client is None:
                client = self._clients[host] = httpx.Client(
                    timeout=self.timeout, follow_redirects=False,
                    limits=httpx.Limits(max_connections=self.senders * 2))
                while len(self._clients) > CLIENTS:  # least recently used out
                    self._clients.popitem(last=False)[1].close()
            self._clients.move_to_end(host)
            return client

    # -- one pass ----------------------------------------------------------------------
    def step(self) -> int:
        """Fan out what is new, send one batch of what is due; how many were sent."""
        deliveries.fan_out(self.store)
        claimed = deliveries.claim(self.store, self.name, self.batch, self.lease)
        if not claimed:
            return 0
        deadline = time.monotonic() + self.budget - self.timeout

        def send_in_time(n: int, c: Claimed) -> Outcome | None:
            """The first round always goes; later ones only while there is time."""
            return self.send(c) if n < self.senders or time.monotonic() < deadline else None

        outcomes = list(self._pool.map(send_in_time, range(len(claimed)), claimed))
        deliveries.settle(self.store, self.name, [o for o in outcomes if o is not None])
        deliveries.release(self.store, self.name,
                           [c.id for c, o in zip(claimed, outcomes, strict=True) if o is None])
        return len(claimed)

    def send(self, c: Claimed) -> Outcome:
        body = json.dumps(c.body, separators=(",", ":"), ensure_ascii=False)
        headers = headers_for(c.secret, c.event_id, body, datetime.now(UTC))
        try:
            answer = self._post_pinned(c.url, body.encode(), headers)
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return self._failed(c, None, f"{type(exc).__name__}: {exc}"[:500])
        if 200 <= answer.status_code < 300:
            return Outcome(c.id, True, answer.status_code)
        return self._failed(c, answer.status_code, f"HTTP {answer.status_code}: "
                            f"{answer.text[:200]}")

    def _post_pinned(self, url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
        """Resolve the name once, check every answer, and connect to an address checked:
        the client is handed the address itself, with the name kept as the Host header and
        as TLS's server name (SNI, and what the certificate is checked against), so no
        second lookup can answer differently (DNS rebinding). Each address is tried in
        the resolver's order until one takes the connection."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = (resolved(host, port, self.resolve) if self.allow_private
                 else public_addresses(host, port, self.resolve))
        refused: httpx.ConnectError | None = None
        for ip in found:
            target = httpx.URL(url).copy_with(host=str(ip))
            try:
                return self._client_for(host).post(
                    target, content=body, headers={**headers, "host": parts.netloc},
                    extensions={"sni_hostname": host})
            except httpx.ConnectError as exc:
                refused = exc
        assert refused is not None
        raise refused

    def _failed(self, c: Claimed, status: int | None, error: str) -> Outcome:
        delay = next_delay(c.attempts + 1)
        retry = datetime.now(UTC) + delay if delay is not None else None
        return Outcome(c.id, False, status, error, retry)

    # -- the loop ----------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        side = None
        if self.also is not None:  # in its own thread: a slow check never delays a delivery
            side = threading.Thread(target=self._beside, args=(self.also, stop), daemon=True,
                                    name="alerts")
            side.start()
        try:
            polling.run(stop, self.step, lambda: deliveries.release_expired(self.store),
                        sweep_every=min(5.0, self.lease.total_seconds() / 4), poll=self.poll,
                        log=log, what="webhook delivery")
        finally:
            if side is not None:  # a daemon: one alert's reads are not worth a slow stop
                side.join(2)
            self.close()

    def _beside(self, work: Callable[[threading.Event], object], stop: threading.Event
                ) -> None:
        while not stop.wait(self.poll):
            try:
                work(stop)
            except Exception:
                log.exception("alert check failed; trying again")
