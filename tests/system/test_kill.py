"""SIGKILL the server in the middle of a 1,000-line apply, restart it: all or nothing.

The kill is not timed by a guess: the test waits until the database itself shows the
apply's write transaction open (PostgreSQL: the server's backend holds the row-exclusive
lock that only an INSERT into `stock_adjustments` takes, and waits for the balances this
test holds locked; SQLite: the write lock is held, so another connection's BEGIN
IMMEDIATE fails at once with `database is locked`), checks it is still open, then kills.
On SQLite the apply is sent only once the server's workers have written what they write
on starting (a stale job swept, the alerts' first check, the events fanned out: rows the
test reads), and the next sweep is an hour away; an idle worker otherwise looks for work
with a read and takes no write lock, so the apply is then the only writer. After a
restart: no movement, no adjustment, no operation-log entry, no idempotency key; the same
request with the same key then applies exactly once, and the operation log and the ledger
agree row for row.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from sqlalchemy import Connection, create_engine, func, select, text
from sqlalchemy.pool import NullPool

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.store.tables import (
    IdempotencyKey,
    Item,
    OperationLog,
    StockAdjustment,
    StockMovement,
)
from tests.given import Given
from tests.helpers import apply, ledger_mismatches
from tests.servers import free_port

LINES = 1000
KEY = "kill-test-key"


def _serve(db_url: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
           "SHOPFLOOR_JOB_STALE_SECONDS": "3600"}  # its worker's next sweep: an hour on
    proc = subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "serve", "--port",
                             str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(400):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def _state(db_url: str) -> dict[str, object]:
    """What an apply leaves behind, and whether the log and the ledger agree."""
    reg = open_registry(Settings(database_url=db_url))
    try:
        with reg.store.reading() as s:
            moves = s.execute(select(StockMovement.operation_id, func.count())
                              .group_by(StockMovement.operation_id)).all()
            ops = s.scalars(select(OperationLog.operation_id)
                            .where(OperationLog.tool == "create_stock_adjustment")).all()
            state: dict[str, object] = {
                "movements": sum(n for _, n in moves),
                "movements_by_operation": dict(moves),
                "operations": sorted(ops),
                "adjustments": s.execute(select(func.count()).select_from(StockAdjustment))
                .scalar_one(),
                "keys": s.scalars(select(IdempotencyKey.key)).all(),
            }
        state["ledger_vs_balances"] = ledger_mismatches(reg)
    finally:
        reg.store.dispose()
    return state


def _pg_insert_open(db_url: str, table: str = "stock_movements") -> Callable[[], bool]:
    """True while another backend holds RowExclusiveLock on our `table`: it has inserted
    rows in a transaction that is still open."""
    return _pg_inserted(db_url, table, "a.state IN ('active', 'idle in transaction')")


def _pg_inserted(db_url: str, table: str, also: str) -> Callable[[], bool]:
    """True while another backend has inserted into `table` in an open transaction and
    its activity row matches `also`."""
    engine = create_engine(db_url, poolclass=NullPool)

    def probe() -> bool:
        with engine.connect() as conn:
            return bool(conn.execute(text(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                f"WHERE l.relation = '{table}'::regclass AND l.mode = 'RowExclusiveLock'"
                f" AND l.granted AND l.pid <> pg_backend_pid() AND {also}")).scalar_one())

    return probe


def _sqlite_write_open(db_url: str) -> Callable[[], bool]:
    """True while some connection holds the write lock: BEGIN IMMEDIATE with no busy
    timeout fails at once with `database is locked`."""
    path = db_url.removeprefix("sqlite:///")

    def probe() -> bool:
        conn = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError as exc:
            assert "locked" in str(exc) or "busy" in str(exc), exc
            return True
        finally:
            conn.close()

    return probe


def _until(condition: Callable[[], bool], give_up: float) -> bool:
    """Wait until `condition` holds (False if it has not by `give_up` seconds)."""
    deadline = time.monotonic() + give_up
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


STALE = "kill-test-stale-job"


def _stale_job(db_url: str) -> None:
    """A job left running by a worker long gone, its cancel asked for: the server's first
    sweep ends it as cancelled, a row the test can read (and nothing runs)."""
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO jobs (id, kind, arguments, status, progress, message, actor, "
                "worker, attempts, cancel_requested, created_at) VALUES (:id, 'mrp', '{}', "
                "'running', 0, '', 'killer', 'gone', 1, :yes, CURRENT_TIMESTAMP)"),
                {"id": STALE, "yes": True})
    finally:
        engine.dispose()


def _workers_settled(db_url: str) -> Callable[[], bool]:
    """True once the server's workers have written what they write on starting: the stale
    job swept, the alerts' first check recorded, and every event since fanned out."""
    engine = create_engine(db_url, poolclass=NullPool)

    def settled() -> bool:
        with engine.connect() as conn:
            swept = conn.execute(text("SELECT status FROM jobs WHERE id = :id"),
                                 {"id": STALE}).scalar_one() == "cancelled"
            cursors = {str(n): (int(tx), int(seq)) for n, tx, seq in conn.execute(text(
                "SELECT name, tx, seq FROM event_cursors"))}
            newest = conn.execute(text(
                "SELECT tx, seq FROM events ORDER BY tx DESC, seq DESC LIMIT 1")).first()
        return swept and "alerts" in cursors and newest is not None and \
            cursors.get("webhooks") == (int(newest.tx), int(newest.seq))

    return settled


def _pg_blocked(db_url: str, table: str) -> Callable[[], bool]:
    """True while another backend has inserted into `table` in an open transaction and
    now waits for a lock: the apply, stopped at the balances this test holds."""
    return _pg_inserted(db_url, table, "a.wait_event_type = 'Lock'")


