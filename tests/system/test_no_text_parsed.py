"""Tools render what the domain returns; none reads back the text the domain logged for
people (a change's field, before or after, a warning's message) to learn what happened."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.quick

TOOLS = Path(__file__).resolve().parents[2] / "src" / "shopfloor" / "tools"
TEXT_METHODS = {"endswith", "startswith", "split", "rsplit", "partition", "rpartition",
                "removeprefix", "removesuffix", "find", "index", "count"}
LOGGED = {"field", "before", "after", "message"}


def _parses_logged_text(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in TEXT_METHODS:
        return isinstance(func.value, ast.Attribute) and func.value.attr in LOGGED
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "re":
        return any(isinstance(a, ast.Attribute) and a.attr in LOGGED for a in node.args)
    return False


def test_no_tool_parses_the_text_the_domain_logged() -> None:
    found = [f"{path.relative_to(TOOLS)}:{node.lineno}"
             for path in sorted(TOOLS.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(), str(path)))
             if _parses_logged_text(node)]
    assert not found, found


def test_the_check_sees_a_parse() -> None:
    tree = ast.parse('sum(1 for c in op.changes if c.field.endswith(" received"))')
    assert any(_parses_logged_text(n) for n in ast.walk(tree))
