"""Close short: a half-received purchase order stops being on order (low stock and MRP),
a half-shipped sales order releases what it still committed; both keep what moved."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.planning.test_mrp import run_job


def _stock(reg: Registry, sku: str) -> dict[str, Any]:
    rows = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"]
    return dict(rows[0])


def _mrp_buys(reg: Registry, sku: str) -> D:
    """What MRP plans to buy of an item: it nets open purchase orders' outstanding lines."""
    plan = run_job(reg, "run_mrp", today="2026-12-01")["result"]
    return sum((D(ln["quantity"]) for g in plan["purchase_orders"] for ln in g["lines"]
                if ln["sku"] == sku), D(0))


def test_closing_a_half_received_order_drops_its_on_order(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_item", sku="M1", reorder_point="20", reorder_quantity="10")
    given.po({"M1": ("10", "5"), "M2": ("10", "2")}, expected_date="2026-12-05")
    given.so({"M2": ("10", "3")}, due_date="2026-12-10")
    apply(registry, "receive_purchase_order", number="PO-00001",
          lines=[{"sku": "M1", "quantity": "4"}, {"sku": "M2", "quantity": "4"}])
    low = registry.invoke("list_low_stock", {}, ADMIN)["items"]
    assert next(r for r in low if r["sku"] == "M1")["on_order"] == "6"  # 10 - 4 received
    # M2: 4 on hand + 6 still on order cover the 10 sold: nothing to buy
    assert _mrp_buys(registry, "M2") == 0

    preview = registry.invoke("close_purchase_order", {"number": "PO-00001"}, ADMIN)
    assert preview["preview"] is True and preview["preview_token"]
    dropped = {c["field"]: (c["before"], c["after"]) for c in preview["changes"]}
    assert dropped["line M1 on order"] == ("6", "0")
    assert dropped["line M2 on order"] == ("6", "0")
    assert dropped["status"] == ("partially_received", "closed")

    done = registry.invoke("close_purchase_order", preview["apply"]["arguments"], ADMIN)
    assert done["status"] == "closed"
    assert [ln["done_quantity"] for ln in done["lines"]] == ["4", "4"]
    low = registry.invoke("list_low_stock", {}, ADMIN)["items"]
    assert next(r for r in low if r["sku"] == "M1")["on_order"] == "0"
    assert _mrp_buys(registry, "M2") == D(6)  # the 6 no longer coming must be bought
    assert _stock(registry, "M1")["on_hand"] == "4"  # what was received stays
    listed = registry.invoke("list_purchase_orders", {"status": "closed"}, ADMIN)["orders"]
    assert [o["number"] for o in listed] == ["PO-00001"]

    before = snapshot(registry)
    for args in ({"number": "PO-00001"}, {"number": "PO-00001", "preview": False}):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke("close_purchase_order", args, ADMIN)
        assert info.value.code == "conflict" and "already closed" in info.value.message
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "receive_purchase_order", number="PO-00001")
    assert info.value.code == "conflict" and "closed" in info.value.message
    assert snapshot(registry) == before


def test_closing_a_half_shipped_sales_order_releases_committed(registry: Registry,
                                                               given: Given) -> None:
    given.company()
    given.stock({"P1": ("10", "3")}, reason="seed")
    given.so({"P1": ("5", "9")})
    apply(registry, "fulfill_order", number="SO-00001", lines=[{"sku": "P1", "quantity": "2"}])
    assert (_stock(registry, "P1")["on_hand"], _stock(registry, "P1")["committed"]) == ("8", "3")

    done = apply(registry, "close_sales_order", number="SO-00001", reason="customer cancelled rest")
    assert done["status"] == "closed"
    stock = _stock(registry, "P1")
    assert (stock["on_hand"], stock["committed"], stock["available"]) == ("8", "0", "8")
    assert D(stock["average_cost"]) == D(3)
    assert not ledger_mismatches(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "fulfill_order", number="SO-00001")
    assert info.value.code == "conflict"


def test_close_is_admin_only_and_destructive_and_refuses_finished_orders(
        registry: Registry, given: Given) -> None:
    given.company()
    tools = {t.name: t for t in registry.tools()}
    for name in ("close_purchase_order", "close_sales_order"):
        assert tools[name].facts.destructive and tools[name].facts.role.name == "admin"
    given.po({"M1": "1"}, status="draft")
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("close_purchase_order", {"number": "PO-00001"}, Actor.of("o", "operator"))
    assert info.value.code == "forbidden"
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_purchase_order", number="PO-00001")
    assert info.value.code == "conflict" and "draft" in info.value.message
    apply(registry, "modify_purchase_order", number="PO-00001", status="open")
    apply(registry, "receive_purchase_order", number="PO-00001")
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_purchase_order", number="PO-00001")
    assert info.value.code == "conflict" and "received" in info.value.message
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_sales_order", number="SO-09999")
    assert info.value.code == "not_found" and info.value.field == "number"
