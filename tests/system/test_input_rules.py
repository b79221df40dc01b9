"""Inputs that used to be read generously and booked wrong.

A count's moment is a date and time someone writes, not a number: `0` or `1700000000`
read as seconds since 1970 counted 10 against the 10 on hand as of 1970 (none) and booked
+10. A count before anything was recorded of an item, or from the future, is refused too.
A correction never ships or receives more on an order closed short. Both databases.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import apply, on_hand, refused_alike
from tests.stock.test_stocktake import _day, at


def _count(when: Any, sku: str = "M1", counted: str = "10") -> dict[str, Any]:
    return {"location": "MAIN", "reason": "stocktake",
            "lines": [{"sku": sku, "counted_quantity": counted, "counted_at": when}]}


@pytest.mark.parametrize("when", [0, 1700000000, 1.7e9, "1700000000", "0", True,
                                  "2026-11-23", "23/11/2026 09:00", "2026-11-23T09",
                                  "2026-W48-1T09:00:00"])
def test_a_counting_moment_is_an_iso_date_and_time_not_a_number(
        registry: Registry, when: Any) -> None:
    _day(registry)
    err = refused_alike(registry, "create_stock_adjustment", _count(when))
    assert (err.code, err.field) == ("validation_error", "lines[0].counted_at")
    assert on_hand(registry, "M1") == D(12)


@pytest.mark.parametrize("when", ["1970-01-01T00:00:00Z", "2026-11-23T07:59:59Z",
                                  "2026-11-22T12:00:00+00:00"])
def test_a_count_before_the_item_had_any_stock_recorded_is_refused(
        registry: Registry, when: str) -> None:
    _day(registry)  # M1's first ledger row is at 08:00
    err = refused_alike(registry, "create_stock_adjustment", _count(when))
    assert (err.code, err.field) == ("validation_error", "lines[0].counted_at")
    assert "08:00" in err.message
    assert on_hand(registry, "M1") == D(12)


def test_a_count_of_a_lot_before_the_lot_existed_is_refused(registry: Registry) -> None:
    _day(registry)
    apply(registry, "create_item", sku="L1", name="Lot item", batch_tracked=True)
    for minute, lot in ((10, "A"), (30, "B")):
        registry.clock = lambda minute=minute: at(15, minute)  # type: ignore[misc]
        apply(registry, "create_stock_adjustment", location="MAIN", reason="in",
              lines=[{"sku": "L1", "quantity_delta": "5", "lots": [{"lot": lot}]}])
    # 15:20: the item had stock (lot A), lot B did not exist yet: counting B's 5 then
    # would book them a second time
    args = _count("2026-11-23T15:20:00Z", sku="L1", counted="5")
    args["lines"][0]["lots"] = [{"lot": "B"}]
    err = refused_alike(registry, "create_stock_adjustment", args)
    assert (err.code, err.field) == ("validation_error", "lines[0].counted_at")
    args["lines"][0]["lots"] = [{"lot": "A"}]
    done = apply(registry, "create_stock_adjustment", **args)
    assert done["lines"][0]["quantity_delta"] == "0"


def test_counting_moments_within_the_clock_skew_are_taken(registry: Registry) -> None:
    _day(registry)  # now 15:00; 10 on hand at 08:00; the allowance is 5 minutes
    err = refused_alike(registry, "create_stock_adjustment", _count("2026-11-23T15:05:01Z"))
    assert (err.code, err.field) == ("validation_error", "lines[0].counted_at")
    assert "5 minutes" in err.message
    done = apply(registry, "create_stock_adjustment",
                 **_count("2026-11-23T15:04:59Z", counted="12"))
    assert done["lines"][0]["quantity_delta"] == "0"
    # the very moment of the first receipt counts: 10 counted against 10 then
    done = apply(registry, "create_stock_adjustment",
                 **_count("2026-11-23T08:00:00Z", counted="10"))
    assert done["lines"][0]["quantity_delta"] == "0"
    assert on_hand(registry, "M1") == D(12)


def _property(schema: Any, name: str) -> dict[str, Any] | None:
    if isinstance(schema, dict):
        if name in schema.get("properties", {}):
            return dict(schema["properties"][name])
        schema = list(schema.values())
    if isinstance(schema, list):
        for part in schema:
            if (found := _property(part, name)) is not None:
                return found
    return None


def test_the_counting_moment_is_described_as_a_date_time_string(registry: Registry) -> None:
    counted_at = _property(registry.get("create_stock_adjustment").input_schema, "counted_at")
    assert counted_at is not None and counted_at["format"] == "date-time"
    assert "string" in counted_at["type"] and "number" not in counted_at["type"]


# -- corrections of orders closed short --------------------------------------------------
def _closed_sale(registry: Registry) -> None:
    given = Given(registry).company()
    given.stock({"M1": ("10", "2")})
    given.so({"M1": ("5", "4")})
    apply(registry, "fulfill_order", number="SO-00001",
          lines=[{"sku": "M1", "quantity": "2"}])
    apply(registry, "close_sales_order", number="SO-00001")


def test_a_correction_never_ships_more_on_a_closed_order(registry: Registry) -> None:
    _closed_sale(registry)
    err = refused_alike(registry, "correct_shipment",
                        {"number": "SO-00001", "sku": "M1", "quantity": "5"})
    assert (err.code, err.field) == ("conflict", "status")
    assert on_hand(registry, "M1") == D(8)
    # shipping less than was booked is still a fact to correct, closed or not
    done = apply(registry, "correct_shipment", number="SO-00001", sku="M1", quantity="1")
    assert done["status"] == "closed" and done["lines"][0]["done_quantity"] == "1"
    assert on_hand(registry, "M1") == D(9)


def test_a_correction_never_receives_more_on_a_closed_order(registry: Registry,
                                                            given: Given) -> None:
    given.company()
    given.po({"M1": ("5", "2")})
    apply(registry, "receive_purchase_order", number="PO-00001",
          lines=[{"sku": "M1", "quantity": "2"}])
    apply(registry, "close_purchase_order", number="PO-00001")
    err = refused_alike(registry, "correct_purchase_receipt",
                        {"number": "PO-00001", "sku": "M1", "quantity": "5"})
    assert (err.code, err.field) == ("conflict", "status")
    done = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                 quantity="1", unit_price="3")
    assert done["status"] == "closed" and done["lines"][0]["done_quantity"] == "1"
    assert on_hand(registry, "M1") == D(1)
