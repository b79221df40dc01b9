"""The OpenAPI document: one typed operation per tool, from the registry's schemas."""

from __future__ import annotations

import copy
from typing import Any

from shopfloor import __version__
from shopfloor.kernel.errors import ERROR_CODES
from shopfloor.registry import results
from shopfloor.registry.schema import output_schema
from shopfloor.registry.tool import Tool

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string", "enum": list(ERROR_CODES)},
            "message": {"type": "string"},
            "field": {"type": ["string", "null"]},
            "details": {"type": "object"},
        },
    }},
}
STATUS = {"validation_error": 422, "not_found": 404, "conflict": 409, "insufficient_stock": 409,
          "stale_preview": 409, "forbidden": 403, "unauthenticated": 401, "internal": 500,
          "period_locked": 409}


def _hoist(schema: dict[str, Any], prefix: str, components: dict[str, Any]) -> dict[str, Any]:
    """Move `$defs` into components/schemas and point the refs there."""
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", {})

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                node = {**node, "$ref": f"#/components/schemas/{prefix}{ref[8:]}"}
            return {k: fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    for name, d in defs.items():
        components[f"{prefix}{name}"] = fix(d)
    return fix(schema)  # type: ignore[no-any-return]


def _result_schema(t: Tool) -> dict[str, Any]:
    """A read's result; for a write, typed here only (MCP lists none, where every byte is
    context): the preview carries the document, and an apply the document's own fields
    (a write job's apply: the queued job). Code generators get real types here."""
    doc = output_schema(t.response)
    if not t.facts.writes:
        return doc
    defs = doc.pop("$defs", {})
    envelope = results.result_envelope()
    preview = {**envelope, "required": ["preview", "summary", "changes", "warnings"],
               "properties": {**envelope["properties"], "preview": {"const": True},
                              "document": doc}}
    if t.facts.job:
        applied: dict[str, Any] = {**envelope, "required": ["applied", "summary", "job_id"],
                                   "properties": {**envelope["properties"],
                                                  "job_id": {"type": "string"}}}
    else:
        applied = {"allOf": [{**envelope, "required": ["applied", "summary", "operation_id"]},
                             doc]}
    return {"anyOf": [preview, applied], **({"$defs": defs} if defs else {})}


def document(tools: list[Tool]) -> dict[str, Any]:
    components: dict[str, Any] = {"Error": ERROR_SCHEMA}
    paths: dict[str, Any] = {}
    error_response = {"content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}}
    for t in tools:
        prefix = "".join(p.title() for p in t.name.split("_"))
        components[f"{prefix}Input"] = _hoist(t.input_schema, prefix, components)
        components[f"{prefix}Output"] = _hoist(_result_schema(t), prefix, components)
        codes = sorted({STATUS[c] for c in ERROR_CODES})
        paths[f"/api/v1/tools/{t.name}"] = {"post": {
            "operationId": t.name,
            "summary": t.title,
            "description": t.full_description,
            "tags": ["write" if t.facts.writes else "read"],
            "x-shopfloor-role": t.facts.role.name,
            "x-shopfloor-destructive": t.facts.destructive,
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{prefix}Input"}}}},
            "responses": {
                "200": {"description": "result", "content": {"application/json": {
                    "schema": {"$ref": f"#/components/schemas/{prefix}Output"}}}},
                **{str(code): {"description": "error", **error_response} for code in codes},
                "400": {"description": "malformed request body", **error_response},
            },
        }}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Shopfloor", "version": __version__,
                 "description": "Inventory and manufacturing tools. Every write previews "
                                "first; apply with preview=false and the preview_token."},
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}},
        "security": [{"bearer": []}],
    }
