"""What tools/list leaves out to save context is still enforced, and what it keeps is what
an agent needs (registry/schema.py: "enforced, not advertised")."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.registry.results import result_envelope
from tests.given import Given
from tests.helpers import ADMIN, apply

pytestmark = pytest.mark.quick


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    return r


def _refused(reg: Registry, tool: str, args: dict[str, Any]) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as info:
        reg.invoke(tool, args, ADMIN)
    return info.value


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("get_item", {"sku": ""}, "sku"),  # minLength 1
    ("get_item", {"sku": "S" * 65}, "sku"),  # maxLength 64
    ("get_item", {"sku": "M1", "colour": "red"}, "colour"),  # additionalProperties false
    ("get_item", {"id": 2**31}, "id"),  # the 32-bit id bound
    ("get_item", {"id": 0}, "id"),
    ("create_location", {"code": "A\x1bB", "name": "X"}, "code"),  # control characters
    ("create_stock_adjustment", {"location": "MAIN", "reason": "a\x00b",  # NUL
                                 "lines": [{"sku": "M1", "quantity_delta": "1"}]}, "reason"),
    ("create_stock_adjustment", {"location": "MAIN", "reason": "r",  # nested extra field
                                 "lines": [{"sku": "M1", "quantity_delta": "1", "x": 1}]},
     "lines[0].x"),
])
def test_unadvertised_limits_are_refused_naming_the_field(reg: Registry, tool: str,
                                                         args: dict[str, Any],
                                                         field: str) -> None:
    error = _refused(reg, tool, args)
    assert error.code == "validation_error"
    assert error.field == field


def test_limits_an_agent_could_meet_stay_listed(reg: Registry) -> None:
    """Caps on free text and page sizes are things an agent can run into: they stay."""
    adjust = reg.get("create_stock_adjustment").input_schema["properties"]
    assert adjust["reason"]["maxLength"] == 500
    assert adjust["lines"]["maxItems"] == 1000 and adjust["lines"]["minItems"] == 1
    limit = reg.get("search_items").input_schema["properties"]["limit"]
    assert limit["maximum"] == 500 and limit["default"] == 50
    assert reg.get("get_job").input_schema["properties"]["job_id"]["pattern"]
    assert reg.get("get_item").input_schema["anyOf"] == [{"required": ["sku"]},
                                                         {"required": ["id"]}]


def _rows_missing(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Listed fields absent from a real result, rows included: what `required` would say."""
    if isinstance(value, list):
        return [m for row in value for m in _rows_missing(row, schema.get("items", {}), path)]
    if not isinstance(value, dict) or "properties" not in schema:
        return []
    missing = [f"{path}.{k}" for k in schema["properties"] if k not in value]
    for key, sub in schema["properties"].items():
        missing += _rows_missing(value.get(key), sub, f"{path}.{key}")
    return missing


def _has_required(schema: Any) -> bool:
    """A `required` keyword anywhere (a property may be named `required`: shortages are)."""
    if isinstance(schema, list):
        return any(_has_required(v) for v in schema)
    if not isinstance(schema, dict):
        return False
    return "required" in schema or any(
        _has_required(v) for k, v in schema.items() if k != "properties") or any(
        _has_required(v) for v in (schema.get("properties") or {}).values())


def test_results_carry_every_listed_field_so_required_says_nothing(reg: Registry) -> None:
    """Output schemas list no `required`: a result is dumped whole, every field present."""
    assert "required" in reg.get("check_availability").output_schema["properties"][
        "shortages"]["items"]["properties"]  # a field called required is kept
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"}])
    apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
          lines=[{"sku": "M2", "quantity": "3"}])
    calls = {"get_item": {"sku": "P1"}, "search_items": {}, "get_stock": {},
             "list_stock_movements": {}, "list_purchase_orders": {}, "get_recipe": {"sku": "P1"},
             "check_availability": {"sku": "P1", "quantity": "9"}, "list_low_stock": {},
             "get_operation_log": {}, "list_locations": {}}
    for tool, args in calls.items():
        schema = reg.get(tool).output_schema
        assert not _has_required(schema), tool
        result = reg.invoke(tool, args, ADMIN)
        assert not _rows_missing(result, schema), (tool, _rows_missing(result, schema))


def test_a_write_lists_no_envelope_yet_returns_what_the_coaching_names(reg: Registry) -> None:
    """tools/list gives writes no outputSchema (registry/results.py); the result still
    carries the summary and the preview_token the coaching tells an agent to apply with,
    and the typed envelope (OpenAPI) describes the whole result."""
    assert reg.get("create_item").output_schema is None
    preview = reg.invoke("create_item", {"sku": "N9", "name": "New"}, ADMIN)
    assert isinstance(preview["summary"], str) and isinstance(preview["preview_token"], str)
    typed = result_envelope()
    assert set(typed["required"]) <= set(preview)
    assert {"preview", "summary", "changes", "warnings", "preview_token"} <= set(preview)
