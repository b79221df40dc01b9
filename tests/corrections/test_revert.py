"""revert_operation by hand: what depends on an operation blocks it, naming the blocker;
reverting in reverse order gives back balances, committed stock and average cost exactly,
and documents as they were; a revert happens once."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot


def stock(reg: Registry, sku: str, location: str = "MAIN") -> tuple[D, D, D]:
    rows = reg.invoke("get_stock", {"sku": sku, "location": location}, ADMIN)["balances"]
    if not rows:
        return D(0), D(0), D(0)
    r = rows[0]
    return D(r["on_hand"]), D(r["committed"]), D(r["average_cost"])


def revert(reg: Registry, result: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return apply(reg, "revert_operation", operation_id=result["operation_id"], **extra)


def _seeded(reg: Registry) -> None:
    given = Given(reg).company()
    given.stock({"M1": ("6", "2")})
    given.po({"M1": ("10", "5")})
    given.so({"M1": ("4", "9")})


def test_receive_ship_then_revert_both_in_reverse_order(registry: Registry) -> None:
    _seeded(registry)
    assert stock(registry, "M1") == (D(6), D(4), D(2))
    receipt = apply(registry, "receive_purchase_order", number="PO-00001")
    # (6 x 2 + 10 x 5) / 16 = 62 / 16 = 3.875
    assert stock(registry, "M1") == (D(16), D(4), D("3.875"))
    shipment = apply(registry, "fulfill_order", number="SO-00001")
    assert stock(registry, "M1") == (D(12), D(0), D("3.875"))

    before = snapshot(registry)
    for preview in (True, False):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke("revert_operation", {"operation_id": receipt["operation_id"],
                                                 "preview": preview}, ADMIN)
        assert info.value.code == "conflict" and info.value.field == "operation_id"
        assert "SO-00001" in info.value.message and "shipment 4" in info.value.message
        assert any("SO-00001" in b for b in info.value.details["blockers"])
    assert snapshot(registry) == before

    preview = registry.invoke("revert_operation", {"operation_id": shipment["operation_id"]},
                              ADMIN)
    assert preview["preview"] is True and preview["preview_token"]
    rows = preview["document"]["rows"]
    assert [(r["sku"], r["quantity"], r["unit_cost"], r["document_number"]) for r in rows] == \
        [("M1", "4", "3.875", "SO-00001")]
    changes = {(c["entity"], c["field"]): (c["before"], c["after"]) for c in preview["changes"]}
    assert changes[("sales_order", "line M1 shipped")] == ("4", "0")
    assert changes[("sales_order", "status")] == ("fulfilled", "open")
    assert changes[("stock", "on_hand")] == ("12", "16")
    assert changes[("stock", "committed")] == ("0", "4")
    done = registry.invoke("revert_operation", preview["apply"]["arguments"], ADMIN)
    assert done["reverted_operation_id"] == shipment["operation_id"]
    assert done["reverted_tool"] == "fulfill_order"
    assert stock(registry, "M1") == (D(16), D(4), D("3.875"))

    done = revert(registry, receipt)
    # back to before both: 6 on hand at 2, 4 committed to the open sales order
    assert stock(registry, "M1") == (D(6), D(4), D(2))
    po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
    so = registry.invoke("get_sales_order", {"number": "SO-00001"}, ADMIN)
    assert (po["status"], po["lines"][0]["done_quantity"]) == ("open", "0")
    assert (so["status"], so["lines"][0]["done_quantity"]) == ("open", "0")
    assert not ledger_mismatches(registry)

    # the reverts are operations of their own, naming what they reverted; history stays
    log = registry.invoke("get_operation_log", {"tool": "revert_operation"}, ADMIN)["entries"]
    assert [e["arguments"]["operation_id"] for e in log] == [receipt["operation_id"],
                                                             shipment["operation_id"]]
    moves = registry.invoke("list_stock_movements", {"sku": "M1"}, ADMIN)["movements"]
    assert [(m["reason"], m["quantity"]) for m in moves] == [
        ("revert", "-10"), ("revert", "4"), ("shipment", "-4"), ("receipt", "10"),
        ("adjustment", "6")]

    # once only: a second revert of either is refused and writes nothing
    before = snapshot(registry)
    for original in (receipt, shipment):
        with pytest.raises(ShopfloorError) as info:
            revert(registry, original)
        assert info.value.code == "conflict" and "already reverted" in info.value.message
    assert snapshot(registry) == before
    # and the order can be received again, as if never received
    apply(registry, "receive_purchase_order", number="PO-00001")
    assert stock(registry, "M1") == (D(16), D(4), D("3.875"))


def test_revert_of_adjustment_transfer_and_production(registry: Registry, given: Given) -> None:
    given.company()
    given.recipe("P1", {"M1": "2", "M2": "1"})
    given.stock({"M1": ("10", "1.5"), "M2": ("3", "4")})
    start = {s: stock(registry, s) for s in ("M1", "M2", "P1")}
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="3", location="MAIN")
    made = apply(registry, "complete_manufacturing_order", number=mo["number"], quantity="2")
    # 2 x (2 x 1.5 + 1 x 4) = 2 units at 7
    assert stock(registry, "P1") == (D(2), D(0), D(7))
    assert stock(registry, "M1") == (D(6), D(2), D("1.5"))  # 2 more committed for the 3rd
    moved = apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
                  lines=[{"sku": "M1", "quantity": "1"}])
    # the transfer moved M1 out after the production: reverting the production is fine
    # (M1 came back in), but P1 never left, so it can go
    revert(registry, moved)
    assert stock(registry, "M1", "SHOP") == (D(0), D(0), D(0))  # as before it came
    revert(registry, made)
    got = registry.invoke("get_manufacturing_order", {"number": mo["number"]}, ADMIN)
    assert (got["status"], got["completed_quantity"]) == ("planned", "0")
    assert stock(registry, "M1") == (D(10), D(6), D("1.5"))
    revert(registry, mo)
    assert {s: stock(registry, s) for s in ("M1", "M2", "P1")} == start
    assert not ledger_mismatches(registry)


def test_close_and_create_revert_and_what_cannot(registry: Registry) -> None:
    _seeded(registry)
    apply(registry, "receive_purchase_order", number="PO-00001",
          lines=[{"sku": "M1", "quantity": "4"}])
    closed = apply(registry, "close_purchase_order", number="PO-00001")
    revert(registry, closed)
    po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
    assert po["status"] == "partially_received"
    closed = apply(registry, "close_sales_order", number="SO-00001")
    assert stock(registry, "M1")[1] == D(0)
    revert(registry, closed)
    assert stock(registry, "M1")[1] == D(4)

    created = registry.invoke("get_operation_log", {"tool": "create_purchase_order"},
                              ADMIN)["entries"][0]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=created["operation_id"])
    assert info.value.code == "conflict" and "received" in info.value.message
    loc = registry.invoke("get_operation_log", {"tool": "create_location"}, ADMIN)["entries"][0]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=loc["operation_id"])
    assert info.value.code == "conflict" and "cannot be reverted" in info.value.message
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id="no-such-operation")
    assert (info.value.code, info.value.field) == ("not_found", "operation_id")
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("revert_operation", {"operation_id": loc["operation_id"]},
                        Actor.of("op", "operator"))
    assert info.value.code == "forbidden"
    tool = next(t for t in registry.tools() if t.name == "revert_operation")
    assert tool.facts.destructive and tool.facts.role.name == "admin"
