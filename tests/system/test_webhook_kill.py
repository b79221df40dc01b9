"""Two servers, each with its worker, on one PostgreSQL; writes go through both; one
server is killed with SIGKILL while its worker holds deliveries in flight.

Every event reaches the receiver, with a valid signature; an event arrives twice only if
the killed worker held it at the kill (it may have been sent and not recorded); what it
held is sent again once its lease runs out, well inside a minute. Mid-stream the
receiver holds its answers, so deliveries are in flight when the kill lands; the kill
waits for the database to show the doomed worker holding some, and the receiver answers
again once it has landed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import create_engine, text, update
from sqlalchemy.pool import NullPool
from standardwebhooks import Webhook

from shopfloor.app.delivery import Deliverer
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.store import deliveries
from shopfloor.store.tables import WebhookDelivery
from shopfloor.surfaces.auth import Authenticator
from tests.conftest import _truncate
from tests.helpers import apply
from tests.receiver import receiving
from tests.servers import free_port

LEASE = 8.0


@pytest.fixture
def pg_url(pg_schema_url: str) -> str:
    _truncate(pg_schema_url)
    return pg_schema_url


def _held_by(db_url: str, pid: int) -> list[str]:
    """The event ids whose deliveries the worker in process `pid` holds now."""
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(
                "SELECT e.id FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq "
                "WHERE d.status = 'sending' AND d.worker LIKE :me"),
                {"me": f"%:{pid}:%"}).scalars())
    finally:
        engine.dispose()


def _workers(db_url: str) -> list[str]:
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(
                "SELECT DISTINCT worker FROM webhook_deliveries")).scalars())
    finally:
        engine.dispose()


def _statuses(db_url: str) -> dict[str, int]:
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return {str(s): int(n) for s, n in conn.execute(text(
                "SELECT status, count(*) FROM webhook_deliveries GROUP BY status"))}
    finally:
        engine.dispose()


def _sent_once_all_due(db_url: str) -> list[int]:
    """What a worker sends with every delivery due and every lease expired (the clock
    moved on), three passes: a wrong late repeat, without waiting for one to come."""
    reg = open_registry(Settings(database_url=db_url, webhook_allow_private=True))
    probe = Deliverer(reg.store, name="probe", allow_private=True, timeout=5.0)
    try:
        with reg.store.writing() as s:
            s.execute(update(WebhookDelivery).values(
                next_attempt_at=deliveries.now(),
                lease_until=deliveries.now() - timedelta(seconds=1)))
            s.commit()
        deliveries.release_expired(reg.store)
        return [probe.step() for _ in range(3)]
    finally:
        probe.close()
        reg.store.dispose()


def _start(db_url: str, ports: list[int]) -> list[subprocess.Popen[bytes]]:
    """Both servers at once (each opens the database and starts its worker)."""
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
           "SHOPFLOOR_WEBHOOK_ALLOW_PRIVATE": "true",
           "SHOPFLOOR_WEBHOOK_LEASE_SECONDS": str(LEASE),
           "SHOPFLOOR_WEBHOOK_TIMEOUT_SECONDS": "3"}
    procs = [subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "serve",
                               "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for port in ports]
    deadline = time.monotonic() + 120
    for port in ports:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                for p in procs:
                    p.kill()
                raise RuntimeError("a server did not start")
            time.sleep(0.05)
    return procs


@pytest.mark.parametrize("events", [120, pytest.param(600, marks=pytest.mark.long)])
def test_kill_a_server_mid_stream_every_event_arrives_repeats_only_in_flight(
        pg_url: str, events: int) -> None:
    reg = open_registry(Settings(database_url=pg_url, webhook_allow_private=True))
    token = Authenticator(reg, Settings(database_url=pg_url)).mint("loader", ["admin"], 600)
    with receiving() as rec:
        hook = apply(reg, "create_webhook", url=rec.url, events=["operation.applied"])
        reg.store.dispose()
        ports = [free_port(), free_port()]
        procs = _start(pg_url, ports)
        doomed, alive = procs[0], ports[1]
        held: set[str] = set()
        killed_at = 0.0
        try:
            sent: list[str] = []
            with httpx.Client(headers={"Authorization": f"Bearer {token}"},
                              timeout=60) as http:

                def write(i: int) -> None:
                    body = {"code": f"K{i}", "name": f"K {i}", "preview": False,
                            "idempotency_key": f"kill-{i}"}
                    try:
                        r = http.post(f"http://127.0.0.1:{ports[i % 2] if not killed_at else alive}"
                                      "/api/v1/tools/create_location", json=body)
                    except httpx.HTTPError:  # the killed one: the same request, elsewhere
                        r = http.post(f"http://127.0.0.1:{alive}/api/v1/tools/create_location",
                                      json=body)
                    assert r.status_code == 200, r.text
                    sent.append(r.json()["operation_id"])

                for i in range(events):  # through both servers, until one is killed
                    write(i)
                    if i == events // 4:  # mid-stream: once the doomed worker holds some
                        # what is sent from now on stays in flight, each answer under
                        # the servers' 3 s timeout: a held send never counts as failed
                        rec.hold(limit=2.0)
                        deadline = time.monotonic() + 60
                        extra = events
                        while not _held_by(pg_url, doomed.pid):
                            assert time.monotonic() < deadline, \
                                f"the first worker never sent: {_statuses(pg_url)}, " \
                                f"{doomed.pid}, {_workers(pg_url)}, {len(rec.received)}"
                            # the stream goes on: under load the other worker may have
                            # sent everything there was before this loop first looked
                            write(extra)
                            extra += 1
                        doomed.send_signal(signal.SIGKILL)
                        doomed.wait(10)
                        killed_at = time.monotonic()
                        held = set(_held_by(pg_url, doomed.pid))  # as the dead left them
                        rec.release()  # the survivor's sends are answered (in its timeout)
            assert held, "the kill landed between batches"
            deadline = killed_at + 60  # every delivery accepted and recorded, the held too
            while _statuses(pg_url) != {"delivered": len(sent)}:
                assert time.monotonic() < deadline, \
                    f"a minute after the kill: {_statuses(pg_url)}"
                time.sleep(0.2)
            for p in procs:  # the survivor too: what it would repeat, a probe would send
                p.kill()
                p.wait(10)
            arrived = len(rec.received)
            assert _sent_once_all_due(pg_url) == [0, 0, 0], "a delivered event went again"
            assert len(rec.received) == arrived
        finally:
            for p in procs:
                p.kill()
                p.wait(10)
    verify = Webhook(hook["secret"])
    got = [verify.verify(r.body, r.headers) for r in rec.received]
    assert sorted({g["data"]["operation_id"] for g in got}) == sorted(set(sent))
    assert len(set(sent)) == len(sent) >= events
    repeats = {event_id for event_id, n in Counter(r.headers["webhook-id"]
                                                   for r in rec.received).items() if n > 1}
    assert repeats <= held, "an event not held by the killed worker came twice"
    probe = Deliverer(reg.store, name="-")
    batch = probe.batch  # what one worker claims at once
    probe.close()
    assert len(held) <= batch, f"{len(held)} in flight: more than a batch ({batch})"
