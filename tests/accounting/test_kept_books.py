"""Issue 31: a process keeps the chart of accounts and the period lock it read, and still
posts by what the database holds when another process (another engine on the same
database: the CLI beside the server) changes either, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal as D

import pytest
from sqlalchemy import event

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import entries, lines
from tests.given import Given
from tests.helpers import apply

INVENTORY, ADJUSTMENTS = "1310", "5100"
NOVEMBER = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
DECEMBER = datetime(2026, 12, 5, 14, 0, tzinfo=UTC)


@pytest.fixture
def other(db_url: str, registry: Registry) -> Iterator[Registry]:
    """A second process's registry: its own engine, its own kept read."""
    reg = open_registry(Settings(database_url=db_url))
    assert reg.store.engine is not registry.store.engine
    yield reg
    reg.store.dispose()


def adjusted(reg: Registry, quantity: str = "1") -> dict[str, D]:
    done = apply(reg, "create_stock_adjustment", location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": quantity, "unit_cost": "2"}])
    (entry,) = entries(reg, done["number"])
    return lines(entry)


class Statements:
    """The SQL a registry's engine runs while counting."""

    def __init__(self, reg: Registry) -> None:
        self.seen: list[str] = []
        self.engine = reg.store.engine
        event.listen(self.engine, "before_cursor_execute", self._saw)

    def _saw(self, _conn: object, _cursor: object, sql: str, *_: object) -> None:
        self.seen.append(sql)

    def stop(self) -> list[str]:
        event.remove(self.engine, "before_cursor_execute", self._saw)
        return self.seen


def test_an_apply_posts_to_the_accounts_another_process_set_since_it_kept_them(
        registry: Registry, other: Registry) -> None:
    Given(registry).company()
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}
    count = Statements(registry)
    apply(registry, "create_stock_adjustment", location="MAIN", reason="found",
          lines=[{"sku": "M1", "quantity_delta": "1", "unit_cost": "2"}])
    kept = count.stop()
    assert any("journal_entries" in sql for sql in kept)
    assert not any("account_rules" in sql for sql in kept)  # the chart is kept, not read

    apply(other, "set_stock_accounts",
          accounts=[{"role": "adjustments", "code": "5150", "name": "Found and lost"}])
    assert adjusted(registry) == {INVENTORY: D(2), "5150": D(-2)}
    assert adjusted(registry, "3") == {INVENTORY: D(6), "5150": D(-6)}  # kept again
    apply(other, "set_stock_accounts", accounts=[
        {"role": "inventory", "code": "1311", "name": "Stores", "location": "MAIN"}])
    assert adjusted(registry) == {"1311": D(2), "5150": D(-2)}
    assert adjusted(other) == {"1311": D(2), "5150": D(-2)}


def test_an_apply_is_refused_by_a_lock_another_process_set_since_it_kept_none(
        registry: Registry, other: Registry) -> None:
    registry.clock = lambda: NOVEMBER
    Given(registry).company()
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}  # (kept, no lock)

    other.clock = lambda: DECEMBER
    apply(other, "set_lock_date", lock_date="2026-11-30", reason="November closed")
    before = len(entries(registry))
    with pytest.raises(ShopfloorError) as refused:
        adjusted(registry)
    assert refused.value.code == "period_locked"
    assert len(entries(registry)) == before  # nothing posted, nothing moved

    registry.clock = lambda: DECEMBER  # after the lock, it posts again
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}
    apply(other, "set_lock_date", lift=True, reason="reopened")
    registry.clock = lambda: NOVEMBER
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}


def test_a_write_that_posts_nothing_still_checks_the_lock_it_kept(
        registry: Registry, other: Registry) -> None:
    """A zero-cost movement posts no entry, so no entry's statement reads the stamp: it
    is read before the commit instead."""
    registry.clock = lambda: NOVEMBER
    Given(registry).company()
    assert adjusted(registry) == {INVENTORY: D(2), ADJUSTMENTS: D(-2)}
    other.clock = lambda: DECEMBER
    apply(other, "set_lock_date", lock_date="2026-11-30", reason="November closed")
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "create_stock_adjustment", location="MAIN", reason="found",
              lines=[{"sku": "M2", "quantity_delta": "1", "unit_cost": "0"}])
    assert refused.value.code == "period_locked"
