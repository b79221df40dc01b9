"""Purchase -> receive (partial, twice) -> manufacture (two levels) -> fulfil, by hand.

Every figure below is computed by hand in the comments; Decimal equality, no tolerance.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches


def stock(reg: Registry, sku: str) -> dict[str, Any]:
    rows = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"]
    assert len(rows) == 1
    return {k: D(rows[0][k]) for k in ("on_hand", "committed", "available", "average_cost")}


def test_purchase_receive_manufacture_fulfil(registry: Registry, given: Given) -> None:
    reg = registry
    given.location()
    given.supplier()
    given.customer()
    for sku, kind in (("M1", "material"), ("M2", "material"), ("I1", "intermediate"),
                      ("P1", "product")):
        given.item(sku, kind, name=sku)
    apply(reg, "update_recipe", sku="I1", components=[{"sku": "M1", "quantity": "3"}])
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "I1", "quantity": "2"},
                                                      {"sku": "M2", "quantity": "1"}])

    po1 = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
                lines=[{"sku": "M1", "quantity": "100", "unit_price": "2.00"},
                       {"sku": "M2", "quantity": "50", "unit_price": "5.00"}])
    assert po1["status"] == "open" and D(po1["total"]) == D("450")
    r1 = apply(reg, "receive_purchase_order", number=po1["number"],
               lines=[{"sku": "M1", "quantity": "40"}])
    assert r1["status"] == "partially_received"
    assert stock(reg, "M1")["on_hand"] == D(40) and stock(reg, "M1")["average_cost"] == D(2)
    r1b = apply(reg, "receive_purchase_order", number=po1["number"],
                lines=[{"sku": "M1", "quantity": "35"}, {"sku": "M2", "quantity": "20"}])
    assert r1b["status"] == "partially_received"
    assert {ln["sku"]: D(ln["done_quantity"]) for ln in r1b["lines"]} == {"M1": 75, "M2": 20}
    assert stock(reg, "M1")["on_hand"] == D(75) and stock(reg, "M2")["on_hand"] == D(20)
    r2 = apply(reg, "receive_purchase_order", number=po1["number"])  # the rest: 25 M1, 30 M2
    assert r2["status"] == "received"
    assert stock(reg, "M1")["on_hand"] == D(100) and stock(reg, "M2")["on_hand"] == D(50)

    po2 = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
                lines=[{"sku": "M1", "quantity": "50", "unit_price": "3.50"}])
    apply(reg, "receive_purchase_order", number=po2["number"])
    # (100 * 2.00 + 50 * 3.50) / 150 = 375 / 150 = 2.50
    assert stock(reg, "M1") == {"on_hand": D(150), "committed": D(0), "available": D(150),
                                "average_cost": D("2.5")}

    mo1 = apply(reg, "create_manufacturing_order", sku="I1", quantity="10", location="MAIN")
    assert stock(reg, "M1")["committed"] == D(30) and stock(reg, "M1")["available"] == D(120)
    apply(reg, "complete_manufacturing_order", number=mo1["number"], quantity="4")
    # 12 M1 consumed at 2.50 -> I1 costs 3 * 2.50 = 7.50 each; 18 M1 still committed
    assert stock(reg, "M1")["on_hand"] == D(138) and stock(reg, "M1")["committed"] == D(18)
    assert stock(reg, "I1")["on_hand"] == D(4) and stock(reg, "I1")["average_cost"] == D("7.5")
    done = apply(reg, "complete_manufacturing_order", number=mo1["number"])
    assert done["status"] == "done"
    assert stock(reg, "M1") == {"on_hand": D(120), "committed": D(0), "available": D(120),
                                "average_cost": D("2.5")}

    # A receipt after consumption re-averages: (120 * 2.50 + 30 * 4.00) / 150 = 2.80
    po3 = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
                lines=[{"sku": "M1", "quantity": "30", "unit_price": "4.00"}])
    apply(reg, "receive_purchase_order", number=po3["number"])
    assert stock(reg, "M1")["average_cost"] == D("2.8")

    mo2 = apply(reg, "create_manufacturing_order", sku="P1", quantity="4", location="MAIN")
    apply(reg, "complete_manufacturing_order", number=mo2["number"])
    # P1 = 2 * I1 (7.50) + 1 * M2 (5.00) = 20.00 per unit
    assert stock(reg, "P1") == {"on_hand": D(4), "committed": D(0), "available": D(4),
                                "average_cost": D(20)}
    assert stock(reg, "I1")["on_hand"] == D(2) and stock(reg, "M2")["on_hand"] == D(46)

    so = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": "P1", "quantity": "3", "unit_price": "45"}])
    assert stock(reg, "P1")["committed"] == D(3) and stock(reg, "P1")["available"] == D(1)
    f1 = apply(reg, "fulfill_order", number=so["number"], lines=[{"sku": "P1", "quantity": "2"}])
    assert f1["status"] == "partially_fulfilled"
    assert stock(reg, "P1") == {"on_hand": D(2), "committed": D(1), "available": D(1),
                                "average_cost": D(20)}
    f2 = apply(reg, "fulfill_order", number=so["number"])
    assert f2["status"] == "fulfilled"
    assert stock(reg, "P1")["on_hand"] == D(1) and stock(reg, "P1")["committed"] == D(0)

    moves = reg.invoke("list_stock_movements", {"sku": "P1"}, ADMIN)["movements"]
    assert [(m["reason"], D(m["quantity"]), D(m["unit_cost"])) for m in moves] == [
        ("shipment", D(-1), D(20)), ("shipment", D(-2), D(20)), ("production", D(4), D(20))]
    assert not ledger_mismatches(reg)


def test_terminal_documents_are_immutable(registry: Registry) -> None:
    from shopfloor.kernel.errors import ShopfloorError
    from tests.helpers import snapshot

    reg = registry
    Given(reg).company()
    po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "5", "unit_price": "1"}])
    apply(reg, "receive_purchase_order", number=po["number"])
    before = snapshot(reg)
    for tool, args in (("receive_purchase_order", {}), ("delete_purchase_order", {}),
                       ("modify_purchase_order", {"notes": "late edit"})):
        try:
            apply(reg, tool, number=po["number"], **args)
        except ShopfloorError as exc:
            assert exc.code in ("conflict", "validation_error"), exc.to_payload()
        else:
            raise AssertionError(f"{tool} changed a received order")
    assert snapshot(reg) == before
