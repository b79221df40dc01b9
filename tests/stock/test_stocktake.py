"""A count is as of the moment counted: applied later, it keeps the day's movements."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, 23, hour, minute, tzinfo=UTC)


def _day(registry: Registry) -> None:
    """08:00 10 on hand; 12:00 ship 3; 14:00 receive 5 -> 12 on hand at 15:00."""
    registry.clock = lambda: at(8)
    given = Given(registry).company()
    given.stock({"M1": ("10", "2")})
    given.po({"M1": ("5", "2")})
    given.so({"M1": ("3", "4")})
    registry.clock = lambda: at(12)
    apply(registry, "fulfill_order", number="SO-00001")
    registry.clock = lambda: at(14)
    apply(registry, "receive_purchase_order", number="PO-00001")
    registry.clock = lambda: at(15)
    assert on_hand(registry, "M1") == D(12)


def test_a_count_at_nine_applied_after_a_two_oclock_receipt_keeps_the_receipt(
        registry: Registry) -> None:
    _day(registry)
    # counted 9 at 09:00, when the ledger says 10 were there: 1 lost. The 12:00 shipment
    # and the 14:00 receipt happened after the count and stay: 12 - 1 = 11.
    count = {"sku": "M1", "counted_quantity": "9", "counted_at": "2026-11-23T09:00:00Z"}
    preview = registry.invoke("create_stock_adjustment", {
        "location": "MAIN", "reason": "stocktake", "lines": [count]}, ADMIN)
    assert preview["document"]["lines"][0]["quantity_delta"] == "-1"
    assert {(c["field"], c["before"], c["after"]) for c in preview["changes"]
            if c["entity"] == "stock"} >= {("on_hand", "12", "11")}
    done = registry.invoke("create_stock_adjustment", preview["apply"]["arguments"], ADMIN)
    line = done["lines"][0]
    assert (line["quantity_delta"], line["counted_quantity"]) == ("-1", "9")
    assert line["counted_at"].startswith("2026-11-23T09:00:00")
    assert on_hand(registry, "M1") == D(11)
    assert not ledger_mismatches(registry)


def test_a_count_without_a_time_is_as_of_now(registry: Registry) -> None:
    _day(registry)
    done = apply(registry, "create_stock_adjustment", location="MAIN", reason="count now",
                 lines=[{"sku": "M1", "counted_quantity": "9"}])
    assert done["lines"][0]["quantity_delta"] == "-3"
    assert done["lines"][0]["counted_at"].startswith("2026-11-23T15:00:00")
    assert on_hand(registry, "M1") == D(9)


def test_a_count_between_movements_sees_only_what_came_before(registry: Registry) -> None:
    _day(registry)
    # at 13:00 the ledger held 10 - 3 = 7; counted 8 -> +1, on hand 12 + 1 = 13
    done = apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
                 lines=[{"sku": "M1", "counted_quantity": "8",
                         "counted_at": "2026-11-23T13:00:00+00:00"},
                        {"sku": "M2", "counted_quantity": "4",
                         "counted_at": "2026-11-23T10:00:00"}])
    assert [ln["quantity_delta"] for ln in done["lines"]] == ["1", "4"]
    assert on_hand(registry, "M1") == D(13) and on_hand(registry, "M2") == D(4)


@pytest.mark.parametrize(("line", "field"), [
    ({"sku": "M1", "counted_quantity": "9", "counted_at": "2026-11-24T09:00:00Z"},
     "lines[0].counted_at"),
    ({"sku": "M1", "quantity_delta": "1", "counted_at": "2026-11-23T09:00:00Z"}, "lines[0]"),
    ({"sku": "M1", "counted_quantity": "9", "counted_at": "yesterday"},
     "lines[0].counted_at"),
])
def test_bad_counting_times_are_refused_naming_the_field(registry: Registry,
                                                         line: dict[str, str],
                                                         field: str) -> None:
    _day(registry)
    for preview in (True, False):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke("create_stock_adjustment", {
                "location": "MAIN", "reason": "count", "lines": [line], "preview": preview},
                ADMIN)
        assert info.value.code == "validation_error"
        assert info.value.field == field
    assert on_hand(registry, "M1") == D(12)
