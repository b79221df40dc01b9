"""A tool's answer in wire form is the answer a CallToolResult model gave, on every protocol
version the SDK knows; the text view's one-pass fields are the cells `_cell` makes."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.runner import _dump_result
from mcp_types import methods
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from shopfloor.surfaces.mcp.surface import answer
from shopfloor.surfaces.render import _cell, render

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=8),
                    st.sampled_from(["a\x1bb", "\u202e", "x|y", "<b>", "\ud800", "é"]))
KEYS = st.one_of(st.text(max_size=6), st.sampled_from(["k\x07", "é", "\u2028"]))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20), st.dictionaries(KEYS, JSON, max_size=6))
def test_answer_is_what_a_call_tool_result_gave(text: str, structured: dict[str, Any]) -> None:
    model = types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                 structured_content=structured, is_error=False)
    for version in KNOWN_PROTOCOL_VERSIONS:
        try:
            want = methods.serialize_server_result("tools/call", version, _dump_result(model))
        except KeyError:
            continue  # no tools/call on this version's surface
        got = methods.serialize_server_result("tools/call", version,
                                              _dump_result(answer(text, structured)))
        assert got == want, version


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(KEYS, SCALARS, max_size=8))
def test_text_fields_are_their_cells(payload: dict[str, Any]) -> None:
    """A flat result's text: one `key: cell` line per field (shown escaped), in order."""
    skipped = {"summary", "preview", "applied", "replayed", "preview_token"}
    lines = [f"{_cell(k)}: {_cell(v)}" for k, v in payload.items() if k not in skipped]
    if payload.get("preview") or payload.get("applied"):
        return  # (a heading line comes first; other tests cover those)
    assert render(payload, "text") == "\n".join(lines).strip("\n")
