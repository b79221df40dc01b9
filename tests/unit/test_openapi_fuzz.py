"""schemathesis against the served OpenAPI: no server error, no response off its schema.

Every operation gets a fixed example budget so `make test` stays bounded (derandomized,
so it is the same run each time); `-m long` (`make test-long`) runs a randomized
SHOPFLOOR_FUZZ_LONG_EXAMPLES (150) per operation.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.helpers import apply, basic_setup
from tests.servers import serving

EXAMPLES = int(os.environ.get("SHOPFLOOR_FUZZ_EXAMPLES", "12"))
LONG_EXAMPLES = int(os.environ.get("SHOPFLOOR_FUZZ_LONG_EXAMPLES", "150"))
# Schema-valid input may still break a business rule (receive more than is outstanding):
# a coded 4xx is the right answer there, so "positive data acceptance" is not asked for.
CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance,
          content_type_conformance, negative_data_rejection]


def test_api_never_errors_and_keeps_to_its_schema(tmp_path: Path, sqlite_template: Path) -> None:
    _fuzz_api(tmp_path, sqlite_template, EXAMPLES)


@pytest.mark.long
def test_api_fuzz_long(tmp_path: Path, sqlite_template: Path) -> None:
    _fuzz_api(tmp_path, sqlite_template, LONG_EXAMPLES)


def _fuzz_api(tmp_path: Path, sqlite_template: Path, examples: int) -> None:
    path = tmp_path / "fuzz.db"
    shutil.copy(sqlite_template, path)
    conf = Settings(database_url=f"sqlite:///{path}")
    reg = open_registry(conf)
    basic_setup(reg)
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])
    token = Authenticator(reg, conf).mint("fuzzer", ["admin"], 3600)
    headers = {"Authorization": f"Bearer {token}"}
    with serving(build_app(reg, conf)) as url:
        schema = schemathesis.openapi.from_url(f"{url}/openapi.json")
        checked = 0
        for result in schema.get_all_operations():
            operation = result.ok()

            @given(case=operation.as_strategy())
            @settings(max_examples=examples, deadline=None, derandomize=examples == EXAMPLES,
                      suppress_health_check=list(HealthCheck), database=None)
            def fuzz(case: schemathesis.Case) -> None:
                case.call_and_validate(base_url=url, headers=headers, checks=CHECKS)

            fuzz()
            checked += 1
        assert checked == len(reg.tools())
