"""Every tool's input schema, filled with values at the edges, never gets an internal error.

Issue 30: "no internal error from any schema-valid input". Hypothesis draws arguments from
each tool's own JSON Schema (the registry lists the tools), the leaves from boundary
values rather than anything at random: dates and moments at and past the years 1900-2999
with offsets up to 23:59, quantities of 0, the smallest step (0.000001), just under and
past 10^9 and 10^12, percentages and minutes in the millions; strings are the world's
own keys and numbers, so calls reach the rules instead of stopping at "not found". Each
call is a success or a coded error other than `internal`; a write's apply that queues a
job has the job run too, and it may fail only with a coded error. On SQLite and
PostgreSQL; `make test` runs EXAMPLES per tool (derandomized), `-m long` LONG_EXAMPLES,
randomized.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ERROR_CODES, ShopfloorError
from shopfloor.registry.registry import Registry
from tests.copies import Copies
from tests.helpers import ADMIN, ledger_mismatches
from tests.system.test_bad_input import _world

EXAMPLES = int(os.environ.get("SHOPFLOOR_EDGE_EXAMPLES", "20"))
LONG_EXAMPLES = int(os.environ.get("SHOPFLOOR_EDGE_LONG_EXAMPLES", "200"))

# the far edges first: a derandomized run draws the first values most
DAYS = ["9999-12-31", "0001-01-01", "2999-12-31", "1900-01-01", "3000-01-01", "1899-12-31",
        "2999-12-25", "2026-11-27", "2027-03-01", "2000-02-29"]
MOMENTS = ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "9999-12-31T23:00:00Z",
           "0001-01-01T00:00:00+14:00", "2999-12-31T23:00:00Z", "2999-12-31T23:59:59-23:59",
           "1900-01-01T00:00:00+23:59", "2999-12-31T23:59:59Z", "1900-01-01T00:00:00Z",
           "1900-01-01T12:00:00+14:00", "2999-12-31T00:00:00-12:00", "2026-11-27T09:00:00Z",
           "2027-03-01T08:00:00"]
DECIMALS = ["999999999", "0.000001", "99999999", "0", "1000000000000", "999999999.999999",
            "1", "2", "99.999999", "100", "100.000001", "999999", "1000000000",
            "999999999999", "0.0000001", "-0.000001", "-999999999", "1e12", "5E-7"]
INTEGERS = [0, 1, 2, 7, 10, 365, 3650, 36500, 2**31 - 1, 2**31, 10**12, -1]


def _words(refs: dict[str, str]) -> list[str]:
    """The world's keys (items, places, partners, centres) and its documents' numbers."""
    return ["M1", "M2", "P1", "T1", "MAIN", "SHOP", "Acme", "Bob", "WC", "L1", "box", "pcs",
            "USD", "EUR", "job.finished", "ann", "operator", "", "x" * 65,
            *(v for v in refs.values() if isinstance(v, str))]


NAMED = {"sku": ["M1", "P1", "T1", "M2"], "location": ["MAIN", "SHOP"],
         "from_location": ["MAIN", "SHOP"], "to_location": ["SHOP", "MAIN"],
         "supplier": ["Acme"], "customer": ["Bob"], "work_centre": ["WC"], "lot": ["L1"],
         "csv": [f"sku,name,kind,routing,on_hand:MAIN,unit_cost\nE{i},Edge,product,"
                 f"10:Make:WC:{v}:{v},{v},{v}\n" for i, v in enumerate(
                     ["1e30", "999999999999", "0.0000001", "999999999.999999", "0"])]}
"""Keys by the argument's name: the world's own, so a call gets past its lookups."""


def strategy(node: dict[str, Any], words: list[str], defs: dict[str, Any],
             name: str = "") -> Any:
    """Values for one schema node, drawn from the edges (see the module docstring)."""
    if "$ref" in node:
        return strategy(defs[node["$ref"].rsplit("/", 1)[-1]], words, defs, name)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "anyOf" in node and "properties" not in node:
        return st.one_of(*(strategy(n, words, defs, name) for n in node["anyOf"]))
    types = node.get("type", "string")
    types = types if isinstance(types, list) else [types]
    options = []
    if "null" in types:
        options.append(st.none())
    if "object" in types:
        options.append(_object(node, words, defs))
    if "array" in types:
        items = strategy(node.get("items", {}), words, defs, name)
        low = node.get("minItems", 0)
        options.append(st.lists(items, min_size=low, max_size=max(low, 3)))
    if "number" in types:
        options.append(st.sampled_from(DECIMALS))
    elif "integer" in types:
        edges = [node.get("minimum"), node.get("maximum")]
        options.append(st.sampled_from(INTEGERS + [e for e in edges if e is not None]))
    if "boolean" in types:
        options.append(st.booleans())
    if "string" in types and "number" not in types:
        options.append(_text(node, NAMED.get(name, words)))
    return st.one_of(*options) if options else st.none()


def _text(node: dict[str, Any], words: list[str]) -> Any:
    fmt = node.get("format")
    if fmt == "date":
        return st.sampled_from(DAYS)
    if fmt == "date-time":
        return st.sampled_from(MOMENTS)
    if node.get("pattern") and "description" in node and "date" in node["description"]:
        return st.sampled_from(DAYS + MOMENTS)  # `since`: a date or a moment
    return st.sampled_from(words)


def _object(node: dict[str, Any], words: list[str], defs: dict[str, Any]) -> Any:
    props = node.get("properties", {})
    required = set(node.get("required", []))
    for alternative in node.get("anyOf", [])[:1]:  # sku or id, number or id: the key
        required |= set(alternative.get("required", []))
    fields = {k: strategy(v, words, defs, k) for k, v in props.items()
              if k not in ("preview_token", "idempotency_key")}

    @st.composite
    def drawn(draw: st.DrawFn) -> dict[str, Any]:
        """Each optional field in three draws of four: most calls set most fields."""
        return {k: draw(v) for k, v in fields.items()
                if k in required or draw(st.sampled_from((True, True, True, False)))}
    return drawn()


def _tool_names() -> list[str]:
    from tests.system.test_abuse import TOOLS
    return TOOLS


def _answered(reg: Registry, name: str, args: dict[str, Any]) -> str | None:
    """What was wrong with the answer to one call (None: a success or a coded error)."""
    try:
        result = reg.invoke(name, args, ADMIN)
    except ShopfloorError as exc:
        if exc.code not in ERROR_CODES or exc.code == "internal":
            return f"{exc.code}: {exc.message}"
        json.dumps(exc.to_payload())
        return None
    json.dumps(result)
    job = result.get("job_id") if isinstance(result, dict) else None
    if job and result.get("status") == "queued":
        worker_for(reg).run_one(job)
        ran = reg.invoke("get_job", {"job_id": job}, ADMIN)
        code = str(ran.get("message") or "").split(":", 1)[0]
        if ran["status"] == "failed" and (code not in ERROR_CODES or code == "internal"):
            return f"its job failed: {ran['message']}"
    return None


SHARDS = 4
"""`make test` runs the tools in this many parts, each on its own copy of the world: no
one test runs long, and parallel workers share them."""


def run_edges(reg: Registry, refs: dict[str, str], examples: int, derandomize: bool,
              shard: int = 0, shards: int = 1) -> tuple[dict[str, list[str]], int]:
    """Every tool (of this shard), `examples` drawings each: (what went wrong, by tool;
    calls made)."""
    words = _words(refs)
    found: dict[str, list[str]] = {}
    calls = 0
    for tool in list(reg.tools())[shard::shards]:
        schema = tool.input_schema
        calls += _fuzz(reg, tool.name, strategy(schema, words, schema.get("$defs", {})),
                       examples, derandomize, found)
    return found, calls


def _fuzz(reg: Registry, name: str, drawn: Any, examples: int, derandomize: bool,
          found: dict[str, list[str]]) -> int:
    calls = 0

    @settings(max_examples=examples, deadline=None, database=None,
              derandomize=derandomize, suppress_health_check=list(HealthCheck))
    @given(args=drawn)
    def call(args: dict[str, Any]) -> None:
        nonlocal calls
        calls += 1
        wrong = _answered(reg, name, args)
        if wrong is not None:
            found.setdefault(name, []).append(f"{json.dumps(args)[:300]} -> {wrong}")

    call()
    return calls


@pytest.fixture
def world(db_url: str, copies: Copies) -> Iterator[tuple[Registry, dict[str, str]]]:
    """A fresh copy of the bad-input tests' company (built once a session)."""
    with copies.opened(db_url, "bad_input", _world) as found:
        yield found


def _check(world: tuple[Registry, dict[str, str]], examples: int, derandomize: bool,
           shard: int = 0, shards: int = 1) -> None:
    reg, refs = world
    found, calls = run_edges(reg, refs, examples, derandomize, shard, shards)
    assert not found, "\n".join(f"{k}: {v[0]} ({len(v)} such)" for k, v in found.items())
    tools = len(_tool_names()[shard::shards])
    assert calls >= tools * min(examples, 2), calls
    print(f"edges: {tools} tools, {calls} calls")
    assert not ledger_mismatches(reg)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_tool_at_the_edges_answers_without_internal_error(
        world: tuple[Registry, dict[str, str]], shard: int) -> None:
    _check(world, EXAMPLES, derandomize=True, shard=shard, shards=SHARDS)


@pytest.mark.long
def test_every_tool_at_the_edges_long(world: tuple[Registry, dict[str, str]]) -> None:
    _check(world, LONG_EXAMPLES, derandomize=False)
