"""JSON Schema from the pydantic models, generated once and served by every surface.

Titles are dropped (the property name says it) to keep tools/list small: an agent reads
every byte of it on every turn.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import CoreSchema


class _Compact(GenerateJsonSchema):
    def generate(self, schema: CoreSchema, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        out = super().generate(schema, mode=mode)
        return _strip(out, optional_as_absent=mode == "validation")  # type: ignore[no-any-return]


NO_CONTROL_CHARS = r"^[^\x00-\x1f\x7f]+$"


def _strip(node: Any, *, optional_as_absent: bool, in_properties: bool = False) -> Any:
    """Drop titles and the no-control-characters pattern (still enforced, just not
    advertised); for inputs, show `X | None = None` as plain optional X (outputs keep
    their nulls: clients validate results against them)."""
    def again(v: Any, props: bool = False) -> Any:
        return _strip(v, optional_as_absent=optional_as_absent, in_properties=props)

    if isinstance(node, list):
        return [again(v) for v in node]
    if not isinstance(node, dict):
        return node
    if in_properties:
        return {k: again(v) for k, v in node.items()}
    variants = node.get("anyOf")
    if (optional_as_absent and variants and node.get("default", 0) is None
            and {"type": "null"} in variants):
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            merged = {**rest[0], **{k: v for k, v in node.items()
                                    if k not in ("anyOf", "default")}}
            return again(merged)
    return {
        k: again(v, props=(k == "properties"))
        for k, v in node.items()
        if k != "title" and not (k == "pattern" and v == NO_CONTROL_CHARS)
    }


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="validation")


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="serialization")
