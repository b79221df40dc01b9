"""A third-party client: the MCP Inspector CLI (npm, pinned) against `shopfloor mcp`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.ui.cards import JOB_URI, PREVIEW_URI
from tests.given import Given

INSPECTOR = Path(__file__).parents[2] / "js" / "node_modules" / ".bin" / "mcp-inspector"


def inspector(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    if not INSPECTOR.exists():
        pytest.fail("the Inspector CLI is not installed: run `make e2e-deps`", pytrace=False)
    # The Inspector does not pass our environment to the server: give it with -e.
    cmd = [str(INSPECTOR), "--cli", sys.executable, "-m", "shopfloor.surfaces.cli", "mcp",
           "-e", f"SHOPFLOOR_DATABASE_URL={db_url}", "-e", "SHOPFLOOR_TOOLSETS=all", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_inspector_lists_and_calls(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    Given(reg).company()
    listed = inspector(sqlite_url, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = {t["name"]: t for t in json.loads(listed.stdout)["tools"]}
    assert set(tools) == {t.name for t in reg.tools()}
    assert tools["delete_item"]["annotations"]["destructiveHint"] is True
    assert tools["get_stock"]["annotations"]["readOnlyHint"] is True
    assert tools["create_item"]["_meta"]["ui"]["resourceUri"] == "ui://shopfloor/preview.html"

    called = inspector(sqlite_url, "--method", "tools/call", "--tool-name", "list_locations",
                       "--tool-arg", "query=mai")
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result["isError"] is False
    assert [loc["code"] for loc in result["structuredContent"]["locations"]] == ["MAIN"]

    preview = inspector(sqlite_url, "--method", "tools/call", "--tool-name", "create_location",
                        "--tool-arg", "code=DOCK", "--tool-arg", "name=Loading dock")
    assert json.loads(preview.stdout)["structuredContent"]["preview"] is True

    unknown = inspector(sqlite_url, "--method", "tools/call", "--tool-name", "no_such_tool")
    assert unknown.returncode != 0


def test_inspector_app_info(sqlite_url: str) -> None:
    """The Inspector's own MCP Apps probe (one JSON line per tool, as an Apps host that
    advertises the extension sees them): every write links the preview card, the status
    tool is app-only, and no card's CSP allows any outside domain."""
    reg = open_registry(Settings(database_url=sqlite_url))
    probed = inspector(sqlite_url, "--method", "tools/list", "--app-info", "--advertise-apps")
    assert probed.returncode == 0, probed.stderr
    info = {line["toolName"]: line for line in map(json.loads, probed.stdout.splitlines())}
    assert set(info) == {t.name for t in reg.tools()}
    writes = {t.name for t in reg.tools() if t.facts.writes}
    assert writes >= {"create_item", "cancel_job", "apply_mrp_plan", "import_items"}
    for name in writes:
        assert info[name]["resourceUri"] == PREVIEW_URI, info[name]
    assert info["run_mrp"]["resourceUri"] == JOB_URI
    assert info["get_job_status"]["resourceUri"] == JOB_URI
    assert info["get_job_status"]["visibility"] == ["app"]
    assert info["get_stock"]["hasApp"] is False
    apps = [i for i in info.values() if i["hasApp"]]
    assert apps and all(i["resourceMimeType"] == "text/html;profile=mcp-app" for i in apps)
    for i in apps:
        domains = {k: v for k, v in i["csp"].items() if k.endswith("Domains")}
        assert domains and not any(domains.values()), i
