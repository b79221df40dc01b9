"""Property: any random sequence of applied operations, reverted newest first, leaves every
balance, committed figure and average cost exactly as at the start, documents back in
their open states, and the ledger still summing to the balances."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.stock import test_ledger_properties as props
from tests.stock.test_ledger_properties import RECIPE, _run_order, lifecycle

fresh = props.fresh  # the fixture: a fresh database per example, on both databases


def _balances(reg: Registry) -> dict[tuple[str, str], tuple[Decimal, Decimal, Decimal]]:
    rows = reg.invoke("get_stock", {"limit": 500}, ADMIN)["balances"]
    out = {(b["sku"], b["location"]): (Decimal(b["on_hand"]), Decimal(b["committed"]),
                                       Decimal(b["average_cost"])) for b in rows}
    return {k: v for k, v in out.items() if v != (0, 0, 0)}


def _applied(reg: Registry) -> list[dict[str, Any]]:
    return list(reg.invoke("get_operation_log", {"limit": 500}, ADMIN)["entries"])


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=lifecycle)
def test_reverting_everything_newest_first_restores_the_start(
        fresh: Callable[[], Registry], ops: list[Any]) -> None:
    reg = fresh()
    apply(reg, "update_recipe", sku="P1",
          components=[{"sku": s, "quantity": str(q)} for s, q in RECIPE.items()])
    apply(reg, "create_stock_adjustment", location="MAIN", reason="opening", lines=[
        {"sku": "M1", "quantity_delta": "40", "unit_cost": "1.25"},
        {"sku": "M2", "quantity_delta": "7", "unit_cost": "3.1"}])
    start = _balances(reg)
    seen = {e["operation_id"] for e in _applied(reg)}
    for op in ops:
        try:
            _run_order(reg, op)
        except ShopfloorError as exc:
            assert exc.code in ("insufficient_stock", "conflict"), (op, exc.to_payload())
    done = [e for e in _applied(reg) if e["operation_id"] not in seen]  # newest first
    for entry in done:
        result = apply(reg, "revert_operation", operation_id=entry["operation_id"])
        assert result["reverted_tool"] == entry["tool"]
    assert _balances(reg) == start
    assert not ledger_mismatches(reg)
    for kind in ("list_purchase_orders", "list_sales_orders"):
        for doc in reg.invoke(kind, {"limit": 500}, ADMIN)["orders"]:
            assert doc["status"] == "cancelled", doc  # every order's creation was reverted
            assert all(Decimal(ln["done_quantity"]) == 0 for ln in doc["lines"]), doc
    reg.store.dispose()
