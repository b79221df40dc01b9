"""Input edges: an idempotency key is taken exactly as sent, and numbers are written with
ASCII digits (Python's Decimal would read Arabic-Indic or fullwidth "10" as 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, on_hand


def _refusal(registry: Registry, tool: str, args: dict[str, Any]) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as info:
        registry.invoke(tool, args, ADMIN)
    return info.value


@pytest.mark.parametrize("key", [" abc ", "abc ", "\tabc", "abc\u00a0", "\u3000abc"])
def test_an_idempotency_key_with_surrounding_space_is_refused(registry: Registry,
                                                             key: str) -> None:
    err = _refusal(registry, "create_location",
                   {"code": "X", "name": "X", "preview": False, "idempotency_key": key})
    assert (err.code, err.field) == ("validation_error", "idempotency_key"), err.to_payload()
    assert registry.invoke("list_locations", {}, ADMIN)["locations"] == []


def test_an_idempotency_key_is_kept_exactly(registry: Registry) -> None:
    first = apply(registry, "create_location", code="X", name="X", idempotency_key="abc")
    again = apply(registry, "create_location", code="X", name="X", idempotency_key="abc")
    assert again["replayed"] is True and again["operation_id"] == first["operation_id"]
    inner = apply(registry, "create_location", code="Y", name="Y", idempotency_key="a b")
    assert inner["replayed"] is False


# Arabic-Indic, fullwidth, Arabic-Indic 3.5, Persian, Devanagari, mixed, mathematical bold
NOT_ASCII = ["\u0661\u0660", "\uff11\uff10", "\u0663.\u0665", "\u06f1\u06f0",
             "\u0967\u0966", "1\u0660", "\U0001d7cf\U0001d7ce"]


@pytest.mark.parametrize("text", NOT_ASCII)
def test_decimals_refuse_digits_that_are_not_ascii(registry: Registry, given: Given,
                                                   text: str) -> None:
    given.company()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("create_stock_adjustment", {"location": "MAIN", "reason": "r",
                                     "lines": [{"sku": "M1", "quantity_delta": text}]},
         "lines[0].quantity_delta"),
        ("create_stock_adjustment", {"location": "MAIN", "reason": "r",
                                     "lines": [{"sku": "M1", "counted_quantity": text}]},
         "lines[0].counted_quantity"),
        ("create_stock_transfer", {"from_location": "MAIN", "to_location": "SHOP",
                                   "lines": [{"sku": "M1", "quantity": text}]},
         "lines[0].quantity"),
        ("create_purchase_order", {"supplier": "Acme", "location": "MAIN", "lines": [
            {"sku": "M1", "quantity": "1", "unit_price": text}]}, "lines[0].unit_price"),
        ("create_item", {"sku": "N1", "name": "N", "reorder_point": text}, "reorder_point"),
        ("check_availability", {"sku": "M1", "quantity": text}, "quantity"),
    ]
    for tool, args, fld in cases:
        err = _refusal(registry, tool, args)
        assert (err.code, err.field) == ("validation_error", fld), (tool, err.to_payload())
        assert "ASCII" in err.message, err.message
    assert on_hand(registry, "M1") == 0


@pytest.mark.parametrize("text", NOT_ASCII)
def test_integers_refuse_digits_that_are_not_ascii(registry: Registry, given: Given,
                                                   text: str) -> None:
    given.company()
    for tool, args, fld in [("get_stock", {"limit": text}, "limit"),
                            ("get_purchase_order", {"id": text}, "id"),
                            ("create_item", {"sku": "N1", "name": "N", "lead_time_days": text},
                             "lead_time_days")]:
        err = _refusal(registry, tool, args)
        assert (err.code, err.field) == ("validation_error", fld), (tool, err.to_payload())


@pytest.mark.parametrize("quantity", [10, 2.5, "10", "2.5", " 3 ", "0.125", "+4", "1e1",
                                      "1E1", ".5", "5."])
def test_numbers_and_ascii_decimal_strings_still_work(registry: Registry, given: Given,
                                                      quantity: Any) -> None:
    given.company()
    apply(registry, "modify_item", sku="M1", precision=3)  # counted to the gram
    apply(registry, "create_stock_adjustment", location="MAIN", reason="r",
          lines=[{"sku": "M1", "quantity_delta": quantity}])
    assert on_hand(registry, "M1") > 0


def test_the_import_refuses_such_digits_per_row(registry: Registry, given: Given) -> None:
    given.company()
    csv = "sku,name,reorder_point\nN1,N,\u0661\u0660\n"
    preview = registry.invoke("import_items", {"csv": csv}, ADMIN)
    rows = json.dumps(preview["document"])
    assert "ASCII" in rows, rows


def test_the_number_schemas_stay_bare(registry: Registry) -> None:
    """The tool list is read on every agent turn: the checks are validators, not schema
    patterns or longer descriptions."""
    transfer = registry.get("create_stock_transfer").input_schema["properties"]
    assert transfer["lines"]["items"]["properties"]["quantity"] == {
        "description": "> 0", "type": ["number", "string"]}
    assert transfer["idempotency_key"] == {"type": "string"}
    adjust = registry.get("create_stock_adjustment").input_schema["properties"]
    line = adjust["lines"]["items"]["properties"]
    assert line["quantity_delta"]["type"] == ["number", "string"]
    numbers = {k: v for k, v in line.items() if k not in ("lots", "serials", "allow_expired")}
    assert len(json.dumps(numbers)) < 400, numbers  # the lot fields: the catalogue budget
