"""A CLI call imports what the call needs and nothing more (issue 32), checked in a fresh
process the way a script runs it; the shortcuts that make it so keep their results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shopfloor.app import described
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import catalogue_tools, describe_catalogue, open_registry
from shopfloor.kernel.errors import NotFound
from shopfloor.store import migrate
from shopfloor.store.engine import Store
from shopfloor.tools import MODULES, catalogue, declared_in
from tests.given import Given
from tests.helpers import ADMIN
from tests.surfaces.contract.surfaces import cli_in_process

NEVER = ("mcp", "alembic", "argon2", "weasyprint", "jinja2", "pygments", "typer", "click",
         "starlette", "uvicorn", "httpx")

RUN = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["shopfloor", *sys.argv[1:]]
from shopfloor.surfaces.cli import main
main()
"""


def run(db_url: str, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str],
                                                            set[str]]:
    env = {**os.environ, "SHOPFLOOR_DATABASE_URL": db_url,
           "SHOPFLOOR_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True,
                          env=env, timeout=120)
    line = [x for x in done.stderr.splitlines() if x.startswith("MODULES ")][-1]
    return done, set(json.loads(line.removeprefix("MODULES ")))


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in NEVER}


def test_a_call_imports_only_what_it_needs(sqlite_url: str, tmp_path: Path) -> None:
    Given(open_registry(Settings(database_url=sqlite_url))).company()
    done, modules = run(sqlite_url, tmp_path, "--fmt", "json", "call", "get_item",
                        "--arg", "sku=M1")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.split("\nMODULES")[0])["sku"] == "M1"
    assert not heavy(modules), heavy(modules)
    tool_modules = {m for m in modules if m.startswith("shopfloor.tools.")}
    assert "shopfloor.tools.items" in tool_modules
    assert not {"shopfloor.tools.floor", "shopfloor.tools.accounts",
                "shopfloor.tools.bulk"} & tool_modules
    assert "sqlalchemy.dialects.postgresql" not in modules


@pytest.mark.parametrize("args", [
    ("call", "list_locations"),
    ("call", "create_location", "--arg", "code=NEW", "--arg", "name=New"),  # a preview
    ("call", "modify_item", "--arg", "sku=M1", "--arg", "name=Renamed"),  # a preview
])
def test_other_calls_and_a_write_s_preview_import_only_what_they_need(
        db_url: str, tmp_path: Path, args: tuple[str, ...]) -> None:
    Given(open_registry(Settings(database_url=db_url))).company()
    done, modules = run(db_url, tmp_path, "--fmt", "json", *args)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout.split("\nMODULES")[0])
    assert payload.get("preview_token") or payload.get("locations"), payload
    assert not heavy(modules), heavy(modules)
    # a write's reverser (corrections/bulk.py imports orders and production) is imported
    # by a revert, not by its tool's preview
    assert "shopfloor.domain.corrections.bulk" not in modules
    # nor does a call map the tables it never touches
    assert "shopfloor.store.tables.company" not in modules


def test_tools_list_imports_no_tool_and_opens_no_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'none.db'}"
    first, _ = run(url, tmp_path, "--fmt", "json", "tools", "list")  # writes the cache
    assert first.returncode == 0, first.stderr
    done, modules = run(url, tmp_path, "--fmt", "json", "tools", "list")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout.split("\nMODULES")[0])["tools"]
    assert [r["name"] for r in rows] == [t.name for t in catalogue_tools()]
    assert {r["toolset"] for r in rows} >= {"items", "stock", "purchasing", "sales"}
    assert not heavy(modules), heavy(modules)
    assert not {m for m in modules if m.startswith(("shopfloor.tools.", "sqlalchemy",
                                                    "pydantic"))}
    assert not (tmp_path / "none.db").exists()


def test_a_call_on_a_new_database_builds_it_without_alembic_or_the_heavy_stack(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    done, modules = run(url, tmp_path, "--fmt", "json", "call", "list_locations")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.split("\nMODULES")[0])["locations"] == []
    assert not heavy(modules), heavy(modules)  # alembic, mcp, argon2, weasyprint, jinja2...
    store = Store(url)
    try:
        assert migrate.current(store) == migrate.HEAD  # the schema was made, at head
    finally:
        store.dispose()


def test_calls_on_the_demo_company_import_nothing_heavy(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'demo.db'}"
    env = {"SHOPFLOOR_DATABASE_URL": url}
    # a database a call built, then the company `make run` loads into it (the commands'
    # code in this process: what is measured is the calls' processes after them)
    built = cli_in_process(["--fmt", "json", "call", "list_locations"], env)
    assert built.returncode == 0, built.stderr
    done = cli_in_process(["demo"], env)
    assert done.returncode == 0, done.stderr
    assert "Loaded the demo company" in done.stderr
    for args in (("list_locations",), ("search_items", "--arg", "limit=3")):
        ran, modules = run(url, tmp_path, "--fmt", "json", "call", *args)
        assert ran.returncode == 0, ran.stderr
        payload = json.loads(ran.stdout.split("\nMODULES")[0])
        assert payload.get("locations") or len(payload["items"]) == 3, payload
        assert not heavy(modules), heavy(modules)


def test_a_database_at_an_older_revision_is_still_migrated_by_alembic(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'older.db'}"
    store = Store(url)
    previous = sorted(migrate.REVISIONS)[-2]
    with store.engine.begin() as conn:
        migrate.migrate(conn, previous)
    done, modules = run(url, tmp_path, "call", "list_locations")
    assert done.returncode == 0, done.stderr
    assert "alembic" in modules  # the one migration left was run
    assert migrate.current(store) == migrate.HEAD
    store.dispose()


def test_an_unknown_tool_is_not_found_without_importing_the_catalogue(
        sqlite_url: str, tmp_path: Path) -> None:
    done, modules = run(sqlite_url, tmp_path, "--fmt", "json", "call", "no_such_tool")
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout.split("\nMODULES")[0])["error"]["code"] == "not_found"
    assert not {m for m in modules if m.startswith("shopfloor.tools.")}


def test_which_module_declares_each_tool_is_read_right() -> None:
    assert declared_in() == {t.name: name for name, toolset in zip(MODULES, catalogue(),
                                                                   strict=True)
                             for t in toolset}


def test_a_lazy_registry_has_the_same_tools_in_the_same_order(sqlite_url: str) -> None:
    lazy = open_registry(Settings(database_url=sqlite_url), lazy=True)
    assert lazy.get("get_stock").name == "get_stock"
    with pytest.raises(NotFound):
        lazy.get("no_such_tool")
    assert [t.name for t in lazy.tools()] == [t.name for t in catalogue_tools()]
    Given(lazy).company()
    assert lazy.invoke("get_item", {"sku": "M1"}, ADMIN)["sku"] == "M1"


def test_the_cached_description_is_the_description(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOPFLOOR_CACHE_DIR", str(tmp_path))
    fresh: list[dict[str, Any]] = describe_catalogue()
    assert described.cached_catalogue() == fresh  # built and written
    (cached,) = tmp_path.glob("catalogue-*.json")
    assert json.loads(cached.read_text()) == fresh
    assert described.cached_catalogue() == fresh  # read back
    cached.write_text("{not json")  # a damaged cache is built again, not trusted
    assert described.cached_catalogue() == fresh


def test_the_documents_prefix_mcp_lists_without_the_printing_stack_is_paper_s() -> None:
    from shopfloor.surfaces.mcp.resources import DOCUMENTS
    from shopfloor.ui.paper import URI_PREFIX

    assert DOCUMENTS == URI_PREFIX
