"""The result shape every surface returns for writes (DESIGN section 3).

One compact envelope for every write tool, as MCP lists it (its bytes are context an agent
pays on every turn): a preview or an apply. The apply also carries the document's own
fields beside these (additional properties); the OpenAPI document types them fully from
the tool's `response` model (surfaces/openapi.py).
"""

from __future__ import annotations

from typing import Any

_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "preview": {"type": "boolean"},
        "applied": {"type": "boolean"},
        "replayed": {"type": "boolean"},
        "summary": {"type": "string"},
        "changes": {"type": "array", "items": {"type": "object"}},
        "warnings": {"type": "array", "items": {"type": "object"}},
        "preview_token": {"type": ["string", "null"]},
        "operation_id": {"type": "string"},
    },
    "required": ["summary"],
}


def write_output_schema() -> dict[str, Any]:
    return {**_ENVELOPE, "properties": dict(_ENVELOPE["properties"])}
