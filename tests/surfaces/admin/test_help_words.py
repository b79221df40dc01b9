"""A form's help texts are words (issue 29): a field's description, shown under its box
in the admin and read by a person, names no other field, tool or code in snake_case
("else backward from due_date"); a tool's own description may name its arguments."""

from __future__ import annotations

import re
from typing import Any

import pytest

from shopfloor.tools import catalogue

pytestmark = pytest.mark.quick

CODE = re.compile(r"\b[a-z]+_[a-z_]+\b")
# A file's header names the columns as they are typed into it: there the codes are the words.
LITERAL = {"import_items.csv"}


def _described(schema: dict[str, Any], defs: dict[str, Any], path: str, depth: int = 0
               ) -> list[tuple[str, str]]:
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        out.append((f"{path}.{name}", str(prop.get("description") or "")))
        for sub in [prop.get("items") or {}, *(prop.get("anyOf") or [])]:
            if depth < 3 and isinstance(sub, dict) and ("$ref" in sub or "properties" in sub):
                out += _described(sub, defs, f"{path}.{name}", depth + 1)
    return out


def test_no_help_text_names_a_field_or_tool_in_code() -> None:
    coded = []
    for toolset in catalogue():
        for tool in toolset:
            schema = tool.input_schema
            for where, text in _described(schema, schema.get("$defs") or {}, tool.name):
                if where not in LITERAL and CODE.search(text):
                    coded.append(f"{where}: {text!r}")
    assert not coded, "\n".join(coded)
