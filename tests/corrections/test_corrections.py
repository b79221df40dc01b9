"""Corrections by hand: a receipt's price re-costs what remains as if it had been right,
what already left at the wrong cost is a recorded variance; received, shipped
and completed quantities corrected move only the difference."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from sqlalchemy import select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import StockMovement, Variance
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot


def _value(reg: Registry, sku: str) -> tuple[D, D]:
    """Ledger value of an item at MAIN, and the variances recorded (value that left)."""
    with reg.store.reading() as s:
        rows = s.scalars(select(StockMovement.value).join(StockMovement.item).where(
            StockMovement.item.has(sku=sku), StockMovement.location.has(code="MAIN"))).all()
        adjusted = s.scalars(select(Variance.amount)).all()
    return sum(rows, D(0)), sum(adjusted, D(0))


def test_corrected_receipt_price_recosts_what_remains(registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"M1": ("6", "2")})
    given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number="PO-00001")
    given.so({"M1": ("4", "9")})
    apply(registry, "fulfill_order", number="SO-00001")
    assert stock(registry, "M1") == (D(12), D(0), D("3.875"))  # (12 + 50) / 16

    preview = registry.invoke("correct_purchase_receipt", {
        "number": "PO-00001", "sku": "M1", "unit_price": "6"}, ADMIN)
    changes = {(c["entity"], c["key"], c["field"]): (c["before"], c["after"])
               for c in preview["changes"]}
    # As if received at 6: (6 x 2 + 10 x 6) / 16 = 4.5 for everything, so the 4 shipped
    # left 4 x (4.5 - 3.875) = 2.5 too cheap, and the 12 here are worth 12 x 4.5 = 54.
    assert changes[("stock", "M1@MAIN", "average_cost")] == ("3.875", "4.5")
    assert changes[("variance", "sales_order SO-00001",
                    "M1@MAIN price_correction")] == (None, "2.5")
    assert changes[("purchase_order", "PO-00001", "line M1 price")] == ("5", "6")
    done = registry.invoke("correct_purchase_receipt", preview["apply"]["arguments"], ADMIN)
    assert done["lines"][0]["unit_price"] == "6"
    assert stock(registry, "M1") == (D(12), D(0), D("4.5"))
    value, adjusted = _value(registry, "M1")
    assert adjusted == D("2.5") and value == D(54)  # the stock's value is its ledger's
    moves = registry.invoke("list_stock_movements", {"sku": "M1"}, ADMIN)["movements"]
    # history kept, newest first: one revaluation row (quantity 0, +1 a unit, 7.5 here)
    assert [(m["reason"], m["quantity"], m["unit_cost"], m["value"]) for m in moves[:2]] == [
        ("revaluation", "0", "1", "7.5"), ("shipment", "-4", "3.875", "-15.5")]
    assert not ledger_mismatches(registry)

    # nothing moved since: the revert gives back the old price, negates the revaluation
    # exactly and answers the variance (12 x 3.875 = 46.5 of value here again)
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert stock(registry, "M1") == (D(12), D(0), D("3.875"))
    value, adjusted = _value(registry, "M1")
    assert adjusted == 0 and value == D("46.5")
    po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
    assert po["lines"][0]["unit_price"] == "5"
    assert not ledger_mismatches(registry)


def test_corrected_received_quantity_and_status(registry: Registry, given: Given) -> None:
    given.company()
    given.po({"M2": ("10", "4")})
    apply(registry, "receive_purchase_order", number="PO-00001")
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M2",
                 quantity="7")
    assert (done["status"], done["lines"][0]["done_quantity"]) == ("partially_received", "7")
    assert stock(registry, "M2") == (D(7), D(0), D(4))
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M2",
                 quantity="10", unit_price="4.3")
    assert done["status"] == "received"
    # the 7 re-costed to 4.3, then 3 more at 4.3
    assert stock(registry, "M2") == (D(10), D(0), D("4.3"))
    before = snapshot(registry)
    for args, code, field in [
            ({"sku": "M2", "quantity": "11"}, "validation_error", "quantity"),
            ({"sku": "M2", "quantity": "10"}, "validation_error", "quantity"),
            ({"sku": "M1", "unit_price": "1"}, "validation_error", "sku"),
            ({"sku": "M2"}, "validation_error", None)]:
        with pytest.raises(ShopfloorError) as info:
            apply(registry, "correct_purchase_receipt", number="PO-00001", **args)
        assert info.value.code == code and (field is None or info.value.field == field), args
    assert snapshot(registry) == before
    assert not ledger_mismatches(registry)


def test_corrected_shipment_moves_the_difference_and_commits_again(
        registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"P1": ("10", "3")})
    given.so({"P1": ("5", "9")})
    apply(registry, "fulfill_order", number="SO-00001")
    given.stock({"P1": ("5", "6")}, reason="found")
    assert stock(registry, "P1") == (D(10), D(0), D("4.5"))  # (5 x 3 + 5 x 6) / 10
    done = apply(registry, "correct_shipment", number="SO-00001", sku="P1", quantity="3")
    assert (done["status"], done["lines"][0]["done_quantity"]) == ("partially_fulfilled", "3")
    # 2 come back at the 3 they left with: (10 x 4.5 + 2 x 3) / 12 = 4.25; 2 committed again
    assert stock(registry, "P1") == (D(12), D(2), D("4.25"))
    done = apply(registry, "correct_shipment", number="SO-00001", sku="P1", quantity="5")
    assert done["status"] == "fulfilled"
    assert stock(registry, "P1") == (D(10), D(0), D("4.25"))
    assert not ledger_mismatches(registry)


def test_corrected_completion_unmakes_at_cost(registry: Registry, given: Given) -> None:
    given.company()
    given.recipe("P1", {"M1": "2", "M2": "1"})
    given.stock({"M1": ("10", "1.5"), "M2": ("3", "4")})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="2", location="MAIN")
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    assert stock(registry, "P1") == (D(2), D(0), D(7))  # 2 x 1.5 + 4
    done = apply(registry, "correct_manufacturing_order", number=mo["number"],
                 completed_quantity="1")
    assert (done["status"], done["completed_quantity"]) == ("in_progress", "1")
    assert stock(registry, "P1") == (D(1), D(0), D(7))
    assert stock(registry, "M1") == (D(8), D(2), D("1.5"))
    assert stock(registry, "M2") == (D(2), D(1), D(4))
    done = apply(registry, "correct_manufacturing_order", number=mo["number"],
                 completed_quantity="2")
    assert done["status"] == "done"
    assert stock(registry, "P1") == (D(2), D(0), D(7))
    assert stock(registry, "M1") == (D(6), D(0), D("1.5"))
    assert not ledger_mismatches(registry)


def test_corrections_are_admin_and_destructive(registry: Registry) -> None:
    tools = {t.name: t for t in registry.tools()}
    for name in ("correct_purchase_receipt", "correct_shipment",
                 "correct_manufacturing_order", "revert_operation", "close_purchase_order",
                 "close_sales_order"):
        assert tools[name].facts.writes and tools[name].facts.destructive, name
        assert tools[name].facts.role.name == "admin", name
    for name in ("create_customer_return", "create_supplier_return"):
        policy = tools[name].facts  # they lower stock or its cost: destructive, by an operator
        assert policy.writes and policy.destructive and policy.role.name == "operator"
