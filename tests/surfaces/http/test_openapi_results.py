"""What the HTTP API returns is what its OpenAPI document says: a real preview and a real
apply of every write tool validate against the typed result schema served for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from shopfloor.registry.registry import Registry
from shopfloor.surfaces.openapi import document
from tests.copies import Copies
from tests.helpers import ADMIN
from tests.system.test_bad_input import CASES, _fill, _world

_COMPONENTS: dict[tuple[str, ...], Any] = {}


def _validator(registry: Registry, tool: str) -> jsonschema.Draft202012Validator:
    """Against the document served for these tools (made once: every test has the same)."""
    tools = registry.tools()
    key = tuple(t.name for t in tools)
    if key not in _COMPONENTS:
        _COMPONENTS[key] = document(tools)["components"]
    prefix = "".join(p.title() for p in tool.split("_"))
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/components/schemas/{prefix}Output", "components": _COMPONENTS[key]})


@pytest.fixture
def world(db_url: str, copies: Copies) -> Iterator[tuple[Registry, dict[str, str]]]:
    """A fresh copy of the bad-input tests' company (built once a session and database)."""
    with copies.opened(db_url, "bad_input", _world) as found:
        yield found


@pytest.mark.parametrize("tool", sorted(t for t in CASES if t != "apply_mrp_plan"))
def test_previews_and_applies_match_the_served_schema(
        world: tuple[Registry, dict[str, str]], tool: str) -> None:
    registry, refs = world
    check = _validator(registry, tool)
    preview: dict[str, Any] = registry.invoke(tool, _fill(CASES[tool][0], refs), ADMIN)
    check.validate(preview)
    arguments = preview["apply"]["arguments"]
    if "password" in arguments:  # a preview shows it masked: the caller sends it again
        arguments = {**arguments, "password": CASES[tool][0]["password"]}
    applied = registry.invoke(tool, arguments, ADMIN)
    check.validate(applied)
    assert not check.is_valid({**applied, "summary": 7})  # the schema does constrain it
