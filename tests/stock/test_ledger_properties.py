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

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, StockMovement
from tests.conftest import _truncate
from tests.copies import Copies
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, quick_snapshot

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
    assert not ledger_mismatches(reg)
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


def _company(reg: Registry) -> None:
    company = Given(reg).company()
    for sku in ("M1", "M2", "P1"):  # counted to the gram: the quantities have 3 places
        company.modify(sku, precision=3)


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path,
          copies: Copies) -> Iterator[Callable[[], Registry]]:
    """A fresh registry for each example, on a copy of one company built once."""
    opened: list[Registry] = []

    def make() -> Registry:
        if request.param == "sqlite":
            target = tmp_path / f"p{len(opened)}.db"
            shutil.copy(sqlite_template, target)
            url = f"sqlite:///{target}"
        else:
            url = request.getfixturevalue("pg_schema_url")
            _truncate(url)
        copies.restore(url, "ledger_properties", _company)
        reg = open_registry(Settings(database_url=url))
        opened.append(reg)
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


# -- orders: receipts, shipments, production, cancellations ---------------------------
RECIPE = {"M1": Decimal(2), "M2": Decimal(1)}  # per P1
pick = st.integers(min_value=0, max_value=50)
part = st.sampled_from([None, Decimal("0.5"), Decimal(1)])  # None: all that is outstanding
lifecycle = st.lists(st.one_of(
    st.tuples(st.just("buy"), st.sampled_from(SKUS), st.sampled_from(LOCS), qty, cost),
    st.tuples(st.just("receive"), pick, part),
    st.tuples(st.just("sell"), st.sampled_from(SKUS), st.sampled_from(LOCS), qty),
    st.tuples(st.just("ship"), pick, part),
    st.tuples(st.just("cancel_sale"), pick),
    st.tuples(st.just("make"), st.sampled_from(LOCS), qty),
    st.tuples(st.just("complete"), pick, part),
    st.tuples(st.just("cancel_make"), pick),
    adjust,
), min_size=1, max_size=20)


def _nth(reg: Registry, tool: str, key: str, i: int) -> dict[str, Any] | None:
    rows = reg.invoke(tool, {"limit": 500}, ADMIN)[key]
    return rows[i % len(rows)] if rows else None


def _portion(outstanding: Decimal, fraction: Decimal | None) -> str | None:
    if fraction is None:
        return None
    return str(max(Decimal("0.001"), (outstanding * fraction).quantize(Decimal("0.001"))))


def _lines(doc: dict[str, Any], fraction: Decimal | None) -> dict[str, Any]:
    if fraction is None:
        return {}
    lines = [{"sku": ln["sku"], "quantity": _portion(Decimal(ln["quantity"]) -
                                                     Decimal(ln["done_quantity"]), fraction)}
             for ln in doc["lines"] if Decimal(ln["quantity"]) > Decimal(ln["done_quantity"])]
    return {"lines": lines} if lines else {}


def _run_order(reg: Registry, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "buy":
        _, sku, loc, q, c = op
        apply(reg, "create_purchase_order", supplier="Acme", location=loc,
              lines=[{"sku": sku, "quantity": str(q), "unit_price": str(c)}])
    elif kind == "receive" and (po := _nth(reg, "list_purchase_orders", "orders", op[1])):
        apply(reg, "receive_purchase_order", number=po["number"],
              **_lines(po, op[2]))
    elif kind == "sell":
        _, sku, loc, q = op
        apply(reg, "create_sales_order", customer="Bob", location=loc,
              lines=[{"sku": sku, "quantity": str(q), "unit_price": "1"}])
    elif kind == "ship" and (so := _nth(reg, "list_sales_orders", "orders", op[1])):
        apply(reg, "fulfill_order", number=so["number"], **_lines(so, op[2]))
    elif kind == "cancel_sale" and (so := _nth(reg, "list_sales_orders", "orders", op[1])):
        apply(reg, "delete_sales_order", number=so["number"])
    elif kind == "make":
        apply(reg, "create_manufacturing_order", sku="P1", quantity=str(op[2]), location=op[1])
    elif kind == "complete" and (mo := _nth(reg, "list_manufacturing_orders", "orders", op[1])):
        left = Decimal(mo["quantity"]) - Decimal(mo["completed_quantity"])
        quantity = _portion(left, op[2]) if left > 0 else None
        apply(reg, "complete_manufacturing_order", number=mo["number"],
              **({"quantity": quantity} if quantity else {}))
    elif kind == "cancel_make" and (mo := _nth(reg, "list_manufacturing_orders", "orders", op[1])):
        apply(reg, "delete_manufacturing_order", number=mo["number"])
    elif kind == "adjust":
        _run(reg, op)


def _open_demand(reg: Registry) -> dict[tuple[str, str], Decimal]:
    """What committed stock must be: open sales lines still to ship, and the components
    of open manufacturing orders for what is still to make."""
    want: dict[tuple[str, str], Decimal] = {}
    for so in reg.invoke("list_sales_orders", {"limit": 500}, ADMIN)["orders"]:
        if so["status"] in ("open", "partially_fulfilled"):
            for ln in so["lines"]:
                k = (ln["sku"], so["location"])
                want[k] = want.get(k, Decimal(0)) + Decimal(ln["quantity"]) - \
                    Decimal(ln["done_quantity"])
    for mo in reg.invoke("list_manufacturing_orders", {"limit": 500}, ADMIN)["orders"]:
        if mo["status"] in ("planned", "in_progress"):
            left = Decimal(mo["quantity"]) - Decimal(mo["completed_quantity"])
            for sku, per in RECIPE.items():
                k = (sku, mo["location"])
                want[k] = want.get(k, Decimal(0)) + per * left
    return {k: v for k, v in want.items() if v != 0}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=lifecycle)
def test_random_order_lifecycles_keep_ledger_and_commitments_consistent(
        fresh: Callable[[], Registry], ops: list[Any]) -> None:
    reg = fresh()
    apply(reg, "update_recipe", sku="P1",
          components=[{"sku": s, "quantity": str(q)} for s, q in RECIPE.items()])
    for op in ops:
        before = quick_snapshot(reg)
        try:
            _run_order(reg, op)
        except ShopfloorError as exc:
            # stock short, or a document no longer in a state that allows it
            assert exc.code in ("insufficient_stock", "conflict"), (op, exc.to_payload())
            assert quick_snapshot(reg) == before, "a refused operation wrote something"
    _check(reg)
    committed = {(b["sku"], b["location"]): Decimal(b["committed"])
                 for b in reg.invoke("get_stock", {"limit": 500}, ADMIN)["balances"]
                 if Decimal(b["committed"]) != 0}
    assert committed == _open_demand(reg)
    reg.store.dispose()
