"""SIGKILL the server in the middle of a 1,000-line apply, restart it: all or nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from shopfloor.app import open_registry
from shopfloor.settings import Settings
from shopfloor.store.tables import OperationLog, StockMovement
from tests.helpers import apply, ledger_matches_balances
from tests.servers import free_port

LINES = 1000


def _serve(db_url: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url}
    proc = subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "serve", "--port",
                             str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def _counts(db_url: str) -> tuple[int, int]:
    reg = open_registry(Settings(database_url=db_url))
    with reg.store.reading() as s:
        moves = s.execute(select(func.count()).select_from(StockMovement)).scalar_one()
        ops = s.execute(select(func.count()).select_from(OperationLog)
                        .where(OperationLog.tool == "create_stock_adjustment")).scalar_one()
    assert not ledger_matches_balances(reg)
    reg.store.dispose()
    return moves, ops


def test_kill_during_a_big_apply_leaves_no_partial_effect(db_url: str, tmp_path: Path) -> None:
    reg = open_registry(Settings(database_url=db_url))
    apply(reg, "create_location", code="MAIN", name="Main")
    with reg.store.writing() as s:  # 1,000 items quickly; their creation is not under test
        from shopfloor.store.tables import Item

        s.add_all(Item(sku=f"K{i:04d}", name=f"Kill {i}", kind="material") for i in range(LINES))
        s.commit()
    from shopfloor.surfaces.auth import Authenticator

    token = Authenticator(reg, Settings(database_url=db_url)).mint("killer", ["admin"], 600)
    reg.store.dispose()
    port = free_port()
    server = _serve(db_url, port)
    outcome: list[object] = []

    def big_apply() -> None:
        try:
            r = httpx.post(f"http://127.0.0.1:{port}/api/v1/tools/create_stock_adjustment",
                           headers={"Authorization": f"Bearer {token}"}, timeout=120, json={
                               "location": "MAIN", "reason": "big", "preview": False,
                               "lines": [{"sku": f"K{i:04d}", "quantity_delta": "2"}
                                         for i in range(LINES)]})
            outcome.append(r.status_code)
        except httpx.HTTPError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=big_apply)
    thread.start()
    time.sleep(0.4)  # the apply takes seconds: kill it while it runs
    server.send_signal(signal.SIGKILL)
    server.wait(10)
    thread.join(30)
    if outcome and outcome[0] == 200:
        pytest.fail("the apply finished before the kill: the test did not test anything")
    moves, ops = _counts(db_url)
    assert (moves, ops) == (0, 0), "a killed apply left part of itself behind"

    restarted = _serve(db_url, port)
    try:
        r = httpx.post(f"http://127.0.0.1:{port}/api/v1/tools/create_stock_adjustment",
                       headers={"Authorization": f"Bearer {token}"}, timeout=120, json={
                           "location": "MAIN", "reason": "again", "preview": False,
                           "lines": [{"sku": "K0001", "quantity_delta": "2"}]})
        assert r.status_code == 200, r.text
    finally:
        restarted.terminate()
        restarted.wait(10)
    assert _counts(db_url) == (1, 1)
