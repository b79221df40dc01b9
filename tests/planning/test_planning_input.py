"""Planning's bad input: a coded error naming the field, nothing written; and promising
by date (check_availability with `date`) checked by hand."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot
from tests.planning.test_mrp import base, stock

TODAY = date.today()  # check_availability promises from the server's today


def refused(reg: Registry, tool: str, args: dict[str, Any], fld: str, code: str) -> None:
    before = snapshot(reg)
    with pytest.raises(ShopfloorError) as info:
        reg.invoke(tool, args, ADMIN)
    assert (info.value.code, info.value.field) == (code, fld), info.value.to_payload()
    assert snapshot(reg) == before


def test_bad_planning_input_is_refused_naming_the_field(registry: Registry) -> None:
    base(registry)
    apply(registry, "create_item", sku="X", name="X")
    plan_day = date(2026, 12, 1)
    refused(registry, "get_projected_stock",
            {"sku": "X", "today": plan_day.isoformat(), "until": "2026-11-30"},
            "until", "validation_error")
    refused(registry, "check_availability",
            {"sku": "X", "quantity": "1", "date": (TODAY - timedelta(days=1)).isoformat()},
            "date", "validation_error")
    refused(registry, "run_mrp", {"location": "NOWHERE"}, "location", "not_found")
    refused(registry, "get_projected_stock", {"sku": "X", "location": "NOWHERE"},
            "location", "not_found")
    for bad in ("0", "-5"):
        refused(registry, "create_item", {"sku": "Y", "name": "Y", "order_multiple": bad,
                                          "preview": False}, "order_multiple",
                "validation_error")
        refused(registry, "modify_item", {"sku": "X", "order_multiple": bad, "preview": False},
                "order_multiple", "validation_error")
    for bad_days in (366, -1):
        refused(registry, "create_item", {"sku": "Y", "name": "Y", "preview": False,
                                          "supply_period_days": bad_days},
                "supply_period_days", "validation_error")
    done = apply(registry, "modify_item", sku="X", order_multiple="12", supply_period_days=365)
    assert (done["order_multiple"], done["supply_period_days"]) == ("12", 365)


def day(n: int) -> str:
    return (TODAY + timedelta(days=n)).isoformat()


def sell(reg: Registry, sku: str, quantity: str, due: int) -> None:
    apply(reg, "create_sales_order", customer="Bob", location="MAIN", due_date=day(due),
          lines=[{"sku": sku, "quantity": quantity, "unit_price": "1"}])


def test_promise_by_date_counts_open_orders_and_later_promises(registry: Registry) -> None:
    """6 on hand, 4 promised for day 3, 10 arriving on day 5: 2 can go today (the other
    4 are promised for day 3), 12 from day 5; 20 only once a new order could arrive."""
    base(registry)
    apply(registry, "create_item", sku="X", name="X", lead_time_days=14,
          default_supplier="Acme")
    stock(registry, X="6")
    sell(registry, "X", "4", 3)
    apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "X", "quantity": "10", "expected_date": day(5)}])

    def ask(quantity: str, on: int) -> dict[str, Any]:
        return registry.invoke("check_availability",
                               {"sku": "X", "quantity": quantity, "date": day(on)}, ADMIN)

    now = ask("2", 0)
    assert (now["can_ship"], now["available"], now["earliest_date"]) == (True, "2", day(0))
    three = ask("3", 0)
    assert (three["can_ship"], three["earliest_date"]) == (False, day(5))
    assert ask("12", 5)["can_ship"] is True
    far = ask("20", 1)
    assert (far["can_ship"], far["earliest_date"]) == (False, day(14))


def test_promise_through_the_recipe_dates_component_shortages(registry: Registry,
                                                              given: Given) -> None:
    """A table (lead 2) from 4 legs (none on hand, bought in 10 days) and a top (5 on
    hand): 3 tables for day 5 cannot be built, the legs are short on day 3, and the
    earliest is day 12 (legs on day 10, then 2 days to build)."""
    base(registry)
    apply(registry, "create_item", sku="T", name="Table", kind="product", lead_time_days=2)
    apply(registry, "create_item", sku="LEG", name="Leg", lead_time_days=10,
          default_supplier="Acme")
    apply(registry, "create_item", sku="TOP", name="Top", lead_time_days=3,
          default_supplier="Acme")
    given.recipe("T", {"LEG": "4", "TOP": "1"})
    stock(registry, TOP="5")
    got = registry.invoke("check_availability",
                          {"sku": "T", "quantity": "3", "date": day(5)}, ADMIN)
    assert (got["can_ship"], got["can_build"], got["earliest_date"]) == (False, False, day(12))
    assert got["shortages"] == [{"sku": "LEG", "required": "12", "available": "0",
                                 "short": "12", "date": day(3), "earliest": day(10)}]
    ok = registry.invoke("check_availability",
                         {"sku": "T", "quantity": "3", "date": day(12)}, ADMIN)
    assert ok["can_build"] is False and ok["shortages"][0]["earliest"] == day(10)
    no_date = registry.invoke("check_availability", {"sku": "T", "quantity": "3"}, ADMIN)
    assert no_date["earliest_date"] is None and no_date["can_build"] is False
