"""Property: any sequence of stock operations keeps the ledger and balances consistent.

balance == sum(ledger) for every item and location; stock is never negative where the
location forbids it; a refused operation writes nothing; moving-average value tracks the
ledger's value within rounding.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from shopfloor.app import open_registry
from shopfloor.registry.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.store.tables import Balance, StockMovement
from tests.conftest import _truncate
from tests.helpers import apply, basic_setup, ledger_matches_balances, quick_snapshot

SKUS = ("M1", "M2", "P1")
LOCS = ("MAIN", "SHOP")
qty = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("500"), places=3)
cost = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99"), places=2)

adjust = st.builds(lambda s, loc, q, sign, c: ("adjust", s, loc, q * sign, c),
                   st.sampled_from(SKUS), st.sampled_from(LOCS), qty, st.sampled_from([1, -1]),
                   cost)
count = st.builds(lambda s, loc, q: ("count", s, loc, q, None), st.sampled_from(SKUS),
                  st.sampled_from(LOCS), qty)
transfer = st.builds(lambda s, a, q: ("transfer", s, a, q, None), st.sampled_from(SKUS),
                     st.sampled_from(LOCS), qty)
operations = st.lists(st.one_of(adjust, count, transfer), min_size=1, max_size=25)


def _run(reg: Registry, op: tuple[str, str, str, Decimal, Decimal | None]) -> None:
    kind, sku, loc, q, c = op
    if kind == "adjust":
        line: dict[str, Any] = {"sku": sku, "quantity_delta": str(q), "unit_cost": str(c)}
        apply(reg, "create_stock_adjustment", location=loc, reason="p", lines=[line])
    elif kind == "count":
        apply(reg, "create_stock_adjustment", location=loc, reason="p",
              lines=[{"sku": sku, "counted_quantity": str(q)}])
    else:
        other = LOCS[1 - LOCS.index(loc)]
        apply(reg, "create_stock_transfer", from_location=loc, to_location=other,
              lines=[{"sku": sku, "quantity": str(q)}])


def _check(reg: Registry) -> None:
    assert not ledger_matches_balances(reg)
    with reg.store.reading() as s:
        for b in s.scalars(select(Balance)).unique():
            assert b.on_hand >= 0, f"{b.item.sku}@{b.location.code} negative"
            assert b.average_cost >= 0
            rows = s.execute(select(StockMovement.quantity, StockMovement.unit_cost)
                             .where(StockMovement.item_id == b.item_id,
                                    StockMovement.location_id == b.location_id)).all()
            value = sum((q * c for q, c in rows), Decimal(0))
            moved = sum((abs(q) for q, _ in rows), Decimal(0))
            # each re-average rounds the cost to 1e-6 per unit held
            assert abs(value - b.on_hand * b.average_cost) <= moved * Decimal("0.000002") \
                + Decimal("0.000001")


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path,
          sqlite_template: Path) -> Iterator[Callable[[], Registry]]:
    opened: list[Registry] = []

    def make() -> Registry:
        if request.param == "sqlite":
            target = tmp_path / f"p{len(opened)}.db"
            shutil.copy(sqlite_template, target)
            url = f"sqlite:///{target}"
        else:
            url = request.getfixturevalue("pg_schema_url")
            _truncate(url)
        reg = open_registry(Settings(database_url=url))
        opened.append(reg)
        basic_setup(reg)
        return reg

    yield make
    for reg in opened:
        reg.store.dispose()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=operations)
def test_random_operations_keep_the_ledger_consistent(
        fresh: Callable[[], Registry], ops: list[Any]) -> None:
    reg = fresh()
    for op in ops:
        before = quick_snapshot(reg)
        try:
            _run(reg, op)
        except ShopfloorError as exc:
            assert exc.code == "insufficient_stock", exc.to_payload()
            assert quick_snapshot(reg) == before, "a refused operation wrote something"
    _check(reg)
    reg.store.dispose()
