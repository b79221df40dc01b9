"""Return lines name lots and serials the way movement lines do (`lots`, `serials`; `lot`
still names one), and only ones their order moved: a lot or serial the order never
shipped (or received) is refused before anything is booked. Both databases.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from tests.corrections.test_revert import revert
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.lots.test_lots import lots_of, receive, refused, sell, setup, three_lots


def _serials(reg: Registry) -> dict[str, str]:
    """SN1..SN4 received on one PO; SN1 + SN2 shipped to Cafe, SN3 to Deli."""
    given = Given(reg)
    given.customer("Deli")
    given.item("SCALE", name="Scale", serial_tracked=True, purchase_price="50")
    po = given.po({"SCALE": ("4", "50")}, supplier="Mill")["number"]
    apply(reg, "receive_purchase_order", number=po, lines=[
        {"sku": "SCALE", "quantity": "4", "serials": ["SN1", "SN2", "SN3", "SN4"]}])
    docs = {"po": po}
    for key, customer, serials in (("cafe", "Cafe", ["SN1", "SN2"]), ("deli", "Deli", ["SN3"])):
        so = apply(reg, "create_sales_order", customer=customer, location="MAIN",
                   lines=[{"sku": "SCALE", "quantity": str(len(serials))}])["number"]
        apply(reg, "fulfill_order", number=so, lines=[
            {"sku": "SCALE", "quantity": str(len(serials)), "serials": serials}])
        docs[key] = so
    return docs


def _on_hand(reg: Registry, sku: str) -> set[str]:
    return {lot for lot, q in lots_of(reg, sku).items() if q > 0}


def test_a_wrong_lot_name_is_refused_not_booked(registry: Registry) -> None:
    """It was booked: L-LATE, never shipped on the order, came back to 12 of the 10 it
    ever received, and L-SOON, which was shipped, stayed short."""
    setup(registry)
    three_lots(registry)
    number = sell(registry, "4")
    apply(registry, "fulfill_order", number=number)  # all from L-SOON
    before = snapshot(registry)
    for line, field in (({"lot": "L-LATE"}, "lines[0].lot"),
                        ({"lots": [{"lot": "L-LATE"}]}, "lines[0].lots[0].lot")):
        err = refused(registry, "create_customer_return", number=number, reason="x",
                      lines=[{"sku": "FLOUR", "quantity": "2", **line}])
        assert (err.code, err.field) == ("validation_error", field)
        assert "L-LATE" in err.message and number in err.message
    assert snapshot(registry) == before
    assert lots_of(registry, "FLOUR") == {"L-SOON": 6, "L-MID": 10, "L-LATE": 10}
    # and a supplier return of a lot that PO never received
    po = receive(registry, "FLOUR", [{"lot": "L-NEW", "quantity": "5"}])
    err = refused(registry, "create_supplier_return", number=po, reason="x",
                  lines=[{"sku": "FLOUR", "quantity": "1", "lots": [{"lot": "L-MID"}]}])
    assert (err.code, err.field) == ("validation_error", "lines[0].lots[0].lot")
    assert lots_of(registry, "FLOUR")["L-MID"] == 10


def test_one_line_returns_several_lots_each_no_more_than_it_shipped(
        registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    number = sell(registry, "14")
    apply(registry, "fulfill_order", number=number)  # 10 L-SOON + 4 L-MID
    assert lots_of(registry, "FLOUR") == {"L-MID": 6, "L-LATE": 10}
    err = refused(registry, "create_customer_return", number=number, reason="x", lines=[
        {"sku": "FLOUR", "quantity": "6", "lots": [{"lot": "L-SOON", "quantity": "1"},
                                                   {"lot": "L-MID", "quantity": "5"}]}])
    assert (err.code, err.field) == ("validation_error", "lines[0].lots[1].quantity")
    done = apply(registry, "create_customer_return", number=number, reason="wet", lines=[
        {"sku": "FLOUR", "quantity": "5", "lots": [{"lot": "L-SOON", "quantity": "2"},
                                                   {"lot": "L-MID", "quantity": "3"}]}])
    assert [(ln["lot"], ln["quantity"]) for ln in done["lines"]] == [("L-SOON", "2"),
                                                                     ("L-MID", "3")]
    assert lots_of(registry, "FLOUR") == {"L-SOON": 2, "L-MID": 9, "L-LATE": 10}
    # what came back already counts: 1 more of L-MID's 4 shipped, not 2
    err = refused(registry, "create_customer_return", number=number, reason="x",
                  lines=[{"sku": "FLOUR", "quantity": "2", "lot": "L-MID"}])
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")
    so = registry.invoke("get_sales_order", {"number": number}, ADMIN)
    assert so["lines"][0]["returned_quantity"] == "5"
    revert(registry, done)
    assert lots_of(registry, "FLOUR") == {"L-MID": 6, "L-LATE": 10}
    so = registry.invoke("get_sales_order", {"number": number}, ADMIN)
    assert so["lines"][0]["returned_quantity"] == "0"
    assert ledger_mismatches(registry) == []


def test_two_serials_come_back_on_one_line_and_only_the_customers_own(
        registry: Registry) -> None:
    setup(registry)
    docs = _serials(registry)
    assert _on_hand(registry, "SCALE") == {"SN4"}
    before = snapshot(registry)
    bad: list[tuple[dict[str, Any], str, str]] = [
        ({"serials": ["SN1", "SN3"]}, "lines[0].serials[1]", "validation_error"),  # Deli's
        ({"serials": ["SN1", "SN4"]}, "lines[0].serials[1]", "validation_error"),  # unsold
        ({"serials": ["SN1", "SN9"]}, "lines[0].serials[1]", "not_found"),
        ({"serials": ["SN1", "SN1"]}, "lines[0].serials", "validation_error"),
        ({"serials": ["SN1"]}, "lines[0].serials", "validation_error"),  # 1 for 2
        ({"lot": "SN1"}, "lines[0].lot", "validation_error"),  # one serial is one unit
        ({"lot": "SN1", "serials": ["SN2"]}, "lines[0].lot", "validation_error"),
        ({"lots": [{"lot": "SN1"}]}, "lines[0].lots", "validation_error"),
    ]
    for named, field, code in bad:
        err = refused(registry, "create_customer_return", number=docs["cafe"], reason="x",
                      lines=[{"sku": "SCALE", "quantity": "2", **named}])
        assert (err.code, err.field) == (code, field), (named, err.to_payload())
    assert snapshot(registry) == before

    done = apply(registry, "create_customer_return", number=docs["cafe"], reason="faulty",
                 lines=[{"sku": "SCALE", "quantity": "2", "serials": ["SN1", "SN2"]}])
    assert [(ln["lot"], ln["quantity"]) for ln in done["lines"]] == [("SN1", "1"), ("SN2", "1")]
    assert D(done["value"]) == 100
    assert _on_hand(registry, "SCALE") == {"SN1", "SN2", "SN4"}
    # `lot` still names one, here Deli's
    apply(registry, "create_customer_return", number=docs["deli"], reason="x",
          lines=[{"sku": "SCALE", "quantity": "1", "lot": "SN3"}])
    # to the supplier: two of the serials that PO received, on one line
    sent = apply(registry, "create_supplier_return", number=docs["po"], reason="recall",
                 lines=[{"sku": "SCALE", "quantity": "2", "serials": ["SN2", "SN4"]}])
    assert _on_hand(registry, "SCALE") == {"SN1", "SN3"}
    revert(registry, sent)
    revert(registry, done)
    assert _on_hand(registry, "SCALE") == {"SN3", "SN4"}
    so = registry.invoke("get_sales_order", {"number": docs["cafe"]}, ADMIN)
    assert so["lines"][0]["returned_quantity"] == "0"
    assert ledger_mismatches(registry) == []


def test_scrapped_and_quarantined_lines_name_lots_too(registry: Registry,
                                                     given: Given) -> None:
    setup(registry)
    docs = _serials(registry)
    given.location("QUAR", "Quarantine")
    err = refused(registry, "create_customer_return", number=docs["cafe"], reason="x",
                  lines=[{"sku": "SCALE", "quantity": "1", "serials": ["SN3"],
                          "disposition": "scrap"}])
    assert (err.code, err.field) == ("validation_error", "lines[0].serials[0]")
    done = apply(registry, "create_customer_return", number=docs["cafe"], reason="x",
                 quarantine_location="QUAR", lines=[
                     {"sku": "SCALE", "quantity": "2", "serials": ["SN2", "SN1"],
                      "disposition": "quarantine"}])
    held = registry.invoke("list_lots", {"sku": "SCALE", "location": "QUAR"}, ADMIN)["lots"]
    assert sorted(r["lot"] for r in held) == ["SN1", "SN2"]
    revert(registry, done)
    assert registry.invoke("list_lots", {"sku": "SCALE", "location": "QUAR"},
                           ADMIN)["lots"] == []


@pytest.mark.parametrize("tool", ["create_customer_return", "create_supplier_return"])
def test_untracked_lines_take_no_lots(registry: Registry, given: Given, tool: str) -> None:
    setup(registry)
    apply(registry, "create_item", sku="BAG", name="Bag", purchase_price="1")
    po = given.po({"BAG": "3"}, supplier="Mill")["number"]
    apply(registry, "receive_purchase_order", number=po)
    number = po
    if tool == "create_customer_return":
        number = given.so({"BAG": "2"}, customer="Cafe")["number"]
        apply(registry, "fulfill_order", number=number)
    for named, field in (({"lot": "X"}, "lines[0].lot"), ({"lots": [{"lot": "X"}]},
                                                          "lines[0].lots"),
                         ({"serials": ["X"]}, "lines[0].serials")):
        err = refused(registry, tool, number=number, reason="x",
                      lines=[{"sku": "BAG", "quantity": "1", **named}])
        assert (err.code, err.field) == ("validation_error", field), named
    apply(registry, tool, number=number, reason="x", lines=[{"sku": "BAG", "quantity": "1"}])
    assert ledger_mismatches(registry) == []
