"""Small helpers for tests: set up master data through the registry and fingerprint the DB."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import ROUND_HALF_EVEN, Decimal
from functools import cache
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Integer, func, literal, select, union_all

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store import migrate
from shopfloor.store.tables import Balance, Base, StockMovement

ADMIN = Actor.of("alice", "admin")


def apply(registry: Registry, tool: str, actor: Actor = ADMIN, **args: Any) -> dict[str, Any]:
    return registry.invoke(tool, {**args, "preview": False}, actor)


@contextmanager
def registry_at(url: str, **settings: Any) -> Iterator[Registry]:
    """A registry of its own on `url` (with other settings than the `registry` fixture's
    if given), its connections closed after."""
    reg = open_registry(Settings(database_url=url, **settings))
    try:
        yield reg
    finally:
        reg.store.dispose()


@contextmanager
def named_on_postgres(schema_url: str, prefix: str) -> Iterator[tuple[Registry, str]]:
    """A registry on the tests' PostgreSQL schema, emptied first, whose connections give
    the server a name of their own (`application_name`): a test finds them among the
    server's by it. Yields the registry and the name."""
    from tests.conftest import _truncate

    _truncate(schema_url)
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with registry_at(f"{schema_url}&application_name={name}") as reg:
        yield reg, name


@cache
def _every_table_counted() -> Any:
    """Built once: making the statement cost more than running it."""
    return union_all(*(
        select(literal(t.name).label("name"), func.count().label("rows"),
               (func.coalesce(func.sum(t.c.version), 0) if "version" in t.c
                else literal(None, Integer)).label("versions")).select_from(t)
        for t in Base.metadata.sorted_tables))


def snapshot(registry: Registry) -> dict[str, Any]:
    """Row counts and version sums of every table: equal snapshots mean nothing was written.
    One statement (a UNION ALL of every table's count): a query a table cost ~0.7 s a
    snapshot on PostgreSQL under load, and the bad-input tests take hundreds."""
    out: dict[str, Any] = {}
    with registry.store.reading() as s:
        for name, rows, versions in s.execute(_every_table_counted()):
            out[name] = rows
            if versions is not None:
                out[f"{name}.version"] = versions
    return out


def refused_alike(registry: Registry, tool: str, args: dict[str, Any]) -> ShopfloorError:
    """Refused alike by the preview and the apply (the same code, naming the same field),
    writing nothing; the apply's error."""
    before = snapshot(registry)
    errors = []
    for preview in (True, False):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke(tool, {**args, "preview": preview}, ADMIN)
        errors.append(info.value)
    assert snapshot(registry) == before
    assert (errors[0].code, errors[0].field) == (errors[1].code, errors[1].field)
    return errors[1]


def ledger_mismatches(registry: Registry) -> list[str]:
    """Every balance equals the sum of its ledger rows, in quantity and in value (exactly),
    and no balance is valued below zero or holds value with nothing on hand; returns the
    mismatches."""
    bad = []
    with registry.store.reading() as s:
        sums = {
            (i, loc): (q, v) for i, loc, q, v in s.execute(
                select(StockMovement.item_id, StockMovement.location_id,
                       func.sum(StockMovement.quantity), func.sum(StockMovement.value))
                .group_by(StockMovement.item_id, StockMovement.location_id))
        }
        for b in s.scalars(select(Balance)).unique():
            expected, value = sums.pop((b.item_id, b.location_id), (Decimal(0), Decimal(0)))
            where = f"{b.item.sku}@{b.location.code}"
            if b.on_hand != expected:
                bad.append(f"{where}: {b.on_hand} != {expected}")
            if b.stock_value != value:
                bad.append(f"{where}: value {b.stock_value} != ledger {value}")
            if (b.stock_value != 0) if b.on_hand == 0 else (b.stock_value / b.on_hand < 0):
                bad.append(f"{where}: {b.on_hand} on hand valued {b.stock_value}")
            if b.average_cost < 0:
                bad.append(f"{where}: average {b.average_cost}")
        bad += [f"ledger without balance: {k}" for k, (q, v) in sums.items() if q or v]
        bad += journal_mismatches(s)
    return bad


