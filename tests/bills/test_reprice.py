"""Re-pricing a receipt (issue 30): one receipt's correction or landed cost expenses only
what left of its own goods (defect 3); a line bought in a supplier's unit or currency is
corrected in that unit and currency at the receipt's own rate (defect 4); every
correction takes a reason the operation log shows (item 11). SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest
from sqlalchemy import select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Variance
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.machines import money


def _variances(reg: Registry) -> dict[tuple[str, str | None], D]:
    out: dict[tuple[str, str | None], D] = {}
    with reg.store.reading() as s:
        for kind, number, amount in s.execute(select(
                Variance.kind, Variance.document_number, Variance.amount)):
            out[(kind, number)] = out.get((kind, number), D(0)) + amount
    return {k: v for k, v in out.items() if v}


def test_every_correction_takes_a_reason_the_log_shows(registry: Registry, given: Given) -> None:
    given.company()
    given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number="PO-00001")
    given.so({"M1": ("4", "9")})
    apply(registry, "fulfill_order", number="SO-00001")
    given.recipe("P1", {"M1": "1"})
    apply(registry, "create_manufacturing_order", sku="P1", quantity="2", location="MAIN")
    apply(registry, "complete_manufacturing_order", number="MO-00001")
    done = [apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                  unit_price="5.5", reason="invoice 77 says 5.50"),
            apply(registry, "correct_shipment", number="SO-00001", sku="M1", quantity="3",
                  reason="one left on the dock"),
            apply(registry, "correct_manufacturing_order", number="MO-00001",
                  completed_quantity="1", reason="one was not finished")]
    done.append(apply(registry, "revert_operation", operation_id=done[-1]["operation_id"],
                      reason="it was finished after all"))
    log = registry.invoke("get_operation_log", {"limit": 4}, ADMIN)["entries"]
    said = [(e["summary"], e["arguments"]["reason"]) for e in reversed(log)]
    for (summary, reason), why in zip(said, ["invoice 77 says 5.50", "one left on the dock",
                                             "one was not finished",
                                             "it was finished after all"], strict=True):
        assert reason == why and summary.endswith(f"(reason: {why})"), summary


def _two_receipts(reg: Registry, negative: bool = False) -> None:
    """Receipt A (PO-00001, 10 @ 5) and receipt B (PO-00002, 10 @ 8) of M1 at MAIN."""
    Given(reg).company(negative=negative)
    for price in ("5", "8"):
        apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
              lines=[{"sku": "M1", "quantity": "10", "unit_price": price}])
    apply(reg, "receive_purchase_order", number="PO-00001")
    apply(reg, "receive_purchase_order", number="PO-00002")


@pytest.mark.parametrize("how", ["supplier_return", "receipt_correction"])
def test_a_correction_of_receipt_a_expenses_nothing_against_b(registry: Registry,
                                                              how: str) -> None:
    """B's goods went back to the supplier (or B's quantity was corrected down) at B's own
    cost: none of A's goods left, so all of A's difference stays on the stock."""
    _two_receipts(registry)
    if how == "supplier_return":
        apply(registry, "create_supplier_return", number="PO-00002", reason="bad",
              lines=[{"sku": "M1", "quantity": "6"}])
    else:
        apply(registry, "correct_purchase_receipt", number="PO-00002", sku="M1", quantity="4")
    held = stock(registry, "M1")
    assert held[0] == 14 and held[2] == D("5.857143")  # (50 + 32) / 14
    apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1", unit_price="6")
    assert _variances(registry) == {}  # nothing of A's left
    assert money(registry)["ledger"][(1, 1)] == D(92)  # 50 + 10 (A's difference) + 32
    assert not ledger_mismatches(registry)


def test_a_landed_cost_of_receipt_a_expenses_nothing_against_b(registry: Registry,
                                                               given: Given) -> None:
    _two_receipts(registry)
    apply(registry, "create_supplier_return", number="PO-00002", reason="bad",
          lines=[{"sku": "M1", "quantity": "10"}])
    given.so({"M1": ("5", "9")})
    apply(registry, "fulfill_order", number="SO-00001")
    apply(registry, "add_landed_cost", number="PO-00001", amount="20", description="freight")
    # half of A's goods shipped: half of its freight left with them, none with B's return
    assert _variances(registry) == {("landed_cost", "SO-00001"): D(10)}
    assert not ledger_mismatches(registry)


def _in_boxes_and_dollars(reg: Registry, boxes: str = "5") -> None:
    """M1 bought from Wires in boxes of 12 at 30 USD a box, `boxes` of 5 received ten days
    ago with USD at 0.8; 0.9 from five days ago."""
    given = Given(reg).company()
    now = reg.clock
    given.supplier("Wires", currency="USD")
    given.apply("set_exchange_rate", currency="USD", rate="0.8", valid_from="2000-01-01")
    given.offer("M1", "Wires", purchase_unit="box", units_per_purchase_unit="12",
                price_breaks=[{"min_quantity": "0", "unit_price": "30"}])
    given.po({"M1": {"quantity": "5", "unit": "box", "unit_price": "30"}}, supplier="Wires")
    reg.clock = lambda: now() - timedelta(days=10)
    try:
        apply(reg, "receive_purchase_order", number="PO-00001",
              lines=[{"sku": "M1", "quantity": boxes}])
    finally:
        reg.clock = now
    apply(reg, "set_exchange_rate", currency="USD", rate="0.9",
          valid_from=(now() - timedelta(days=5)).date().isoformat())
    assert stock(reg, "M1") == (D(boxes) * 12, D(0), D(2))  # 30 / 12 x 0.8


def test_a_line_in_boxes_and_dollars_is_corrected_at_the_receipts_rate(
        registry: Registry, given: Given) -> None:
    _in_boxes_and_dollars(registry)
    given.so({"M1": ("15", "9")})
    apply(registry, "fulfill_order", number="SO-00001")
    before = money(registry)
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                 unit_price="36", reason="the supplier's invoice")
    line = done["lines"][0]
    assert (line["unit_price"], line.get("unit")) == ("36", "box")
    # 36 USD a box of 12 at 0.8 = 2.40 a piece: 0.40 more on each of the 60 received;
    # the 45 here +18, the 15 shipped took 6
    assert stock(registry, "M1") == (D(45), D(0), D("2.4"))
    assert _variances(registry) == {("price_correction", "SO-00001"): D(6)}
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert money(registry) == before



def test_two_receipts_in_dollars_each_at_its_own_days_rate(registry: Registry) -> None:
    _in_boxes_and_dollars(registry, boxes="2")  # 24 pcs at 2.00
    apply(registry, "receive_purchase_order", number="PO-00001")  # 36 pcs at 2.25 (0.9)
    assert stock(registry, "M1") == (D(60), D(0), D("2.15"))
    apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
          unit_price="36")
    # 24 x 0.40 + 36 x 0.45 = 25.80 more: 129 + 25.80 over 60
    assert stock(registry, "M1") == (D(60), D(0), D("2.58"))
    done = apply(registry, "create_supplier_return", number="PO-00001", reason="bad",
                 lines=[{"sku": "M1", "quantity": "1", "unit": "box"}])
    assert [(r["quantity"], r["unit_cost"]) for r in done["lines"]] == [("12", "2.58")]
    assert stock(registry, "M1") == (D(48), D(0), D("2.58"))
    assert _variances(registry) == {}
    assert not ledger_mismatches(registry)


def test_a_quantity_in_boxes_is_corrected_in_boxes(registry: Registry) -> None:
    _in_boxes_and_dollars(registry)  # 60 pcs at 2.00, received when USD was 0.8
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                 quantity="4")
    assert done["lines"][0]["done_quantity"] == "4"
    assert stock(registry, "M1") == (D(48), D(0), D(2))  # left at what it came in at
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                 quantity="4.5")
    assert stock(registry, "M1") == (D(54), D(0), D("2.027778"))  # 6 more at 2.25 today
    assert not ledger_mismatches(registry)


def test_a_correction_in_boxes_reverts_to_the_boxes_received(registry: Registry) -> None:
    """The log says a boxed line's figures as "4 box (48 pcs)": its revert reads the stock
    figure back from it, and the figure in boxes too (it once refused, "changed since")."""
    _in_boxes_and_dollars(registry)
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                 quantity="4")
    assert stock(registry, "M1") == (D(48), D(0), D(2))
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert stock(registry, "M1") == (D(60), D(0), D(2))
    line = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)["lines"][0]
    assert (line["done_quantity"], line["unit"]) == ("5", "box")
    assert not ledger_mismatches(registry)
