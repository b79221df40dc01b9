"""JSON Schema from the pydantic models, generated once and served by every surface.

Compact, because an agent reads every byte of tools/list on every turn. Two kinds of cut:

Said shorter, meaning kept (`compact`, exact: a schema accepts what it accepted before):
- titles (the property name says it);
- `"additionalProperties": true` (the default);
- `X | None` written as `"type": [X, "null"]` instead of an `anyOf` pair;
- a `$defs` entry used once is written in place (shared ones stay in `$defs`);
- in outputs, `default` (an annotation that describes inputs, not results); in inputs,
  `"default": null` on an optional field (absent is the same as null there).

Enforced, not advertised (`_strip`): limits no sensible call comes near, which the
registry still refuses with a coded error naming the field. An agent needs the names,
types, required fields, enums, defaults and the limits it could meet; not these:
- control characters and NULs in strings (the patterns that refuse them);
- `minLength: 1`, and `maxLength` on keys and names (up to 200; free text keeps its cap);
- the 32-bit bounds of an `id` (ids come from results);
- `"additionalProperties": false` (an unknown argument is refused by name);
- in outputs, `required`: a result is dumped whole, so every field listed is present.

Outputs are also said without what a result shows by itself (`_bare_output`): field
descriptions (the tool's description and the inputs carry the meaning; a result's names
and values speak for themselves), string formats (a date reads as a date: `2026-11-23`),
and `"type": "object"` on nested objects that list their properties (a result is only
ever what the tool returns). The top level keeps its
`"type": "object"`, which MCP requires of an outputSchema.
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
        output = mode == "serialization"
        out = compact(_strip(out, output=output), output=output)
        return {**_bare_output(out), "type": "object"} if output else out


NO_CONTROL_CHARS = r"^[^\x00-\x1f\x7f]+$"
NO_NUL = r"^[^\x00]*$"
KEY_LENGTH = 200
"""The longest key or name (SKU, code, partner name, cursor) whose cap goes unadvertised."""
ID_MAX = 2**31 - 1


def _unadvertised(node: dict[str, Any], *, output: bool) -> set[str]:
    """The keywords of one schema node that are enforced but not listed (module docstring)."""
    drop = {"title"}
    if node.get("pattern") in (NO_CONTROL_CHARS, NO_NUL):
        drop.add("pattern")
    if output:
        drop.add("required")
        return drop
    if node.get("minLength") == 1:
        drop.add("minLength")
    if isinstance(node.get("maxLength"), int) and node["maxLength"] <= KEY_LENGTH:
        drop.add("maxLength")
    if node.get("additionalProperties") is False:
        drop.add("additionalProperties")
    if node.get("maximum") == ID_MAX:
        drop.add("maximum")
        if node.get("minimum") == 1:
            drop.add("minimum")
    return drop


def _strip(node: Any, *, output: bool, names: bool = False) -> Any:
    """Drop what is not advertised; for inputs, show `X | None = None` as plain optional
    X (outputs keep their nulls: clients validate results against them). `names`: `node`
    maps property or definition names to schemas (a property may be called `required`)."""
    def again(v: Any, keyed: bool = False) -> Any:
        return _strip(v, output=output, names=keyed)

    if isinstance(node, list):
        return [again(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {k: again(v) for k, v in node.items()}
    variants = node.get("anyOf")
    if (not output and variants and node.get("default", 0) is None
            and {"type": "null"} in variants):
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            merged = {**rest[0], **{k: v for k, v in node.items()
                                    if k not in ("anyOf", "default")}}
            return again(merged)
    drop = _unadvertised(node, output=output)
    return {k: again(v, keyed=k in ("properties", "$defs"))
            for k, v in node.items() if k not in drop}


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


def _bare_output(node: Any, keyed: bool = False) -> Any:
    """An output schema without descriptions, formats and nested object types (module
    docstring).
    `keyed`: `node` maps property or definition names to schemas."""
    if isinstance(node, list):
        return [_bare_output(v) for v in node]
    if not isinstance(node, dict):
        return node
    if keyed:
        return {k: _bare_output(v) for k, v in node.items()}
    return {k: _bare_output(v, keyed=k in ("properties", "$defs")) for k, v in node.items()
            if k not in ("description", "format")
            and not (k == "type" and v == "object" and "properties" in node)}


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="validation")


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_Compact, mode="serialization")
