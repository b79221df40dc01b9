"""JSON Schema from the pydantic models, generated once and served by every surface.

Compact, because an agent reads every byte of tools/list on every turn, but exact: what is
dropped carries no meaning for validation, or is said in a shorter equivalent form.
- titles (the property name says it);
- `"additionalProperties": true` (the default);
- `X | None` written as `"type": [X, "null"]` instead of an `anyOf` pair;
- a `$defs` entry used once is written in place (shared ones stay in `$defs`);
- in outputs, `default` (an annotation that describes inputs, not results); in inputs,
  `"default": null` on an optional field (absent is the same as null there).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import CoreSchema


class _Compact(GenerateJsonSchema):
    def generate(self, schema: CoreSchema, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        out = super().generate(schema, mode=mode)
        stripped = _strip(out, optional_as_absent=mode == "validation")
        return compact(stripped, output=mode == "serialization")


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


_NULL = {"type": "null"}
# Keywords that constrain a null as well as other values: a variant carrying one of them
# cannot simply take "null" into its type list.
_NOT_MERGEABLE = {"const", "anyOf", "oneOf", "allOf", "not", "$ref", "if", "enum"}
_REF = "#/$defs/"


def compact(schema: dict[str, Any], *, output: bool) -> dict[str, Any]:
    """The same schema, shorter (see the module docstring). Idempotent."""
    return _tidy(_inline_single_use(schema), output=output, in_properties=False)  # type: ignore[no-any-return]


def _refs(node: Any, found: Counter[str]) -> Counter[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            found[ref[len(_REF):]] += 1
        for v in node.values():
            _refs(v, found)
    elif isinstance(node, list):
        for v in node:
            _refs(v, found)
    return found


def _inline_single_use(schema: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = schema.get("$defs") or {}
    if not defs:
        return schema
    uses = _refs({k: v for k, v in schema.items() if k != "$defs"}, Counter())
    for body in defs.values():
        _refs(body, uses)
    inline = {name for name, n in uses.items()
              if n == 1 and name in defs and name not in _refs(defs[name], Counter())}

    def sub(node: Any) -> Any:
        if isinstance(node, list):
            return [sub(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF) and ref[len(_REF):] in inline:
            siblings = {k: sub(v) for k, v in node.items() if k != "$ref"}
            return {**sub(defs[ref[len(_REF):]]), **siblings}
        return {k: sub(v) for k, v in node.items()}

    out = {k: sub(v) for k, v in schema.items() if k != "$defs"}
    kept = {name: sub(body) for name, body in defs.items() if name not in inline}
    return {"$defs": kept, **out} if kept else out


def _or_null(variant: dict[str, Any]) -> dict[str, Any] | None:
    """`variant` widened to also accept null, if that can be said without `anyOf`."""
    kind = variant.get("type")
    if not isinstance(kind, str | list) or _NOT_MERGEABLE & variant.keys():
        return None
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return {**variant, "type": kinds if "null" in kinds else [*kinds, "null"]}


def _tidy(node: Any, *, output: bool, in_properties: bool) -> Any:
    if isinstance(node, list):
        return [_tidy(v, output=output, in_properties=False) for v in node]
    if not isinstance(node, dict):
        return node
    if in_properties:  # keys are property names, values are schemas
        return {k: _tidy(v, output=output, in_properties=False) for k, v in node.items()}
    variants = node.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and _NULL in variants:
        other = variants[0] if variants[1] == _NULL else variants[1]
        widened = _or_null(_tidy(other, output=output, in_properties=False))
        if widened is not None:
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            if not (rest.keys() & widened.keys()):
                node = {**widened, **rest}
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "additionalProperties" and v is True:
            continue
        if k == "default" and (output or v is None):
            continue
        out[k] = _tidy(v, output=output, in_properties=k in ("properties", "$defs"))
    return out


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="validation")


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="serialization")
