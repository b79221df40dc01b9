"""Load over real HTTP: concurrent clients on one item, and one idempotency key raced.

Bounded for `make test` (16 clients x 25); `-m long` runs 16 x 200.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import httpx
import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand
from tests.servers import serving

CLIENTS = 16
PER_CLIENT = int(os.environ.get("SHOPFLOOR_LOAD_PER_CLIENT", "25"))


@pytest.fixture
def served(db_url: str) -> Iterator[tuple[str, dict[str, str], Registry]]:
    settings = Settings(database_url=db_url)
    reg = open_registry(settings)
    Given(reg).company()
    apply(reg, "modify_item", sku="M1", precision=1)  # the load adjusts by 1.5
    token = Authenticator(reg, settings).mint("load", ["admin"], 900)
    headers = {"Authorization": f"Bearer {token}"}
    with serving(build_app(reg, settings)) as url:
        yield url, headers, reg
    reg.store.dispose()


def _adjust(url: str, headers: dict[str, str], n: int, **extra: Any) -> list[httpx.Response]:
    out = []
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        for i in range(n):
            out.append(client.post("/api/v1/tools/create_stock_adjustment", json={
                "location": "MAIN", "reason": "load", "preview": False,
                "lines": [{"sku": "M1", "quantity_delta": "1.5", "unit_cost": str(1 + i % 3)}],
                **extra}))
    return out


def _run(url: str, headers: dict[str, str], per_client: int) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(lambda _: _adjust(url, headers, per_client), range(CLIENTS)))
    answers = [r for batch in results for r in batch]
    # What a user must never see, checked first so that it is what a failure reports.
    locked = [r.text for r in answers if "locked" in r.text.lower()]
    assert not locked, f"'database is locked' reached {len(locked)} users: {locked[:3]}"
    server_errors = [(r.status_code, r.text) for r in answers if r.status_code >= 500]
    assert not server_errors, f"{len(server_errors)} 5xx answers: {server_errors[:3]}"
    bad = [(r.status_code, r.text) for r in answers if r.status_code != 200]
    assert not bad, f"{len(bad)} refused adjustments: {bad[:3]}"
    assert len(answers) == CLIENTS * per_client


def test_concurrent_clients_lose_no_update(served: Any) -> None:
    url, headers, reg = served
    _run(url, headers, PER_CLIENT)
    assert on_hand(reg, "M1") == Decimal("1.5") * CLIENTS * PER_CLIENT
    assert not ledger_mismatches(reg)


@pytest.mark.long
def test_concurrent_clients_full_load(served: Any) -> None:
    url, headers, reg = served
    _run(url, headers, 200)
    assert on_hand(reg, "M1") == Decimal("1.5") * CLIENTS * 200
    assert not ledger_mismatches(reg)


def test_same_key_50_times_concurrently_has_one_effect(served: Any) -> None:
    url, headers, reg = served
    with ThreadPoolExecutor(50) as pool:
        batches = list(pool.map(lambda _: _adjust(url, headers, 1, idempotency_key="race-50"),
                                range(50)))
    results = [b[0] for b in batches]
    assert all(r.status_code == 200 for r in results), [r.text for r in results][:3]
    bodies = [r.json() for r in results]
    assert sum(not b["replayed"] for b in bodies) == 1
    assert len({b["operation_id"] for b in bodies}) == 1
    assert on_hand(reg, "M1") == Decimal("1.5")
    log = reg.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    assert len(log["entries"]) == 1
