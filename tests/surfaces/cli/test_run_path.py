"""Setting up as a normal user (issue 29): `make run` installs nothing as root and runs one
process that sets up, shows the overview and the sign-in hint, then serves (it ran four
CLI processes before serving); and the overview and Home count "below reorder point" by
one rule (they said 18 and 13)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from starlette.testclient import TestClient
from typer.testing import CliRunner

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.cli import app as cli
from shopfloor.surfaces.http import create_app
from tests.given import Given
from tests.helpers import apply

ROOT = Path(__file__).resolve().parents[3]


def test_the_overview_and_home_count_the_same_items_below_reorder_point(
        registry: Registry, given: Given, db_url: str) -> None:
    given.company()
    for sku in ("M1", "M2", "P1"):
        apply(registry, "modify_item", sku=sku, reorder_point="5", reorder_quantity="10")
    given.stock({"M2": ("5", "1")}, reason="count")
    po = given.po({"M1": ("10", "1")})
    apply(registry, "receive_purchase_order", number=po["number"],
          lines=[{"sku": "M1", "quantity": "4"}])
    # M1: 4, 6 on order (low, not to order); M2: 5 at a point of 5; P1: none at all
    said = CliRunner().invoke(cli, ["--db", db_url, "overview"])
    assert said.exit_code == 0, said.output
    counted = re.search(r"(\d+) below their reorder point", said.output)
    assert counted is not None, said.output
    assert f"{po['number']} (partially received)" in said.output, said.output  # no codes
    made = create_app(registry, Settings(database_url=db_url, currency="EUR"))
    with TestClient(made) as client:
        client.cookies.set("shopfloor_session", made.state.auth.mint("vera", ["viewer"], 600))
        home = client.get("/").text
    shown = re.search(r'id="h-low">Below reorder point <span class="count">(\d+)<', home)
    assert shown is not None
    assert int(counted.group(1)) == int(shown.group(1)) == 2, (said.output, shown.group(1))


def test_make_run_installs_nothing_as_root_and_starts_one_command() -> None:
    planned = subprocess.run(["make", "-n", "-B", "run"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, check=True).stdout
    assert "apt-get" not in planned and "sudo" not in planned, planned
    started = [line for line in planned.splitlines() if "bin/shopfloor" in line]
    assert started == [".venv/bin/shopfloor run"], planned


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_shopfloor_run_sets_up_shows_and_serves_in_one_process(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}",
           "SHOPFLOOR_PORT": str(port)}
    log = tmp_path / "run.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "shopfloor.surfaces.cli", "run"],
                                env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240  # the demo company loads first, on a busy machine
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/sign-in", timeout=5) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert children == [], "setting up ran other processes"
        text = log.read_text()
        for step in ("Database ready", "Loaded the demo company", "below their reorder point",
                     "Web admin: http://", "Uvicorn running"):
            assert step in text, (step, text)
        assert text.index("Web admin") < text.index("Uvicorn running")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serving_starts_without_the_mcp_sdk_and_says_its_limits_as_it_does() -> None:
    """The MCP SDK (~0.7 s of a restart's ~2 s CPU) loads once the server is up, so the
    app is built without it; the figures the server says without it are the SDK's."""
    built = subprocess.run([sys.executable, "-c", (
        "import sys\n"
        "from shopfloor.app.settings import Settings\n"
        "from shopfloor.app.wiring import open_registry\n"
        "from shopfloor.surfaces.server import build_app\n"
        "s = Settings(database_url='sqlite://')\n"
        "build_app(open_registry(s), s, run_worker=False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')))")],
        capture_output=True, text=True, timeout=120, check=True)
    assert built.stdout.strip() == "[]", built.stdout + built.stderr
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
    from mcp_types import INVALID_REQUEST

    from shopfloor.surfaces import server
    assert (server.MAX_BODY, server.INVALID_REQUEST) == (DEFAULT_MAX_REQUEST_BODY_SIZE,
                                                         INVALID_REQUEST)
