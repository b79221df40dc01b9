"""The catalogue matches TOOLS.md, its policy table, and stays small enough for agents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.facts import COACHING
from shopfloor.registry.registry import Registry
from shopfloor.registry.schema import compact

pytestmark = pytest.mark.quick

READS = {
    "search_items", "get_item", "get_stock", "list_low_stock", "list_stock_movements",
    "check_availability", "list_locations", "list_suppliers", "list_customers", "get_recipe",
    "list_purchase_orders", "get_purchase_order", "list_sales_orders", "get_sales_order",
    "list_manufacturing_orders", "get_manufacturing_order", "get_operation_log", "list_jobs",
    "get_job",
}
# name -> (destructive, role) as TOOLS.md gives them, but for adjustments and transfers:
# they can lower stock on hand, which DESIGN section 3 makes destructive
WRITES = {
    "create_item": (False, "operator"), "modify_item": (True, "admin"),
    "delete_item": (True, "admin"), "create_location": (False, "operator"),
    "create_supplier": (False, "operator"), "create_customer": (False, "operator"),
    "update_recipe": (True, "admin"), "create_purchase_order": (False, "operator"),
    "modify_purchase_order": (True, "admin"), "delete_purchase_order": (True, "admin"),
    "receive_purchase_order": (True, "operator"), "create_sales_order": (False, "operator"),
    "modify_sales_order": (True, "admin"), "delete_sales_order": (True, "admin"),
    "fulfill_order": (True, "operator"), "create_manufacturing_order": (False, "operator"),
    "complete_manufacturing_order": (True, "operator"),
    "delete_manufacturing_order": (True, "admin"), "create_stock_adjustment": (True, "operator"),
    "update_stock_adjustment": (True, "admin"), "create_stock_transfer": (True, "operator"),
}


@pytest.fixture
def reg(sqlite_url: str) -> Registry:
    from shopfloor.app.settings import Settings
    from shopfloor.app.wiring import open_registry

    return open_registry(Settings(database_url=sqlite_url))


def test_every_catalogued_tool_exists_with_its_policy(reg: Registry) -> None:
    tools = {t.name: t for t in reg.tools()}
    assert set(tools) >= READS | set(WRITES)
    for name in READS:
        assert not tools[name].facts.writes and tools[name].facts.role.name == "viewer"
    for name, (destructive, role) in WRITES.items():
        policy = tools[name].facts
        assert policy.writes and policy.destructive is destructive, name
        assert policy.role.name == role, name


def test_schemas_are_objects_and_writes_share_the_control_arguments(reg: Registry) -> None:
    for t in reg.tools():
        assert t.input_schema["type"] == "object", t.name
        if t.facts.writes:
            assert t.output_schema is None, t.name  # registry/results.py says why
            assert {"preview", "preview_token", "idempotency_key"} <= set(
                t.input_schema["properties"]), t.name
            assert t.full_description.endswith(COACHING)
        else:
            assert t.output_schema is not None and t.output_schema["type"] == "object", t.name
            assert COACHING not in t.full_description


def test_descriptions_and_schemas_stay_small(reg: Registry) -> None:
    for t in reg.tools():
        size = len(t.full_description.encode()) + len(json.dumps(t.input_schema).encode())
        coaching = len(COACHING) if t.facts.writes else 0
        assert size - coaching < 1600, f"{t.name}: {size} bytes"
        assert len(t.description) < 240, t.name


def test_unknown_tool_and_missing_role_are_coded(reg: Registry) -> None:
    with pytest.raises(ShopfloorError) as info:
        reg.invoke("no_such_tool", {}, Actor.of("a", "admin"))
    assert info.value.code == "not_found"
    with pytest.raises(ShopfloorError) as info:
        reg.invoke("create_location", {"code": "X", "name": "X"}, Actor.of("v", "viewer"))
    assert info.value.code == "forbidden"
    with pytest.raises(ShopfloorError) as info:
        reg.invoke("modify_item", {"sku": "X"}, Actor.of("o", "operator"))
    assert info.value.code == "forbidden"
    with pytest.raises(ShopfloorError) as info:
        reg.invoke("get_stock", {}, Actor.of("nobody"))
    assert info.value.code == "forbidden"


@pytest.mark.parametrize(("args", "field"), [
    ({"name": "X"}, "code"),
    ({"code": "X", "name": "X", "colour": "red"}, "colour"),
    ({"code": "", "name": "X"}, "code"),
    ({"code": "A\x07B", "name": "X"}, "code"),
    ({"code": "X" * 65, "name": "X"}, "code"),
    ({"code": "X", "name": "X", "allow_negative": "perhaps"}, "allow_negative"),
])
def test_validation_errors_name_the_field(reg: Registry, args: dict[str, object],
                                          field: str) -> None:
    with pytest.raises(ShopfloorError) as info:
        reg.invoke("create_location", args, Actor.of("a", "admin"))
    assert info.value.code == "validation_error"
    assert info.value.field == field
    assert field in info.value.message


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def test_schemas_are_valid_and_compact(reg: Registry) -> None:
    """Every schema is valid JSON Schema 2020-12 and says nothing twice: no titles, no
    `anyOf` pair where a type list does, no `$defs` entry used once, no default
    `additionalProperties`, no defaults in results, and it is its own compact form."""
    for t in reg.tools():
        for schema, output in ((t.input_schema, False), (t.output_schema or {}, True)):
            Draft202012Validator.check_schema(schema)
            assert compact(schema, output=output) == schema, t.name
            text = json.dumps(schema)
            for node in _walk(schema):
                assert "title" not in node or not isinstance(node["title"], str), t.name
                assert node.get("additionalProperties") is not True, t.name
                if output and "properties" in node:
                    assert not any("default" in p for p in node["properties"].values()), t.name
                pair = node.get("anyOf")
                if isinstance(pair, list) and {"type": "null"} in pair and len(pair) == 2:
                    other = pair[0] if pair[1] == {"type": "null"} else pair[1]
                    assert "type" not in other or "enum" in other or "const" in other, t.name
            for name in schema.get("$defs", {}):
                assert text.count(f'"#/$defs/{name}"') > 1, (t.name, name)


def test_compact_keeps_what_a_schema_accepts() -> None:
    raw = {
        "$defs": {
            "Once": {"type": "object", "properties": {"a": {"type": "integer"}},
                     "required": ["a"], "additionalProperties": True},
            "Twice": {"type": "object", "properties": {"b": {"type": "string"}}},
            "Tree": {"type": "object", "properties": {"kids": {
                "type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
        },
        "type": "object",
        "properties": {
            "once": {"$ref": "#/$defs/Once", "description": "used once"},
            "x": {"$ref": "#/$defs/Twice"}, "y": {"$ref": "#/$defs/Twice"},
            "tree": {"$ref": "#/$defs/Tree"},
            "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}],
                     "default": None},
            "kind": {"anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}]},
            "count": {"type": "integer", "default": 3},
            "default": {"type": "string"},
        },
        "required": ["once"],
    }
    small = compact(raw, output=False)
    assert set(small["$defs"]) == {"Twice", "Tree"}
    assert small["properties"]["once"] == {
        "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
        "description": "used once"}
    assert small["properties"]["when"] == {"type": ["string", "null"], "format": "date"}
    assert "anyOf" in small["properties"]["kind"]  # an enum does not take null by widening
    assert small["properties"]["count"]["default"] == 3  # inputs keep real defaults
    assert small["properties"]["default"] == {"type": "string"}  # a property named default
    assert "default" not in compact(raw, output=True)["properties"]["count"]
    cases = [{"once": {"a": 1}}, {"once": {"a": "1"}}, {"once": {}}, {"x": {"b": 1}},
             {"once": {"a": 1}, "when": None}, {"once": {"a": 1}, "when": 3},
             {"once": {"a": 1}, "kind": None}, {"once": {"a": 1}, "kind": "c"},
             {"once": {"a": 1}, "tree": {"kids": [{"kids": [{"kids": 1}]}]}}]
    for case in cases:
        assert Draft202012Validator(raw).is_valid(case) == \
            Draft202012Validator(small).is_valid(case), case
