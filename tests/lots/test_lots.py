"""Lots through the ledger: receipts name lots, shipments pick first-expiring-first-out.

Figures are hand-computed; every test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot

TODAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def lots_of(reg: Registry, sku: str) -> dict[str, D]:
    rows = reg.invoke("list_lots", {"sku": sku}, ADMIN)["lots"]
    return {r["lot"]: D(r["on_hand"]) for r in rows}


def refused(reg: Registry, tool: str, **args: Any) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as info:
        apply(reg, tool, **args)
    return info.value


def setup(reg: Registry) -> None:
    reg.clock = lambda: TODAY
    Given(reg).bakery(purchase_price="2")


def receive(reg: Registry, sku: str, lines: list[dict[str, Any]], price: str = "2") -> str:
    total = sum(D(str(lot.get("quantity", "0"))) for lot in lines)
    po = apply(reg, "create_purchase_order", supplier="Mill", location="MAIN",
               lines=[{"sku": sku, "quantity": str(total), "unit_price": price}])
    apply(reg, "receive_purchase_order", number=po["number"],
          lines=[{"sku": sku, "quantity": str(total), "lots": lines}])
    return str(po["number"])


def three_lots(reg: Registry) -> None:
    receive(reg, "FLOUR", [{"lot": "L-LATE", "quantity": "10", "expiry": "2027-03-01"},
                           {"lot": "L-SOON", "quantity": "10", "expiry": "2026-12-01"},
                           {"lot": "L-MID", "quantity": "10", "expiry": "2027-01-15"}])


def sell(reg: Registry, quantity: str) -> str:
    so = apply(reg, "create_sales_order", customer="Cafe", location="MAIN",
               lines=[{"sku": "FLOUR", "quantity": quantity}])
    return str(so["number"])


def test_shipments_pick_first_expiring_first_across_three_lots(registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    assert lots_of(registry, "FLOUR") == {"L-SOON": 10, "L-MID": 10, "L-LATE": 10}
    number = sell(registry, "15")
    preview = registry.invoke("fulfill_order", {"number": number}, ADMIN)
    shown = {c["key"]: c["after"] for c in preview["changes"] if c["entity"] == "lot"}
    assert shown == {"FLOUR@MAIN/L-SOON": "0", "FLOUR@MAIN/L-MID": "5"}
    apply(registry, "fulfill_order", number=number)
    assert lots_of(registry, "FLOUR") == {"L-MID": 5, "L-LATE": 10}
    assert ledger_mismatches(registry) == []


def test_naming_a_lot_overrides_picking(registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    number = sell(registry, "4")
    apply(registry, "fulfill_order", number=number,
          lines=[{"sku": "FLOUR", "quantity": "4", "lots": [{"lot": "L-LATE"}]}])
    assert lots_of(registry, "FLOUR") == {"L-SOON": 10, "L-MID": 10, "L-LATE": 6}


def test_held_and_expired_lots_are_skipped(registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    receive(registry, "FLOUR", [{"lot": "L-OLD", "quantity": "5", "expiry": "2026-11-01"}])
    apply(registry, "hold_lot", sku="FLOUR", lot="L-SOON", reason="mould found")
    apply(registry, "fulfill_order", number=sell(registry, "12"))
    assert lots_of(registry, "FLOUR") == {"L-OLD": 5, "L-SOON": 10, "L-LATE": 8}
    listed = registry.invoke("list_expiring", {"days": 30}, ADMIN)["lots"]
    assert [(r["lot"], r["held"]) for r in listed] == [("L-OLD", False), ("L-SOON", True)]


def test_a_shipment_needing_a_held_lot_is_insufficient_stock_naming_it(
        registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    apply(registry, "hold_lot", sku="FLOUR", lot="L-MID", reason="lab test pending")
    number = sell(registry, "25")
    before = snapshot(registry)
    err = refused(registry, "fulfill_order", number=number)
    assert err.code == "insufficient_stock" and "L-MID" in err.message
    assert [lot["lot"] for lot in err.details["lots"]] == ["L-MID"]
    assert snapshot(registry) == before
    named = refused(registry, "fulfill_order", number=number,
                    lines=[{"sku": "FLOUR", "quantity": "5", "lots": [{"lot": "L-MID"}]}])
    assert named.code == "conflict" and named.field == "lines[0].lots[0]"
    apply(registry, "release_lot", sku="FLOUR", lot="L-MID")
    apply(registry, "fulfill_order", number=number)
    assert lots_of(registry, "FLOUR") == {"L-LATE": 5}


def test_an_expired_lot_moves_only_when_named_with_allow_expired(registry: Registry) -> None:
    setup(registry)
    receive(registry, "FLOUR", [{"lot": "L-OLD", "quantity": "5", "expiry": "2026-11-01"}])
    number = sell(registry, "2")
    assert refused(registry, "fulfill_order", number=number).code == "insufficient_stock"
    line = {"sku": "FLOUR", "quantity": "2", "lots": [{"lot": "L-OLD"}]}
    assert refused(registry, "fulfill_order", number=number, lines=[line]).code == "conflict"
    apply(registry, "fulfill_order", number=number, lines=[{**line, "allow_expired": True}])
    assert lots_of(registry, "FLOUR") == {"L-OLD": 3}


@pytest.mark.parametrize("line, code, field", [
    ({"sku": "FLOUR", "quantity": "5"}, "validation_error", "lines[0].lots"),
    ({"sku": "FLOUR", "quantity": "5", "lots": [{"lot": "A", "quantity": "2"}]},
     "validation_error", "lines[0].lots"),
    ({"sku": "FLOUR", "quantity": "5", "lots": [{"lot": "A", "quantity": "2"}, {"lot": "B"}]},
     "validation_error", "lines[0].lots[1].quantity"),
    ({"sku": "FLOUR", "quantity": "5", "serials": ["S1"]}, "validation_error",
     "lines[0].serials"),
])
def test_bad_lot_input_is_refused_naming_the_field(registry: Registry, given: Given,
                                                   line: dict[str, Any],
                                                    code: str, field: str) -> None:
    setup(registry)
    po = given.po({"FLOUR": "5"}, supplier="Mill")
    before = snapshot(registry)
    err = refused(registry, "receive_purchase_order", number=po["number"], lines=[line])
    assert (err.code, err.field) == (code, field)
    assert snapshot(registry) == before


def test_a_lot_of_another_item_is_not_found_and_says_whose_it_is(registry: Registry) -> None:
    setup(registry)
    apply(registry, "create_item", sku="SUGAR", name="Sugar", batch_tracked=True)
    receive(registry, "SUGAR", [{"lot": "S-1", "quantity": "3"}])
    receive(registry, "FLOUR", [{"lot": "F-1", "quantity": "3"}])
    number = sell(registry, "1")
    err = refused(registry, "fulfill_order", number=number,
                  lines=[{"sku": "FLOUR", "quantity": "1", "lots": [{"lot": "S-1"}]}])
    assert (err.code, err.field) == ("not_found", "lines[0].lots[0].lot")
    trace_err = registry.invoke
    with pytest.raises(ShopfloorError) as info:
        trace_err("trace_lot", {"sku": "FLOUR", "lot": "S-1"}, ADMIN)
    assert info.value.code == "not_found" and "SUGAR" in info.value.message


def test_a_numbering_rule_names_lots_and_shelf_life_dates_them(registry: Registry,
                                                               given: Given) -> None:
    setup(registry)
    apply(registry, "modify_item", sku="FLOUR", lot_numbering="FL-{date}-{seq}",
          shelf_life_days=30)
    po = given.po({"FLOUR": "5"}, supplier="Mill")
    apply(registry, "receive_purchase_order", number=po["number"])
    rows = registry.invoke("list_lots", {"sku": "FLOUR"}, ADMIN)["lots"]
    assert [(r["lot"], r["expiry"]) for r in rows] == [("FL-261123-0001", "2026-12-23")]
    bad = refused(registry, "modify_item", sku="FLOUR", lot_numbering="X-{month}")
    assert (bad.code, bad.field) == ("validation_error", "lot_numbering")


def test_untracked_items_refuse_lots(registry: Registry, given: Given) -> None:
    setup(registry)
    apply(registry, "create_item", sku="BOX", name="Box")
    po = given.po({"BOX": "5"}, supplier="Mill")
    err = refused(registry, "receive_purchase_order", number=po["number"],
                  lines=[{"sku": "BOX", "quantity": "5", "lots": [{"lot": "X"}]}])
    assert (err.code, err.field) == ("validation_error", "lines[0].lots")


def test_tracking_cannot_be_turned_off_while_lots_hold_stock(registry: Registry) -> None:
    setup(registry)
    receive(registry, "FLOUR", [{"lot": "F-1", "quantity": "3"}])
    err = refused(registry, "modify_item", sku="FLOUR", batch_tracked=False)
    assert (err.code, err.field) == ("conflict", "batch_tracked")


def test_get_stock_shows_the_lots_of_a_balance(registry: Registry) -> None:
    setup(registry)
    receive(registry, "FLOUR", [{"lot": "F-1", "quantity": "3", "expiry": "2027-01-01"},
                                {"lot": "F-2", "quantity": "4"}])
    row = registry.invoke("get_stock", {"sku": "FLOUR"}, ADMIN)["balances"][0]
    assert [(x["lot"], D(x["on_hand"])) for x in row["lots"]] == [("F-1", 3), ("F-2", 4)]
    assert date.fromisoformat(row["lots"][0]["expiry"]) == date(2027, 1, 1)


def test_a_transfer_carries_its_lots_and_counts_are_per_lot(registry: Registry,
                                                            given: Given) -> None:
    setup(registry)
    given.location("SHOP")
    three_lots(registry)
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "FLOUR", "quantity": "12"}])
    shop = registry.invoke("list_lots", {"sku": "FLOUR", "location": "SHOP"}, ADMIN)["lots"]
    assert [(r["lot"], D(r["on_hand"])) for r in shop] == [("L-SOON", 10), ("L-MID", 2)]
    # a count of one lot adjusts that lot only: L-MID at MAIN holds 8, counted 5
    apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
          lines=[{"sku": "FLOUR", "counted_quantity": "5", "lots": [{"lot": "L-MID"}]}])
    main = registry.invoke("list_lots", {"sku": "FLOUR", "location": "MAIN"}, ADMIN)["lots"]
    assert [(r["lot"], D(r["on_hand"])) for r in main] == [("L-MID", 5), ("L-LATE", 10)]
    # found stock of a tracked item names its lot; lost stock leaves first-expiring-first
    err = refused(registry, "create_stock_adjustment", location="MAIN", reason="found",
                  lines=[{"sku": "FLOUR", "quantity_delta": "2"}])
    assert (err.code, err.field) == ("validation_error", "lines[0].lots")
    given.stock({"FLOUR": "-6"}, reason="spill")
    main = registry.invoke("list_lots", {"sku": "FLOUR", "location": "MAIN"}, ADMIN)["lots"]
    assert [(r["lot"], D(r["on_hand"])) for r in main] == [("L-LATE", 9)]
    assert ledger_mismatches(registry) == []


def test_correcting_an_adjustment_takes_back_the_lots_it_took(registry: Registry,
                                                              given: Given) -> None:
    setup(registry)
    three_lots(registry)
    adj = given.stock({"FLOUR": "-12"}, reason="spill")
    assert lots_of(registry, "FLOUR") == {"L-MID": 8, "L-LATE": 10}
    apply(registry, "update_stock_adjustment", number=adj["number"],
          lines=[{"sku": "FLOUR", "quantity_delta": "-1"}])
    assert lots_of(registry, "FLOUR") == {"L-SOON": 9, "L-MID": 10, "L-LATE": 10}
    assert ledger_mismatches(registry) == []


def test_returns_of_a_tracked_item_come_back_as_the_lot_they_left_as(
        registry: Registry) -> None:
    setup(registry)
    three_lots(registry)
    one = sell(registry, "4")
    apply(registry, "fulfill_order", number=one)  # all from L-SOON
    apply(registry, "create_customer_return", number=one, reason="damaged box",
          lines=[{"sku": "FLOUR", "quantity": "1"}])
    assert lots_of(registry, "FLOUR") == {"L-SOON": 7, "L-MID": 10, "L-LATE": 10}
    two = sell(registry, "10")
    apply(registry, "fulfill_order", number=two)  # 7 L-SOON + 3 L-MID
    err = refused(registry, "create_customer_return", number=two, reason="x",
                  lines=[{"sku": "FLOUR", "quantity": "1"}])
    assert (err.code, err.field) == ("validation_error", "lines[0].lot")
    assert "L-MID" in err.message and "L-SOON" in err.message
    apply(registry, "create_customer_return", number=two, reason="x",
          lines=[{"sku": "FLOUR", "quantity": "2", "lot": "L-MID"}])
    assert lots_of(registry, "FLOUR") == {"L-MID": 9, "L-LATE": 10}
    assert ledger_mismatches(registry) == []


def test_mrp_does_not_count_on_held_or_expired_lots(registry: Registry, given: Given) -> None:
    from tests.planning.test_mrp import run_job

    setup(registry)
    apply(registry, "modify_item", sku="FLOUR", lead_time_days=0)
    receive(registry, "FLOUR", [{"lot": "GOOD", "quantity": "4", "expiry": "2027-06-01"},
                                {"lot": "HELD", "quantity": "10"},
                                {"lot": "OLD", "quantity": "3", "expiry": "2026-11-01"}])
    apply(registry, "hold_lot", sku="FLOUR", lot="HELD", reason="lab")
    given.so({"FLOUR": "9"}, customer="Cafe", due_date="2026-12-01")
    plan = run_job(registry, "run_mrp", today=TODAY.date().isoformat())["result"]
    # 17 on hand, of which only lot GOOD's 4 can be picked: 9 - 4 = 5 to buy
    bought = {ln["sku"]: D(ln["quantity"]) for po in plan["purchase_orders"]
              for ln in po["lines"]}
    assert bought == {"FLOUR": D(5)}
