"""Lots in corrections and reverts, by hand on both databases: a receipt or shipment moved
to the right lot, a quantity corrected in its lot, a tracked receipt's price re-costed,
and a receipt revert blocked only when its own lot has been traced onward."""

from __future__ import annotations

from decimal import Decimal as D

from shopfloor.registry.registry import Registry
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.lots.test_lots import lots_of, receive, refused, sell, setup


def test_receipt_lot_and_quantity_corrected(registry: Registry) -> None:
    setup(registry)
    po = receive(registry, "FLOUR", [{"lot": "L1", "quantity": "10"}])
    # the lot was misread: the 10 move to L2 at the average, value unchanged
    done = registry.invoke("correct_purchase_receipt", {"number": po, "sku": "FLOUR",
                                                        "lot": "L2"}, ADMIN)
    changes = {(c["entity"], c["field"]): (c["before"], c["after"]) for c in done["changes"]}
    assert changes[("purchase_order", "line FLOUR lot")] == ("L1", "L2")
    apply(registry, "correct_purchase_receipt", number=po, sku="FLOUR", lot="L2")
    assert lots_of(registry, "FLOUR") == {"L2": D(10)}
    assert stock(registry, "FLOUR") == (D(10), D(0), D(2))
    # 3 fewer came, in L2; then the price was 2.5: 7 x 2.5
    apply(registry, "correct_purchase_receipt", number=po, sku="FLOUR", quantity="7")
    assert lots_of(registry, "FLOUR") == {"L2": D(7)}
    apply(registry, "correct_purchase_receipt", number=po, sku="FLOUR", unit_price="2.5")
    assert stock(registry, "FLOUR") == (D(7), D(0), D("2.5"))
    assert lots_of(registry, "FLOUR") == {"L2": D(7)}
    assert not ledger_mismatches(registry)


def test_receipt_of_several_lots_asks_which(registry: Registry) -> None:
    setup(registry)
    po = receive(registry, "FLOUR", [{"lot": "A", "quantity": "6"}, {"lot": "B", "quantity": "4"}])
    before = snapshot(registry)
    err = refused(registry, "correct_purchase_receipt", number=po, sku="FLOUR", quantity="8")
    assert (err.code, err.field) == ("validation_error", "lot") and "A, B" in err.message
    assert snapshot(registry) == before
    apply(registry, "correct_purchase_receipt", number=po, sku="FLOUR", quantity="8", lot="B")
    assert lots_of(registry, "FLOUR") == {"A": D(6), "B": D(2)}


def test_relot_blocked_when_the_lot_has_left(registry: Registry) -> None:
    setup(registry)
    po = receive(registry, "FLOUR", [{"lot": "L1", "quantity": "10"}])
    so = sell(registry, "4")
    apply(registry, "fulfill_order", number=so)
    before = snapshot(registry)
    err = refused(registry, "correct_purchase_receipt", number=po, sku="FLOUR", lot="L2")
    assert err.code == "conflict" and so in err.message and "traced onward" in err.message
    assert snapshot(registry) == before


def test_shipment_lot_corrected(registry: Registry) -> None:
    setup(registry)
    receive(registry, "FLOUR", [{"lot": "L1", "quantity": "10"}, {"lot": "L2", "quantity": "10"}])
    so = sell(registry, "4")
    apply(registry, "fulfill_order", number=so)  # picks L1 (older)
    assert lots_of(registry, "FLOUR") == {"L1": D(6), "L2": D(10)}
    apply(registry, "correct_shipment", number=so, sku="FLOUR", lot="L2")
    assert lots_of(registry, "FLOUR") == {"L1": D(10), "L2": D(6)}
    assert stock(registry, "FLOUR") == (D(16), D(0), D(2))
    # one fewer shipped: back into L2, the lot it left from, at the 2 it left with
    apply(registry, "correct_shipment", number=so, sku="FLOUR", quantity="3")
    assert lots_of(registry, "FLOUR") == {"L1": D(10), "L2": D(7)}
    assert stock(registry, "FLOUR") == (D(17), D(1), D(2))
    assert not ledger_mismatches(registry)


def test_receipt_revert_is_blocked_per_lot(registry: Registry, given: Given) -> None:
    setup(registry)
    po1 = given.po({"FLOUR": ("10", "2")}, supplier="Mill")["number"]
    r1 = apply(registry, "receive_purchase_order", number=po1,
               lines=[{"sku": "FLOUR", "quantity": "10", "lots": [{"lot": "L1"}]}])
    po2 = given.po({"FLOUR": ("10", "4")}, supplier="Mill")["number"]
    r2 = apply(registry, "receive_purchase_order", number=po2,
               lines=[{"sku": "FLOUR", "quantity": "10", "lots": [{"lot": "L2"}]}])
    assert stock(registry, "FLOUR") == (D(20), D(0), D(3))  # (20 + 40) / 20
    so = sell(registry, "5")
    apply(registry, "fulfill_order", number=so, lines=[{"sku": "FLOUR", "quantity": "5",
                                                        "lots": [{"lot": "L1"}]}])
    # L1 was traced onward to the sales order: its receipt cannot go
    err = refused(registry, "revert_operation", operation_id=r1["operation_id"])
    assert err.code == "conflict" and so in err.message and "lot L1" in err.message
    # L2 is untouched: its receipt goes, leaving at the 4 it came with;
    # what stays is re-averaged: (15 x 3 - 10 x 4) / 5 = 1
    apply(registry, "revert_operation", operation_id=r2["operation_id"])
    assert lots_of(registry, "FLOUR") == {"L1": D(5)}
    assert stock(registry, "FLOUR") == (D(5), D(0), D(1))
    assert not ledger_mismatches(registry)
