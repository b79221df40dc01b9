"""Serial numbers: one per unit, unique per item, named when they leave, with a history."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot
from tests.lots.test_lots import TODAY, refused


def setup(reg: Registry) -> None:
    reg.clock = lambda: TODAY
    given = Given(reg)
    given.location()
    given.supplier("Tools Inc")
    given.customer("Builder")
    given.item("DRILL", name="Drill", serial_tracked=True, purchase_price="80")


def order(reg: Registry, qty: str) -> str:
    return str(apply(reg, "create_purchase_order", supplier="Tools Inc", location="MAIN",
                     lines=[{"sku": "DRILL", "quantity": qty}])["number"])


def serials(reg: Registry) -> list[str]:
    return [r["lot"] for r in reg.invoke("list_lots", {"sku": "DRILL"}, ADMIN)["lots"]]


def test_serials_come_in_one_per_unit_and_leave_by_name_with_a_history(
        registry: Registry, given: Given) -> None:
    setup(registry)
    number = order(registry, "3")
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "DRILL", "quantity": "3", "serials": ["D-1", "D-2", "D-3"]}])
    assert sorted(serials(registry)) == ["D-1", "D-2", "D-3"]
    so = given.so({"DRILL": "1"}, customer="Builder")
    unnamed = refused(registry, "fulfill_order", number=so["number"])
    assert (unnamed.code, unnamed.field) == ("validation_error", "lines.serials")
    apply(registry, "fulfill_order", number=so["number"],
          lines=[{"sku": "DRILL", "quantity": "1", "serials": ["D-2"]}])
    assert sorted(serials(registry)) == ["D-1", "D-3"]
    history = registry.invoke("trace_lot", {"sku": "DRILL", "lot": "D-2"}, ADMIN)
    assert [m["reason"] for m in history["movements"]] == ["receipt", "shipment"]
    assert [p["name"] for p in history["parties"]] == ["Builder"]
    assert ledger_mismatches(registry) == []


@pytest.mark.parametrize("line, code, field", [
    ({"sku": "DRILL", "quantity": "2", "serials": ["X-1"]}, "validation_error",
     "lines[0].serials"),
    ({"sku": "DRILL", "quantity": "2", "serials": ["X-1", "X-1"]}, "validation_error",
     "lines[0].serials"),
    ({"sku": "DRILL", "quantity": "2"}, "validation_error", "lines[0].serials"),
    ({"sku": "DRILL", "quantity": "1.5", "serials": ["X-1"]}, "validation_error",
     "lines[0].quantity"),
    ({"sku": "DRILL", "quantity": "2", "serials": ["D-1", "X-2"]}, "conflict",
     "lines[0].serials[0]"),
])
def test_bad_serial_input_is_refused_naming_the_field(registry: Registry, line: dict[str, Any],
                                                       code: str, field: str) -> None:
    setup(registry)
    first = order(registry, "1")
    apply(registry, "receive_purchase_order", number=first,
          lines=[{"sku": "DRILL", "quantity": "1", "serials": ["D-1"]}])
    number = order(registry, "2")
    before = snapshot(registry)
    err = refused(registry, "receive_purchase_order", number=number, lines=[line])
    assert (err.code, err.field) == (code, field)
    assert snapshot(registry) == before


def test_a_numbering_rule_gives_each_unit_its_serial(registry: Registry) -> None:
    setup(registry)
    apply(registry, "modify_item", sku="DRILL", lot_numbering="DR-{seq}")
    apply(registry, "receive_purchase_order", number=order(registry, "2"))
    assert serials(registry) == ["DR-0001", "DR-0002"]


def test_a_serial_stays_unique_under_eight_racing_receipts(registry: Registry) -> None:
    setup(registry)
    numbers = [order(registry, "1") for _ in range(8)]
    gate = threading.Barrier(8)

    def receive(number: str) -> str:
        gate.wait()
        try:
            apply(registry, "receive_purchase_order", number=number,
                  lines=[{"sku": "DRILL", "quantity": "1", "serials": ["SN-RACE"]}])
            return "ok"
        except ShopfloorError as err:
            return err.code

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(receive, numbers))
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
    assert serials(registry) == ["SN-RACE"]
    assert ledger_mismatches(registry) == []