def _big_apply(port: int, token: str, outcome: list[object]) -> None:
    try:
        r = httpx.post(f"http://127.0.0.1:{port}/api/v1/tools/create_stock_adjustment",
                       headers={"Authorization": f"Bearer {token}"}, timeout=120, json={
                           "location": "MAIN", "reason": "big", "preview": False,
                           "idempotency_key": KEY,
                           "lines": [{"sku": f"K{i:04d}", "quantity_delta": "2"}
                                     for i in range(LINES)]})
        outcome.append(r)
    except httpx.HTTPError as exc:
        outcome.append(exc)


def _lock_balances(db_url: str) -> Connection:
    """Zero balances for every item, then held FOR UPDATE by an open transaction: the
    batched apply reads its balances after writing its document, and waits here."""
    conn = create_engine(db_url, poolclass=NullPool).connect()
    conn.execute(text("INSERT INTO balances (item_id, location_id, on_hand, committed, "
                      "average_cost, version) SELECT i.id, l.id, 0, 0, 0, 1 "
                      "FROM items i, locations l"))
    conn.commit()
    conn.execute(text("SELECT id FROM balances FOR UPDATE"))
    return conn


def test_kill_during_a_big_apply_leaves_no_partial_effect(db_url: str, tmp_path: Path) -> None:
    reg = open_registry(Settings(database_url=db_url))
    Given(reg).location()
    with reg.store.writing() as s:  # 1,000 items quickly; their creation is not under test
        s.add_all(Item(sku=f"K{i:04d}", name=f"Kill {i}", kind="material") for i in range(LINES))
        s.commit()
    from shopfloor.surfaces.auth import Authenticator

    token = Authenticator(reg, Settings(database_url=db_url)).mint("killer", ["admin"], 600)
    reg.store.dispose()
    sqlite = db_url.startswith("sqlite")
    probe = _sqlite_write_open(db_url) if sqlite else _pg_insert_open(db_url, "stock_adjustments")
    # SQLite: the apply is then the only writer, and holds the write lock for ~40 ms (1,000
    # lines, batched): seen held, it is killed with most of that left. PostgreSQL: the
    # apply writes its document, then waits for the balances this test holds locked:
    # seen waiting there, it is killed mid-write.
    opened = probe if sqlite else _pg_blocked(db_url, "stock_adjustments")
    blocker = None
    _stale_job(db_url)
    port = free_port()
    server = _serve(db_url, port)
    outcome: list[object] = []
    thread = threading.Thread(target=_big_apply, args=(port, token, outcome))
    try:
        # SQLite: the apply must be the only writer (PostgreSQL's probe is the apply's own;
        # there, fanned-out events wait for every write on the server, other tests' too)
        assert not sqlite or _until(_workers_settled(db_url), give_up=60), \
            "the server's workers did not finish their first rounds"
        # (locked only now: an open transaction keeps PostgreSQL's later events unfinal)
        blocker = None if sqlite else _lock_balances(db_url)
        assert not probe(), "a write transaction was open before the apply was sent"
        thread.start()
        assert _until(opened, give_up=60), "the apply never opened its write"
        assert probe() and not outcome, "the write closed before the kill"
        server.send_signal(signal.SIGKILL)
    finally:
        server.kill()
        server.wait(10)
        if blocker is not None:
            blocker.rollback()
            blocker.close()
        if thread.ident is not None:
            thread.join(60)
    assert outcome and isinstance(outcome[0], httpx.HTTPError), \
        f"the apply answered although the server was killed mid-write: {outcome}"

    deadline = time.monotonic() + 30  # PostgreSQL rolls back once it sees the client gone
    while probe() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not probe(), "the killed server's transaction is still open"
    after_kill = _state(db_url)
    assert after_kill == {"movements": 0, "movements_by_operation": {}, "operations": [],
                          "adjustments": 0, "keys": [], "ledger_vs_balances": []}, \
        "a killed apply left part of itself behind"

    restarted = _serve(db_url, port)
    try:
        again: list[object] = []
        _big_apply(port, token, again)  # the client retries with the same key: one effect
        first = again[0]
        assert isinstance(first, httpx.Response) and first.status_code == 200, first
        assert first.json()["replayed"] is False
        _big_apply(port, token, again)
        second = again[1]
        assert isinstance(second, httpx.Response) and second.status_code == 200, second
        assert second.json()["replayed"] is True
        assert second.json()["operation_id"] == first.json()["operation_id"]
    finally:
        restarted.terminate()
        restarted.wait(10)
    done = _state(db_url)
    op = first.json()["operation_id"]
    assert done == {"movements": LINES, "movements_by_operation": {op: LINES},
                    "operations": [op], "adjustments": 1, "keys": [KEY],
                    "ledger_vs_balances": []}


def test_the_lock_probes_see_an_open_write(db_url: str) -> None:
    """The probes the kill test relies on: false when idle, true inside a ledger write."""
    probe = _sqlite_write_open(db_url) if db_url.startswith("sqlite") else _pg_insert_open(db_url)
    assert not probe()
    reg = open_registry(Settings(database_url=db_url))
    try:
        Given(reg).location()
        apply(reg, "create_item", sku="P1", name="Probe", kind="material")
        assert not probe()
        with reg.store.writing() as s:
            s.execute(text("INSERT INTO stock_movements (item_id, location_id, quantity, "
                           "unit_cost, reason, actor, created_at) SELECT i.id, l.id, 1, 0, "
                           "'probe', 'probe', CURRENT_TIMESTAMP FROM items i, locations l"))
            assert probe()
            s.rollback()
        assert not probe()
    finally:
        reg.store.dispose()
