"""Stock revalued by hand (issue 31): a quantity-0 row, its `revaluation` variance and one
entry, Inventory against the stock revaluation account (5120); a lot of a tracked item
revalued on its own; reverted exactly, unless goods have left since. Hand-computed, on
SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import entries, inventory_equals_valuation, lines
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot

STOCK, REVALUATION = "1310", "5120"


def _balance(reg: Registry, sku: str) -> tuple[D, D, D]:
    (b,) = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"]
    return D(b["on_hand"]), D(b["average_cost"]), D(b["on_hand"]) * D(b["average_cost"])


def test_a_new_unit_cost_and_a_new_value_post_against_the_revaluation_account(
        registry: Registry, given: Given) -> None:
    given.company()
    given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number="PO-00001")
    given.so({"M1": ("4", "9")})
    apply(registry, "fulfill_order", number="SO-00001")  # 6 left, worth 30

    before = snapshot(registry)
    shown = registry.invoke("revalue_stock", {"sku": "M1", "location": "MAIN",
                                              "unit_cost": "6", "reason": "market"}, ADMIN)
    assert shown["preview"] is True and shown["document"]["change"] == "6"
    assert snapshot(registry) == before  # a preview writes nothing, the journal included

    up = apply(registry, "revalue_stock", sku="M1", location="MAIN", unit_cost="6",
               reason="market")
    assert (up["quantity"], up["value_before"], up["value_after"]) == ("6", "30", "36")
    assert _balance(registry, "M1") == (6, 6, 36)
    entry = entries(registry, up["number"])[-1]
    assert lines(entry) == {STOCK: D(6), REVALUATION: D(-6)}
    assert entry["memo"] == "Stock revalued"
    assert {(ln["sku"], ln["location"]) for ln in entry["lines"]} == {("M1", "MAIN")}

    down = apply(registry, "revalue_stock", sku="M1", location="MAIN", value="27",
                 reason="damaged packaging")  # 4.50 each: 9.00 off
    assert lines(entries(registry, down["number"])[-1]) == {STOCK: D(-9),
                                                            REVALUATION: D(9)}
    assert _balance(registry, "M1") == (6, D("4.5"), 27)
    total = registry.invoke("get_stock_valuation", {"start": "2000-01-01"}, ADMIN)["total"]
    assert (D(total["revalued"]), D(total["variances"])) == (-3, 3)  # +6 - 9; -6 + 9
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)

    apply(registry, "revert_operation", operation_id=down["operation_id"])
    undone = entries(registry, down["number"])[-1]
    assert lines(undone) == {STOCK: D(9), REVALUATION: D(-9)}
    assert undone["reverses"] == down["operation_id"]
    assert _balance(registry, "M1") == (6, 6, 36)

    given.stock({"M1": "-1"}, reason="broken")  # left at the new 6
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "revert_operation", operation_id=up["operation_id"])
    assert refused.value.code == "conflict" and "left since" in refused.value.message
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)


def test_a_lot_is_revalued_on_its_own(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="T1", name="Tracked", batch_tracked=True)
    for lot, unit in (("L1", "4"), ("L2", "6")):
        apply(registry, "create_stock_adjustment", location="MAIN", reason="seed", lines=[
            {"sku": "T1", "quantity_delta": "5", "unit_cost": unit, "lots": [{"lot": lot}]}])
    assert _balance(registry, "T1") == (10, 5, 50)
    with pytest.raises(ShopfloorError) as unnamed:
        apply(registry, "revalue_stock", sku="T1", location="MAIN", unit_cost="3",
              reason="x")
    assert unnamed.value.field == "lot"
    # L1's 5 units are held at the average 5 (25); at 3 they are worth 15: 10.00 off
    done = apply(registry, "revalue_stock", sku="T1", location="MAIN", lot="L1",
                 unit_cost="3", reason="short dated")
    assert (done["value_before"], done["value_after"], done["change"]) == ("25", "15", "-10")
    assert _balance(registry, "T1") == (10, 4, 40)
    assert lines(entries(registry, done["number"])[-1]) == {STOCK: D(-10),
                                                            REVALUATION: D(10)}
    (row,) = registry.invoke("list_stock_movements", {"sku": "T1", "limit": 1},
                             ADMIN)["movements"]  # newest first
    assert (row["reason"], D(row["quantity"]), row["batch"]) == ("revaluation", 0, "L1")
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert _balance(registry, "T1") == (10, 5, 50)
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)
