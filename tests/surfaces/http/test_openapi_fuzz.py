"""schemathesis against the served OpenAPI: no server error, no response off its schema.

Every operation gets a fixed example budget so `make test` stays bounded (derandomized,
so it is the same run each time); `-m long` (`make test-long`) runs a randomized
SHOPFLOOR_FUZZ_LONG_EXAMPLES (150) per operation. Then every date and moment argument
is sent the edges explicitly (issue 30): years 0001 and 9999, just outside and at the
ends of 1900-2999, offsets of 23:59; each answered with a 4xx or a success, never a 5xx.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.copies import Copies
from tests.given import Given
from tests.helpers import apply
from tests.servers import serving

EXAMPLES = int(os.environ.get("SHOPFLOOR_FUZZ_EXAMPLES", "12"))
LONG_EXAMPLES = int(os.environ.get("SHOPFLOOR_FUZZ_LONG_EXAMPLES", "150"))
# Schema-valid input may still break a business rule (receive more than is outstanding):
# a coded 4xx is the right answer there, so "positive data acceptance" is not asked for.
CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance,
          content_type_conformance, negative_data_rejection]
EDGE_DAYS = ["9999-12-31", "0001-01-01", "1899-12-31", "3000-01-01", "1900-01-01",
             "2999-12-31"]
EDGE_MOMENTS = ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59",
                "0001-01-01T00:00:00+14:00", "9999-12-31T23:00:00Z",
                "2999-12-31T23:59:59-23:59", "2999-12-31T23:00:00Z", "1900-01-01T00:00:00Z"]
SAMPLE: dict[str, Any] = {"sku": "M1", "location": "MAIN", "supplier": "Acme",
                          "customer": "Bob", "quantity": "1", "reason": "edge",
                          "lines": [{"sku": "M1", "quantity": "1"}]}
"""Required arguments of an edge case, so the date reaches the tool's own work."""


SHARDS = 8
"""`make test` fuzzes the operations in this many parts (each on its own copy of the
company and its own server): no one test runs long, and parallel workers share them."""


@pytest.mark.parametrize("shard", range(SHARDS))
def test_api_never_errors_and_keeps_to_its_schema(tmp_path: Path, sqlite_template: Path,
                                                  copies: Copies, shard: int) -> None:
    _fuzz_api(tmp_path, sqlite_template, copies, EXAMPLES, shard, SHARDS)


def test_the_edge_cases_reach_over_a_hundred_bodies(sqlite_url: str) -> None:
    """What the shards send at the edges, counted over every tool at once."""
    reg = open_registry(Settings(database_url=sqlite_url))
    try:
        edges = sum(len(_edge_bodies(tool.input_schema)) for tool in reg.tools())
    finally:
        reg.store.dispose()
    assert edges >= 100, edges


@pytest.mark.long
def test_api_fuzz_long(tmp_path: Path, sqlite_template: Path, copies: Copies) -> None:
    _fuzz_api(tmp_path, sqlite_template, copies, LONG_EXAMPLES)


def _company(reg: Registry) -> None:
    Given(reg).company()
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])


def _fuzz_api(tmp_path: Path, sqlite_template: Path, copies: Copies, examples: int,
              shard: int = 0, shards: int = 1) -> None:
    path = tmp_path / "fuzz.db"
    shutil.copy(sqlite_template, path)
    conf = Settings(database_url=f"sqlite:///{path}")
    copies.restore(conf.database_url, "openapi_fuzz", _company)
    reg = open_registry(conf)
    token = Authenticator(reg, conf).mint("fuzzer", ["admin"], 3600)
    headers = {"Authorization": f"Bearer {token}"}
    with serving(build_app(reg, conf)) as url:
        schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
        checked = cases = edges = 0
        operations = [result.ok() for result in schema.get_all_operations()]
        for operation in operations[shard::shards]:

            @given(case=operation.as_strategy())
            @settings(max_examples=examples, deadline=None, derandomize=examples == EXAMPLES,
                      suppress_health_check=list(HealthCheck), database=None)
            def fuzz(case: schemathesis.Case) -> None:
                nonlocal cases
                cases += 1
                case.call_and_validate(base_url=url, headers=headers, checks=CHECKS)

            fuzz()
            checked += 1
            for body in _edge_bodies(reg.get(operation.path.rsplit("/", 1)[-1]).input_schema):
                operation.Case(body=body, media_type="application/json").call_and_validate(
                    base_url=url, headers=headers, checks=CHECKS)
                edges += 1
        assert len(operations) == len(reg.tools())
        assert checked == len(operations[shard::shards]) > 0
        if shards == 1:
            assert edges >= 100, edges
        print(f"schemathesis: {cases} generated cases, {edges} edge cases, {checked} operations")


def _edge_bodies(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """A body per edge value of each top-level date or moment argument, the required
    arguments filled from SAMPLE (a tool needing others is left to the generated cases)."""
    props, required = schema.get("properties", {}), schema.get("required", [])
    if any(k not in SAMPLE for k in required):
        return []
    base = {k: SAMPLE[k] for k in required}
    if "anyOf" in schema and "sku" in props:
        base["sku"] = SAMPLE["sku"]
    out = []
    for name, node in props.items():
        shown = node.get("items", node)  # a list of dates: one of them at the edge
        values = {"date": EDGE_DAYS, "date-time": EDGE_MOMENTS}.get(
            shown.get("format", ""), EDGE_DAYS + EDGE_MOMENTS if name == "since" else [])
        for value in values:
            out.append({**base, name: [value] if shown is not node else value})
    return out
