"""Stock in held or expired lots is on hand but not available: picking never takes it, so
availability, promises, planning and sales-order warnings leave it out and say how much
of it there is. Hand-computed figures, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D
from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import run_job

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
TODAY = NOW.date().isoformat()


def _world(reg: Registry, free: str = "4", blocked: str = "6", *, expired: bool = False) -> None:
    """FLOUR at MAIN: lot L1 usable (none when `free` is 0), lot L2 held (or, with
    `expired`, past its expiry)."""
    reg.clock = lambda: NOW
    given = Given(reg).bakery(purchase_price="2", default_supplier="Mill")
    for lot, qty, expiry in (("L1", free, "2027-06-01"),
                             ("L2", blocked, "2026-11-01" if expired else None)):
        if D(qty) == 0:
            continue
        spec: dict[str, Any] = {"lot": lot}
        if expiry:
            spec["expiry"] = expiry
        given.stock({"FLOUR": {"quantity": qty, "unit_cost": "2", "lots": [spec]}})
    if not expired:
        apply(reg, "hold_lot", sku="FLOUR", lot="L2", reason="lab test pending")


def _figures(out: dict[str, Any]) -> tuple[D, ...]:
    return tuple(D(out[k]) for k in ("on_hand", "held", "expired", "available"))


def test_a_held_lot_is_not_available(registry: Registry) -> None:
    _world(registry)
    for args in ({}, {"location": "MAIN"}):
        got = registry.invoke("check_availability", {"sku": "FLOUR", "quantity": "5", **args},
                              ADMIN)
        assert _figures(got) == (10, 6, 0, 4) and got["can_ship"] is False
    ok = registry.invoke("check_availability", {"sku": "FLOUR", "quantity": "4"}, ADMIN)
    assert ok["can_ship"] is True
    # a promise by a date counts the same stock
    dated = registry.invoke("check_availability",
                            {"sku": "FLOUR", "quantity": "5", "date": "2026-11-30"}, ADMIN)
    assert _figures(dated) == (10, 6, 0, 4) and dated["can_ship"] is False
    [row] = registry.invoke("get_stock", {"sku": "FLOUR"}, ADMIN)["balances"]
    assert _figures(row) == (10, 6, 0, 4)
    item = registry.invoke("get_item", {"sku": "FLOUR"}, ADMIN)
    assert D(item["available"]) == 4 and _figures(item["stock"][0]) == (10, 6, 0, 4)
    [found] = registry.invoke("search_items", {"query": "FLOUR"}, ADMIN)["items"]
    assert (D(found["on_hand"]), D(found["available"])) == (10, 4)
    # released, all of it is available again
    apply(registry, "release_lot", sku="FLOUR", lot="L2")
    got = registry.invoke("check_availability", {"sku": "FLOUR", "quantity": "5"}, ADMIN)
    assert _figures(got) == (10, 0, 0, 10) and got["can_ship"] is True


def test_an_expired_lot_is_not_available(registry: Registry) -> None:
    _world(registry, expired=True)
    got = registry.invoke("check_availability", {"sku": "FLOUR", "quantity": "5"}, ADMIN)
    assert _figures(got) == (10, 0, 6, 4) and got["can_ship"] is False
    dated = registry.invoke("check_availability",
                            {"sku": "FLOUR", "quantity": "5", "date": "2026-11-30"}, ADMIN)
    assert _figures(dated) == (10, 0, 6, 4) and dated["can_ship"] is False
    [row] = registry.invoke("get_stock", {"sku": "FLOUR", "location": "MAIN"}, ADMIN)["balances"]
    assert _figures(row) == (10, 0, 6, 4)


def test_committed_stock_comes_out_of_the_usable_lots(registry: Registry, given: Given) -> None:
    _world(registry)
    given.so({"FLOUR": "3"}, customer="Cafe")
    got = registry.invoke("check_availability", {"sku": "FLOUR", "quantity": "2"}, ADMIN)
    assert _figures(got) == (10, 6, 0, 1) and got["can_ship"] is False


def test_a_component_in_a_held_lot_is_a_shortage(registry: Registry, given: Given) -> None:
    _world(registry)
    apply(registry, "create_item", sku="BREAD", name="Bread", kind="product")
    given.recipe("BREAD", {"FLOUR": "1"})
    got = registry.invoke("check_availability", {"sku": "BREAD", "quantity": "5"}, ADMIN)
    assert got["can_build"] is False
    assert [(s["sku"], D(s["available"]), D(s["short"])) for s in got["shortages"]] == [
        ("FLOUR", 4, 1)]
    preview = registry.invoke("create_manufacturing_order",
                              {"sku": "BREAD", "quantity": "5", "location": "MAIN"}, ADMIN)
    [short] = [w for w in preview["warnings"] if w["code"] == "short"]
    assert "4" in short["message"] and "L2" in short["message"]


def test_mrp_buys_when_the_only_stock_is_held(registry: Registry, given: Given) -> None:
    _world(registry, free="0")
    given.so({"FLOUR": "5"}, customer="Cafe", due_date="2026-12-10")
    plan = run_job(registry, "run_mrp", today=TODAY)["result"]
    bought = {ln["sku"]: D(ln["quantity"]) for po in plan["purchase_orders"]
              for ln in po["lines"]}
    assert bought == {"FLOUR": D(5)}


def test_mrp_makes_when_the_only_stock_of_a_product_is_held(registry: Registry,
                                                            given: Given) -> None:
    registry.clock = lambda: NOW
    given.location()
    given.supplier("Mill")
    given.customer("Cafe")
    given.item("FLOUR", name="Flour", default_supplier="Mill", purchase_price="1")
    given.item("BREAD", "product", name="Bread", batch_tracked=True, lead_time_days=1)
    given.recipe("BREAD", {"FLOUR": "2"})
    given.stock({"BREAD": {"quantity": "8", "unit_cost": "3", "lots": [{"lot": "B1"}]}})
    apply(registry, "hold_lot", sku="BREAD", lot="B1", reason="recall")
    given.so({"BREAD": "5"}, customer="Cafe", due_date="2026-12-10")
    plan = run_job(registry, "run_mrp", today=TODAY)["result"]
    assert [(m["sku"], D(m["quantity"])) for m in plan["manufacturing_orders"]] == [
        ("BREAD", 5)]
    bought = {ln["sku"]: D(ln["quantity"]) for po in plan["purchase_orders"]
              for ln in po["lines"]}
    assert bought == {"FLOUR": D(10)}


def test_low_stock_leaves_held_lots_out(registry: Registry) -> None:
    _world(registry)
    apply(registry, "modify_item", sku="FLOUR", reorder_point="5")
    [low] = registry.invoke("list_low_stock", {}, ADMIN)["items"]
    assert (low["sku"], D(low["on_hand"]), D(low["available"])) == ("FLOUR", 10, 4)


def test_a_sales_order_beyond_the_free_lots_warns_naming_the_held_stock(
        registry: Registry) -> None:
    _world(registry)
    args = {"customer": "Cafe", "location": "MAIN", "lines": [{"sku": "FLOUR", "quantity": "5"}]}
    preview = registry.invoke("create_sales_order", args, ADMIN)
    [short] = [w for w in preview["warnings"] if w["code"] == "short"]
    assert short["field"] == "lines[0].quantity"
    assert "L2" in short["message"] and "hold" in short["message"]
    assert "4 usable" in short["message"]
    # within the free lots: no warning
    fits = registry.invoke("create_sales_order", {**args, "lines": [
        {"sku": "FLOUR", "quantity": "4"}]}, ADMIN)
    assert not [w for w in fits["warnings"] if w["code"] == "short"]
    # fulfilling what only the held lot could ship is refused, naming it
    number = apply(registry, "create_sales_order", **args)["number"]
    blocked = registry.invoke("fulfill_order", {"number": number}, ADMIN)["warnings"]
    assert blocked[0]["blocking"] and "L2" in blocked[0]["message"]
