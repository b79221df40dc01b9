"""The result shape every surface returns for writes (DESIGN section 3).

tools/list gives a write no outputSchema. A write's result is read, not computed on: its
summary is the text content every host shows, the preview_token to apply with is named by
the coaching every write's description ends with, and everything else (changes, warnings,
the document, an apply's operation_id) arrives named in the result itself. A listed
envelope would be a promise with nothing in it to validate, and cost 118 bytes of context
per write tool on every turn (36 writes: about 70 bytes per tool of the 1,000 budget).
The OpenAPI document types all of it (`result_envelope` and the tool's `response`
model), where bytes cost nothing and code generators use them.
"""

from __future__ import annotations

import copy
from typing import Any

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


def result_envelope() -> dict[str, Any]:
    """Every field of the envelope, typed: for API documents, where bytes cost nothing."""
    return copy.deepcopy(_TYPED)
