"""Webhooks: the delivery rate, and what the outbox costs an apply.

Two figures, each on SQLite and PostgreSQL, each with its baseline from the same run:
- 1,000 events delivered by one worker to a local receiver (target: under 10 s), beside
  the same number of bare POSTs from the same kind of client, at the same concurrency, to
  the same receiver (what the network and the receiver alone cost);
- a one-line `create_stock_adjustment` applied through the registry with its event written
  (the outbox) against the same apply with the event's insert taken out, in alternating
  batches, each figure its best batch, so a busy shared machine disturbs both alike
  (target: the outbox adds at most 10%).
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench.apply_throughput import pg_schema, setup
from shopfloor.app.delivery import Deliverer
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.statuses import Delivery
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store import outbox
from shopfloor.store.tables import WebhookDelivery

EVENTS = int(os.environ.get("BENCH_WEBHOOK_EVENTS", "1000"))
APPLIES = int(os.environ.get("BENCH_APPLIES", "300"))
ACTOR = Actor.of("bench", "admin")


class _Count(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        with _Count.lock:
            _Count.seen += 1
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def receiver() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Count)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def _events(reg: Registry, n: int) -> None:
    """`n` events, written as an apply writes its own (the deliveries are under test)."""
    with reg.store.writing() as s:
        conn = s.connection()
        for i in range(n):
            outbox.emit(conn, "operation.applied", {"operation_id": f"bench-{i}",
                                                    "tool": "bench", "summary": f"event {i}",
                                                    "actor": "bench"},
                        reg.clock())
        s.commit()


def _delivered(reg: Registry) -> int:
    with reg.store.reading() as s:
        return int(s.scalar(select(func.count()).select_from(WebhookDelivery)
                            .where(WebhookDelivery.status == Delivery.delivered)) or 0)


def deliveries(url: str, label: str) -> None:
    reg = open_registry(Settings(database_url=url, webhook_allow_private=True))
    with receiver() as hook_url:
        reg.invoke("create_webhook", {"url": hook_url, "events": ["operation.applied"],
                                      "preview": False}, ACTOR)
        _events(reg, EVENTS)
        sender = Deliverer(reg.store, name="bench", allow_private=True,
                           lease=timedelta(seconds=30), timeout=10.0)
        start = time.perf_counter()
        try:
            while _delivered(reg) < EVENTS:
                if not sender.step():
                    time.sleep(0.01)
                if time.perf_counter() - start > 120:
                    break
        finally:
            sender.close()
        took = time.perf_counter() - start
        done = _delivered(reg)

        body = b'{"id":"evt_x","type":"operation.applied","at":"","data":{}}'
        with httpx.Client(timeout=10) as client, ThreadPoolExecutor(sender.senders) as pool:
            bare_start = time.perf_counter()
            list(pool.map(lambda _: client.post(hook_url, content=body), range(EVENTS)))
            bare = time.perf_counter() - bare_start
    print(f"webhooks[{label}] {done} events delivered in {took:.2f} s ({done / took:.0f}/s; "
          f"target {EVENTS} in < 10 s)  bare POSTs {EVENTS / bare:.0f}/s  "
          f"ratio {bare / took:.2f}")
    reg.store.dispose()


def outbox_cost(url: str, label: str) -> None:
    reg = open_registry(Settings(database_url=url))
    setup(reg, 5)

    def one() -> None:
        reg.invoke("create_stock_adjustment", {
            "location": "MAIN", "reason": "bench", "preview": False,
            "lines": [{"sku": "B1", "quantity_delta": "1", "unit_cost": "2"}]}, ACTOR)

    real = outbox.emit

    def no_event(*args: Any, **kwargs: Any) -> str:
        return "none"

    one()
    gc.collect()
    gc.freeze()
    rounds, per = max(APPLIES // 10, 10), 10
    best = {"with": float("inf"), "without": float("inf")}
    try:
        for _ in range(rounds):  # alternating; the best batch of each (least disturbed)
            for kind, emit in (("without", no_event), ("with", real)):
                outbox.emit = emit  # type: ignore[assignment]
                start = time.perf_counter()
                for _ in range(per):
                    one()
                best[kind] = min(best[kind], (time.perf_counter() - start) / per)
    finally:
        outbox.emit = real  # type: ignore[assignment]
        gc.unfreeze()
    print(f"webhooks[{label}] one-line apply: with its event {1 / best['with']:.0f}/s  "
          f"without {1 / best['without']:.0f}/s  the outbox adds "
          f"{(best['with'] / best['without'] - 1) * 100:.1f}% (target <= 10%)")
    reg.store.dispose()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        deliveries(f"sqlite:///{tmp}/deliver.db", "sqlite")
        outbox_cost(f"sqlite:///{tmp}/apply.db", "sqlite")
    with pg_schema("hooks") as url:
        deliveries(url, "postgresql")
    with pg_schema("outbox") as url:
        outbox_cost(url, "postgresql")


if __name__ == "__main__":
    main()
