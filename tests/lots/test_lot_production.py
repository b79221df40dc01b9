"""Production reporting with lots, and trace through two manufacturing levels.

Every figure is computed by hand in the comments; both databases.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.lots.test_lots import TODAY, lots_of


def stock(reg: Registry, sku: str) -> dict[str, D]:
    rows = reg.invoke("get_stock", {"sku": sku, "location": "MAIN"}, ADMIN)["balances"]
    return {k: D(rows[0][k]) for k in ("on_hand", "committed", "average_cost")} if rows else {}


def buy(reg: Registry, supplier: str, sku: str, qty: str, price: str,
        lots: list[dict[str, Any]] | None = None) -> str:
    po = apply(reg, "create_purchase_order", supplier=supplier, location="MAIN",
               lines=[{"sku": sku, "quantity": qty, "unit_price": price}])
    line: dict[str, Any] = {"sku": sku, "quantity": qty}
    if lots:
        line["lots"] = lots
    apply(reg, "receive_purchase_order", number=po["number"], lines=[line])
    return str(po["number"])


def base(reg: Registry) -> Given:
    reg.clock = lambda: TODAY
    given = Given(reg)
    given.location()
    for name in ("Mill", "Sweet"):
        given.supplier(name)
    for name in ("Cafe", "Deli"):
        given.customer(name)
    return given


def test_completion_costs_the_output_from_actual_consumption_with_scrap_and_a_substitute(
        registry: Registry) -> None:
    reg = registry
    base(reg)
    apply(reg, "create_item", sku="M1", name="M1", batch_tracked=True)
    apply(reg, "create_item", sku="M2", name="M2")
    apply(reg, "create_item", sku="SUB", name="Substitute for M2")
    apply(reg, "create_item", sku="P1", name="P1", kind="product", batch_tracked=True)
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"},
                                                      {"sku": "M2", "quantity": "1"}])
    # M1: lot A 10 @ 2 (expires first), lot B 10 @ 3 -> average (20 + 30) / 20 = 2.5
    buy(reg, "Mill", "M1", "10", "2", [{"lot": "A", "expiry": "2027-01-01"}])
    buy(reg, "Mill", "M1", "10", "3", [{"lot": "B", "expiry": "2027-06-01"}])
    buy(reg, "Mill", "M2", "10", "4")
    buy(reg, "Mill", "SUB", "10", "5")
    mo = apply(reg, "create_manufacturing_order", sku="P1", quantity="4", location="MAIN")
    assert stock(reg, "M1")["committed"] == D(8) and stock(reg, "M2")["committed"] == D(4)
    # 3 good + 1 scrapped = 4 made; recipe says 8 M1 + 4 M2; the floor used 9 M1, no M2,
    # 4 SUB instead. Cost 9 x 2.5 + 4 x 5 = 42.5 over 3 good units = 14.166667 (6 places).
    args = {"number": mo["number"], "quantity": "3", "scrap": "1", "lot": "P-1",
            "consumed": [{"sku": "M1", "quantity": "9"}, {"sku": "M2", "quantity": "0"},
                         {"sku": "SUB", "quantity": "4"}]}
    preview = reg.invoke("complete_manufacturing_order", args, ADMIN)
    variance = sorted(w["message"] for w in preview["warnings"] if w["code"] == "variance")
    assert variance == ["M1: 9 used against 8 planned (+1, +2.5 at cost)",
                        "M2: 0 used against 4 planned (-4, -16 at cost)",
                        "SUB: 4 used against 0 planned (+4, +20 at cost)"]
    done = apply(reg, "complete_manufacturing_order", **args)
    # the scrapped unit counts: 3 + 1 reach the 4 ordered, so the order is done
    assert done["status"] == "done" and D(done["completed_quantity"]) == 3
    assert stock(reg, "P1") == {"on_hand": D(3), "committed": D(0),
                                "average_cost": D("14.166667")}
    assert lots_of(reg, "P1") == {"P-1": 3}
    # FEFO: lot A's 10 cover the 9; nothing stays committed for a finished order
    assert lots_of(reg, "M1") == {"A": 1, "B": 10}
    assert stock(reg, "M1")["committed"] == D(0) and stock(reg, "M2")["committed"] == D(0)
    assert stock(reg, "M2")["on_hand"] == D(10) and stock(reg, "SUB")["on_hand"] == D(6)
    assert ledger_mismatches(reg) == []


def two_levels(reg: Registry) -> dict[str, str]:
    given = base(reg)
    for sku, kind in (("FLOUR", "material"), ("SUGAR", "material"), ("DOUGH", "intermediate"),
                      ("BREAD", "product")):
        given.item(sku, kind, name=sku, batch_tracked=True)
    given.recipe("DOUGH", {"FLOUR": "2", "SUGAR": "1"})
    given.recipe("BREAD", {"DOUGH": "1"})
    docs = {"po_flour": buy(reg, "Mill", "FLOUR", "20", "1", [{"lot": "F1"}]),
            "po_sugar": buy(reg, "Sweet", "SUGAR", "8", "2", [{"lot": "S1"}])}
    buy(reg, "Mill", "FLOUR", "5", "1", [{"lot": "F2"}])  # another lot, never used
    for key, sku, qty, lot in (("mo_dough", "DOUGH", "5", "D1"), ("mo_bread1", "BREAD", "3", "B1"),
                               ("mo_bread2", "BREAD", "2", "B2")):
        mo = apply(reg, "create_manufacturing_order", sku=sku, quantity=qty, location="MAIN")
        apply(reg, "complete_manufacturing_order", number=mo["number"], lot=lot,
              consumed=[{"sku": "FLOUR", "quantity": "10", "lots": [{"lot": "F1"}]},
                        {"sku": "SUGAR", "quantity": "5"}] if sku == "DOUGH" else None)
        docs[key] = mo["number"]
    for key, customer, lot, qty in (("so_cafe", "Cafe", "B1", "2"), ("so_deli", "Deli", "B2", "1")):
        so = apply(reg, "create_sales_order", customer=customer, location="MAIN",
                   lines=[{"sku": "BREAD", "quantity": qty}])
        apply(reg, "fulfill_order", number=so["number"],
              lines=[{"sku": "BREAD", "quantity": qty, "lots": [{"lot": lot}]}])
        docs[key] = so["number"]
    return docs


def test_trace_forward_through_two_levels_finds_every_lot_and_customer(
        registry: Registry) -> None:
    docs = two_levels(registry)
    t = registry.invoke("trace_lot", {"sku": "FLOUR", "lot": "F1"}, ADMIN)
    assert [(x["sku"], x["lot"], x["level"], x["via"]) for x in t["lots"]] == [
        ("FLOUR", "F1", 0, None), ("DOUGH", "D1", 1, docs["mo_dough"]),
        ("BREAD", "B1", 2, docs["mo_bread1"]), ("BREAD", "B2", 2, docs["mo_bread2"])]
    assert sorted((p["name"], p["document"], p["lot"], D(p["quantity"])) for p in t["parties"]) \
        == [("Cafe", docs["so_cafe"], "B1", 2), ("Deli", docs["so_deli"], "B2", 1)]
    assert [(r["sku"], r["lot"], D(r["on_hand"])) for r in t["remaining"]] == [
        ("BREAD", "B1", 1), ("BREAD", "B2", 1), ("FLOUR", "F1", 10)]
    documents = {m["document"] for m in t["movements"]}
    assert documents == {docs[k] for k in ("po_flour", "mo_dough", "mo_bread1", "mo_bread2",
                                           "so_cafe", "so_deli")}


def test_trace_backward_from_a_product_lot_reaches_every_supplier_lot(
        registry: Registry) -> None:
    docs = two_levels(registry)
    t = registry.invoke("trace_lot", {"sku": "BREAD", "lot": "B2", "direction": "backward"},
                        ADMIN)
    assert [(x["sku"], x["lot"], x["level"]) for x in t["lots"]] == [
        ("BREAD", "B2", 0), ("DOUGH", "D1", 1), ("FLOUR", "F1", 2), ("SUGAR", "S1", 2)]
    assert sorted((p["name"], p["document"], p["lot"], D(p["quantity"])) for p in t["parties"]) \
        == [("Mill", docs["po_flour"], "F1", 20), ("Sweet", docs["po_sugar"], "S1", 8)]
    assert t["untracked"] == []


def test_a_recall_holds_the_lot_and_everything_made_from_it_in_one_write(
        registry: Registry, given: Given) -> None:
    docs = two_levels(registry)
    preview = registry.invoke("hold_lot", {"sku": "SUGAR", "lot": "S1", "reason": "recall",
                                           "downstream": True}, ADMIN)
    held = {c["key"] for c in preview["changes"] if c["field"] == "held"}
    assert held == {"SUGAR/S1", "DOUGH/D1", "BREAD/B1", "BREAD/B2"}
    assert {(p["name"], p["lot"]) for p in preview["document"]["shipped"]} == {
        ("Cafe", "B1"), ("Deli", "B2")}
    apply(registry, "hold_lot", sku="SUGAR", lot="S1", reason="recall", downstream=True)
    assert all(r["held"] for r in registry.invoke("list_lots", {"sku": "BREAD"}, ADMIN)["lots"])
    so = given.so({"BREAD": "1"}, customer="Cafe")
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "fulfill_order", number=so["number"])
    assert info.value.code == "insufficient_stock" and "B1" in info.value.message
    assert docs


def test_the_movements_of_one_document_say_which_lots_went_on_it(registry: Registry) -> None:
    docs = two_levels(registry)
    rows = registry.invoke("list_stock_movements", {"document": docs["mo_dough"]},
                           ADMIN)["movements"]
    assert sorted((r["sku"], r["batch"], D(r["quantity"])) for r in rows) == [
        ("DOUGH", "D1", D(5)), ("FLOUR", "F1", D(-10)), ("SUGAR", "S1", D(-5))]
