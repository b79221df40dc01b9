"""Property: get_projected_stock agrees with the ledger and the open documents.

After any sequence of purchases, receipts, sales, shipments, manufacturing and
adjustments, an item's record ends at on hand (the ledger's balance) minus committed
(what open sales and manufacturing orders still take, as the balances keep it) plus what
open purchase lines and manufacturing orders will still bring; its rows are in date
order and each balance is the one before plus in minus out. Per location and as a pool.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply
from tests.stock.test_ledger_properties import (  # noqa: F401 (fresh is a fixture)
    LOCS,
    RECIPE,
    SKUS,
    _run_order,
    fresh,
    lifecycle,
)

OPEN_PO = ("draft", "open", "partially_received")
OPEN_MO = ("planned", "in_progress")


def _open_documents(reg: Registry) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The open purchase and manufacturing orders, read once for every record checked."""
    pos = [po for po in reg.invoke("list_purchase_orders", {"limit": 500}, ADMIN)["orders"]
           if po["status"] in OPEN_PO]
    mos = [mo for mo in reg.invoke("list_manufacturing_orders", {"limit": 500}, ADMIN)["orders"]
           if mo["status"] in OPEN_MO]
    return pos, mos


def _expected(reg: Registry, sku: str, location: str | None,
              pos: list[dict[str, Any]], mos: list[dict[str, Any]]) -> Decimal:
    total = Decimal(0)
    for b in reg.invoke("get_stock", {"sku": sku}, ADMIN)["balances"]:
        if location in (None, b["location"]):
            total += Decimal(b["on_hand"]) - Decimal(b["committed"])
    for po in pos:
        if location in (None, po["location"]):
            total += sum((Decimal(ln["quantity"]) - Decimal(ln["done_quantity"])
                          for ln in po["lines"] if ln["sku"] == sku), Decimal(0))
    for mo in mos:
        if mo["sku"] == sku and location in (None, mo["location"]):
            total += Decimal(mo["quantity"]) - Decimal(mo["completed_quantity"])
    return total


def _check(reg: Registry) -> None:
    pos, mos = _open_documents(reg)
    for sku in SKUS:
        for location in (None, *LOCS):
            args: dict[str, Any] = {"sku": sku} | ({"location": location} if location else {})
            rec = reg.invoke("get_projected_stock", args, ADMIN)
            balance = Decimal(rec["on_hand"])
            dates = [r["date"] for r in rec["rows"]]
            assert dates == sorted(dates) and all(d >= rec["today"] for d in dates)
            for r in rec["rows"]:
                balance += Decimal(r["incoming"]) - Decimal(r["outgoing"])
                assert Decimal(r["balance"]) == balance, rec
            assert Decimal(rec["end_balance"]) == _expected(reg, sku, location, pos, mos), \
                (sku, location)


PARTS = 2
"""The 20 examples as two independent draws of 10, so that two workers share them."""


@pytest.mark.parametrize("part", range(PARTS))
@settings(max_examples=20 // PARTS, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=lifecycle)
def test_projected_stock_ends_at_on_hand_plus_supply_minus_demand(
        fresh: Callable[[], Registry], part: int, ops: list[Any]) -> None:  # noqa: F811
    assert part in range(PARTS)
    reg = fresh()
    apply(reg, "update_recipe", sku="P1",
          components=[{"sku": s, "quantity": str(q)} for s, q in RECIPE.items()])
    for op in ops:  # a refusal writes nothing (test_ledger_properties holds it to that)
        with suppress(ShopfloorError):
            _run_order(reg, op)
    _check(reg)
    reg.store.dispose()
