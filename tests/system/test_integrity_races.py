"""Racing creates of one key: every caller is told it was applied or `conflict`, never
`internal`, and exactly one row exists afterwards.

On PostgreSQL the domain's "does it exist?" check and the insert are not atomic, so the
racers that lose reach the unique constraint; the registry maps that violation to
`conflict` naming the key and the argument. SQLite serialises writers, so the check
catches them there; the mapping of its constraint message is held to the same shape
with a real duplicate insert.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import (
    Balance,
    Base,
    Customer,
    IdempotencyKey,
    Item,
    Location,
    PurchaseOrder,
    Supplier,
)
from shopfloor.store.violations import unique_violation
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.conftest import _truncate
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import serving

THREADS = 6
ROUNDS = 4

# tool, the argument that is the key, extra arguments, the table and its key column
CASES: dict[str, tuple[str, dict[str, Any], type[Base], Any]] = {
    "create_item": ("sku", {"name": "Raced item"}, Item, Item.sku),
    "create_location": ("code", {"name": "Raced location"}, Location, Location.code),
    "create_customer": ("name", {}, Customer, Customer.name),
    "create_supplier": ("name", {}, Supplier, Supplier.name),
    "create_purchase_order": ("number", {"supplier": "Acme", "location": "MAIN",
                                         "lines": [{"sku": "M1", "quantity": "1"}]},
                              PurchaseOrder, PurchaseOrder.number),
}


def _args(tool: str, key: str) -> dict[str, Any]:
    field, extra, _, _ = CASES[tool]
    return {**extra, field: key, "preview": False}


def _rows(reg: Registry, tool: str, key: str) -> int:
    _, _, _, column = CASES[tool]
    with reg.store.reading() as s:
        return int(s.execute(select(func.count()).where(column == key)).scalar_one())


def _race(call: Callable[[int], tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Six callers released together, so their checks all run before any insert commits."""
    gate = threading.Barrier(THREADS)

    def one(n: int) -> tuple[int, dict[str, Any]]:
        gate.wait(30)
        return call(n)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(one, range(THREADS)))


def _judge(tool: str, key: str, answers: list[tuple[int, dict[str, Any]]]) -> None:
    field = CASES[tool][0]
    applied = [body for status, body in answers if status == 200]
    refused = [(status, body) for status, body in answers if status != 200]
    assert len(applied) == 1 and applied[0]["applied"] is True, (tool, answers)
    for status, body in refused:
        error = body.get("error", {})
        assert (status, error.get("code")) == (409, "conflict"), (tool, status, body)
        assert error["field"] == field and key in error["message"], (tool, body)


@pytest.fixture
def two_servers(pg_schema_url: str) -> Iterator[tuple[list[str], dict[str, str], Registry]]:
    _truncate(pg_schema_url)
    settings = Settings(database_url=pg_schema_url)
    regs = [open_registry(settings), open_registry(settings)]
    Given(regs[0]).company()
    token = Authenticator(regs[0], settings).mint("racer", ["admin"], 900)
    with ExitStack() as stack:
        urls = [stack.enter_context(serving(build_app(r, settings))) for r in regs]
        yield urls, {"Authorization": f"Bearer {token}"}, regs[0]
    for r in regs:
        r.store.dispose()


@pytest.mark.parametrize("tool", list(CASES))
def test_racing_creates_across_two_servers_are_applied_or_conflict(
        two_servers: tuple[list[str], dict[str, str], Registry], tool: str) -> None:
    urls, headers, reg = two_servers
    clients = [httpx.Client(base_url=urls[n % 2], headers=headers, timeout=120)
               for n in range(THREADS)]
    try:
        for round_ in range(ROUNDS):
            key = f"RACE-{round_}"

            def post(n: int, key: str = key) -> tuple[int, dict[str, Any]]:
                r = clients[n].post(f"/api/v1/tools/{tool}", json=_args(tool, key))
                return r.status_code, r.json()

            _judge(tool, key, _race(post))
            assert _rows(reg, tool, key) == 1
    finally:
        for c in clients:
            c.close()


@pytest.mark.parametrize("tool", list(CASES))
def test_racing_creates_through_the_registry_are_applied_or_conflict(
        registry: Registry, given: Given, tool: str) -> None:
    given.company()
    for round_ in range(ROUNDS):
        key = f"RACE-{round_}"

        def call(n: int, key: str = key) -> tuple[int, dict[str, Any]]:
            try:
                return 200, registry.invoke(tool, _args(tool, key), ADMIN)
            except ShopfloorError as exc:
                return (409 if exc.code == "conflict" else 500), exc.to_payload()

        _judge(tool, key, _race(call))
        assert _rows(registry, tool, key) == 1


def test_a_unique_violation_maps_to_conflict_naming_the_key(registry: Registry) -> None:
    """A real duplicate insert on either database: the violation names table, column and
    value, and the argument when the tool was given it."""
    apply(registry, "create_item", sku="DUP-1", name="First")
    with pytest.raises(IntegrityError) as caught, registry.store.writing() as s:
        s.add(Item(sku="DUP-1", name="Second", kind="material", uom="pcs"))
        s.flush()
    error = unique_violation(caught.value, {"sku": "DUP-1", "name": "Second"})
    assert error is not None and error.code == "conflict", error
    assert (error.field, error.message) == ("sku", "item sku 'DUP-1' already exists")
    unnamed = unique_violation(caught.value, {})
    assert unnamed is not None and unnamed.field is None and "sku" in unnamed.message


def test_a_two_column_key_and_bookkeeping_tables(registry: Registry, given: Given) -> None:
    """A key over two columns names both and no single argument; a violation in the
    registry's own tables (the idempotency race is settled where it happens) is no
    conflict to report."""
    given.company()
    given.stock({"M1": "1"}, reason="seed")
    with registry.store.reading() as s:
        first = s.scalars(select(Balance)).unique().one()
        item_id, location_id = first.item_id, first.location_id
    with pytest.raises(IntegrityError) as caught, registry.store.writing() as s:
        s.add(Balance(item_id=item_id, location_id=location_id))
        s.flush()
    error = unique_violation(caught.value, {"sku": "M1", "location": "MAIN"})
    assert error is not None and error.field is None, error
    assert "balance" in error.message and "item_id, location_id" in error.message, error
    assert error.details["columns"] == ["item_id", "location_id"]

    row = {"actor": "alice", "tool": "create_item", "request_hash": "h", "result": None,
           "created_at": datetime.now(UTC)}
    with registry.store.writing() as s:
        s.add(IdempotencyKey(key="k-1", **row))
        s.commit()
    with pytest.raises(IntegrityError) as caught, registry.store.writing() as s:
        s.add(IdempotencyKey(key="k-1", **row))
        s.flush()
    assert unique_violation(caught.value, {"idempotency_key": "k-1"}) is None


def test_the_idempotency_key_race_still_replays(registry: Registry, given: Given) -> None:
    """The one unique violation the registry retries instead of refusing: racing repeats
    of one idempotency key get the first result, replayed."""
    given.company()

    def call(n: int) -> tuple[int, dict[str, Any]]:
        return 200, registry.invoke("create_item", {
            "sku": "ONCE", "name": "Once", "preview": False, "idempotency_key": "k-once"},
            ADMIN)

    answers = [body for _, body in _race(call)]
    assert sum(not a["replayed"] for a in answers) == 1, answers
    assert _rows(registry, "create_item", "ONCE") == 1
