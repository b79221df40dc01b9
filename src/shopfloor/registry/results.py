"""The result shape every surface returns for writes (DESIGN section 3).

One envelope for every write tool, as MCP lists it. It is paid for in context once per
write tool on every turn, so it names only what an agent acts on before it has seen a
result: the summary to relay and the preview_token to apply with (null: a warning blocks
the apply). Everything else (changes, warnings, the document, an apply's operation_id)
arrives in the result itself, named; the OpenAPI document types all of it
(`result_envelope` and the tool's `response` model).
"""

from __future__ import annotations

import copy
from typing import Any

_LISTED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "preview_token": {"type": ["string", "null"]},
    },
}

_TYPED: dict[str, Any] = {
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
    """The envelope tools/list gives every write (a copy: callers may extend it)."""
    return copy.deepcopy(_LISTED)


def result_envelope() -> dict[str, Any]:
    """Every field of the envelope, typed: for API documents, where bytes cost nothing."""
    return copy.deepcopy(_TYPED)