def journal_mismatches(s: Any) -> list[str]:
    """Issue 31's books: every journal entry balances, its lines are in cents (the demo's
    and the tests' books are in euros), and the stock's lines hold the ledger's value per
    item and location rounded to the cent (each ledger row's value went to stock, as a
    step in its place's rounded value), whichever accounts the company's rules named
    then."""
    from shopfloor.store.tables import JournalLine

    bad = [f"entry {e} debits {d} != credits {c}" for e, d, c in s.execute(
        select(JournalLine.entry_id, func.sum(JournalLine.debit), func.sum(JournalLine.credit))
        .group_by(JournalLine.entry_id)
        .having(func.sum(JournalLine.debit) != func.sum(JournalLine.credit)))]
    ledger = {(i, loc): Decimal(v or 0) for i, loc, v in s.execute(
        select(StockMovement.item_id, StockMovement.location_id, func.sum(StockMovement.value))
        .group_by(StockMovement.item_id, StockMovement.location_id))}
    held = {(i, loc): Decimal(d or 0) - Decimal(c or 0) for i, loc, d, c in s.execute(
        select(JournalLine.item_id, JournalLine.location_id, func.sum(JournalLine.debit),
               func.sum(JournalLine.credit)).where(JournalLine.role == "inventory")
        .group_by(JournalLine.item_id, JournalLine.location_id))}
    cent = Decimal("0.01")
    bad += [f"line {i} of entry {e}: {d} / {c} is not in cents" for i, e, d, c in s.execute(
        select(JournalLine.id, JournalLine.entry_id, JournalLine.debit, JournalLine.credit))
        if Decimal(d).quantize(cent) != d or Decimal(c).quantize(cent) != c]
    bad += [f"stock lines of item {k[0]} at {k[1]} hold {held.get(k, 0)}, the ledger {v}"
            for k, v in ledger.items()
            if held.get(k, Decimal(0)) != v.quantize(cent, rounding=ROUND_HALF_EVEN)]
    bad += [f"stock lines of item {k[0]} at {k[1]} hold {v} with no ledger rows"
            for k, v in held.items() if k not in ledger and v]
    return bad


def run_as_job(registry: Registry, tool: str, preview: dict[str, Any]) -> dict[str, Any]:
    """A job tool's preview applied, its job run here by a worker and succeeded: the job as
    `get_job` reads it."""
    from shopfloor.app.wiring import worker_for

    queued = registry.invoke(tool, preview["apply"]["arguments"], ADMIN)
    assert worker_for(registry).run_one(queued["job_id"])
    job: dict[str, Any] = registry.invoke("get_job", {"job_id": queued["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", job["message"]
    return job


def on_hand(registry: Registry, sku: str, location: str = "MAIN") -> Decimal:
    rows = registry.invoke("get_stock", {"sku": sku, "location": location}, ADMIN)["balances"]
    return Decimal(rows[0]["on_hand"]) if rows else Decimal(0)


def quick_snapshot(registry: Registry) -> tuple[Any, ...]:
    """Ledger rows, log rows and the sum of balance versions: enough to see a write."""
    from shopfloor.store.tables import OperationLog

    with registry.store.reading() as s:
        return (
            s.execute(select(func.count()).select_from(StockMovement)).scalar(),
            s.execute(select(func.count()).select_from(OperationLog)).scalar(),
            s.execute(select(func.coalesce(func.sum(Balance.version), 0))).scalar(),
        )


def migrate_to(registry: Registry, action: str, target: str) -> None:
    """Run Alembic's `upgrade` or `downgrade` to `target` on the registry's database: the
    migration tests start from an older schema with today's data in it."""
    cfg = Config()
    cfg.set_main_option("script_location", str(migrate._SCRIPTS))
    with registry.store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        getattr(command, action)(cfg, target)
    if action == "upgrade" and target == "head":
        from shopfloor.app.wiring import post_history

        post_history(registry.store, registry.clock)  # as every open of the database does


def listed_events(registry: Registry, types: list[str],
                  enough: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """The events of these types once `enough` holds of them, or after 20 s whatever is
    listed: on PostgreSQL an event is listed only once every older write transaction on
    the server has ended, another test's on a parallel worker included."""
    deadline = time.monotonic() + 20
    while True:
        events: list[dict[str, Any]] = registry.invoke("list_events", {"types": types},
                                                       ADMIN)["events"]
        if enough(events) or time.monotonic() > deadline:
            return events
        time.sleep(0.05)
