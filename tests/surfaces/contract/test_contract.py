"""The contract: every surface returns the same payloads, codes, tools and schemas.

Each surface runs the same script of calls against its own copy of the same database,
so writes evolve identically; payloads are compared after masking only what differs by
nature (tokens, operation ids, times).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.mcp.surface import build_server, settings_actor
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.servers import serving
from tests.surfaces.contract import surfaces
from tests.surfaces.contract.normalise import differences, normalise
from tests.surfaces.mcp.clients import http_session, stdio_session

Call = surfaces.Call
ADJ = {"location": "MAIN", "reason": "count", "lines": [{"sku": "M1", "quantity_delta": "1"}]}


async def _second_page(call: Call) -> dict[str, Any]:
    first = await call("search_items", {"limit": 2})
    return await call("search_items", {"limit": 2, "cursor": first["next_cursor"]})


async def _stale(call: Call) -> dict[str, Any]:
    preview = await call("create_stock_adjustment", ADJ)
    await call("create_stock_adjustment", {**ADJ, "reason": "meanwhile", "preview": False})
    return await call("create_stock_adjustment", {**ADJ, "preview": False,
                                                  "preview_token": preview["preview_token"]})


async def _revert(call: Call) -> dict[str, Any]:
    done = await call("create_stock_adjustment", {**ADJ, "preview": False})
    return await call("revert_operation", {"operation_id": done["operation_id"],
                                           "preview": False})


# The shop floor: SAW works Mon-Fri 08:00-12:00 and 12:30-16:30; P1's routing is one
# operation of 200 + 2.5/unit, so 20 P1 from Monday 08:00 take 250 min: 240 before lunch
# and 10 after, finishing 12:40.
FLOOR_START = "2027-03-01T08:00:00Z"
SAW = {"code": "SAW", "name": "Saw", "hourly_cost": "30", "capacity": 1,
       "calendar": [{"days": ["mon", "tue", "wed", "thu", "fri"], "start": "08:00",
                     "end": "12:00"},
                    {"days": ["mon", "tue", "wed", "thu", "fri"], "start": "12:30",
                     "end": "16:30"}],
       "closed_dates": ["2027-03-05"], "preview": False, "idempotency_key": "contract-saw"}
ROUTING = {"sku": "P1", "operations": [{"sequence": 10, "name": "Saw", "work_centre": "SAW",
                                        "setup_minutes": "200", "run_minutes": "2.5"}],
           "preview": False}


async def _routed_order(call: Call) -> dict[str, Any]:
    made = await call("create_manufacturing_order", {
        "sku": "P1", "quantity": "20", "location": "MAIN", "number": "MO-FLOOR",
        "start": FLOOR_START, "preview": False})
    return {"made": made,
            "read": await call("get_manufacturing_order", {"number": "MO-FLOOR"})}


def _one(name: str, args: dict[str, Any]) -> Callable[[Call], Awaitable[dict[str, Any]]]:
    async def step(call: Call) -> dict[str, Any]:
        return await call(name, args)
    return step


# Buying in the supplier's terms: Acme sells M2 in boxes of 10 with a break at 5 boxes.
BOXES = {"sku": "M2", "supplier": "Acme", "supplier_sku": "AC-M2", "purchase_unit": "box",
         "units_per_purchase_unit": "10", "minimum_order": "1", "order_multiple": "1",
         "lead_time_days": 4, "preferred": True, "preview": False,
         "price_breaks": [{"min_quantity": "1", "unit_price": "30"},
                          {"min_quantity": "5", "unit_price": "28.5"}]}


async def _landed(call: Call) -> dict[str, Any]:
    """PO-00001 received (the cases before need it open), then freight onto it."""
    received = await call("receive_purchase_order", {"number": "PO-00001", "preview": False})
    return {"received": received, "landed": await call("add_landed_cost", {
        "number": "PO-00001", "amount": "12.5", "allocate_by": "value",
        "description": "Freight", "preview": False})}


# (case, role, script, expected error code or None); run in this order on every surface.
CASES: list[tuple[str, str, Callable[[Call], Awaitable[dict[str, Any]]], str | None]] = [
    ("read", "admin", _one("get_stock", {"sku": "M1"}), None),
    ("read item", "admin", _one("get_item", {"sku": "M1"}), None),
    ("list page 1", "admin", _one("search_items", {"limit": 2}), None),
    ("list with cursor", "admin", _second_page, None),
    ("write preview", "admin", _one("create_location", {"code": "DOCK", "name": "Dock"}), None),
    ("write apply", "admin", _one("create_location", {"code": "DOCK", "name": "Dock",
                                                      "preview": False,
                                                      "idempotency_key": "contract-1"}), None),
    ("replayed apply", "admin", _one("create_location", {"code": "DOCK", "name": "Dock",
                                                         "preview": False,
                                                         "idempotency_key": "contract-1"}), None),
    ("receive preview", "admin", _one("receive_purchase_order", {"number": "PO-00001"}), None),
    ("blocked preview", "admin", _one("create_stock_adjustment", {
        **ADJ, "lines": [{"sku": "M2", "quantity_delta": "-999"}]}), None),
    ("validation", "admin", _one("create_location", {"code": "X"}), "validation_error"),
    ("not found", "admin", _one("get_item", {"sku": "NOPE"}), "not_found"),
    ("conflict", "admin", _one("create_location", {"code": "MAIN", "name": "Again",
                                                   "preview": False}), "conflict"),
    ("insufficient stock", "admin", _one("create_stock_adjustment", {
        **ADJ, "preview": False, "lines": [{"sku": "M2", "quantity_delta": "-999"}]}),
     "insufficient_stock"),
    ("stale preview", "admin", _stale, "stale_preview"),
    ("forbidden", "viewer", _one("create_location", {"code": "V", "name": "V"}), "forbidden"),
    ("unauthenticated", "anonymous", _one("get_stock", {}), "unauthenticated"),
    ("low stock", "admin", _one("list_low_stock", {}), None),
    ("operation log", "admin", _one("get_operation_log", {"limit": 5}), None),
    ("close preview", "admin", _one("close_purchase_order", {"number": "PO-00001"}), None),
    ("revert apply", "admin", _revert, None),
    ("lots read", "admin", _one("list_lots", {"sku": "T1"}), None),
    ("trace", "admin", _one("trace_lot", {"sku": "T1", "lot": "L1"}), None),
    ("lots picked preview", "admin", _one("create_stock_transfer", {
        "from_location": "MAIN", "to_location": "SHOP",
        "lines": [{"sku": "T1", "quantity": "4"}]}), None),
    ("recall preview", "admin", _one("hold_lot", {"sku": "T1", "lot": "L1", "reason": "r",
                                                  "downstream": True}), None),
    ("lot required", "admin", _one("create_stock_adjustment", {
        **ADJ, "lines": [{"sku": "T1", "quantity_delta": "1"}], "preview": False}),
     "validation_error"),
    ("revert unknown", "admin", _one("revert_operation", {"operation_id": "nope"}), "not_found"),
    ("correct refused", "admin", _one("correct_purchase_receipt", {
        "number": "PO-00001", "sku": "M2", "unit_price": "4", "preview": False}), "conflict"),
    ("return refused", "admin", _one("create_supplier_return", {
        "number": "PO-00001", "reason": "r", "lines": [{"sku": "M2", "quantity": "1"}]}),
     "validation_error"),
    ("work centre apply", "admin", _one("create_work_centre", SAW), None),
    ("routing apply", "admin", _one("update_routing", ROUTING), None),
    ("routed order", "admin", _routed_order, None),
    ("work centre load", "admin", _one("get_work_centre_load", {
        "work_centre": "SAW", "start": "2027-03-01", "end": "2027-03-07"}), None),
    ("schedule preview", "admin", _one("schedule_manufacturing_orders", {
        "start": FLOOR_START, "orders": ["MO-FLOOR"]}), None),
    ("supplier item apply", "admin", _one("set_supplier_item", BOXES), None),
    ("supplier item refused", "admin", _one("set_supplier_item", {
        **BOXES, "price_breaks": [{"min_quantity": "5", "unit_price": "28.5"},
                                  {"min_quantity": "1", "unit_price": "30"}]}),
     "validation_error"),
    ("supplier items read", "admin", _one("list_supplier_items", {"sku": "M2"}), None),
    ("supplier item remove preview", "admin", _one("remove_supplier_item", {
        "sku": "M2", "supplier": "Acme"}), None),
    ("exchange rate apply", "admin", _one("set_exchange_rate", {
        "currency": "USD", "rate": "0.92", "valid_from": "2026-01-01", "preview": False}),
     None),
    ("exchange rate refused", "admin", _one("set_exchange_rate", {
        "currency": "EUR", "rate": "1", "preview": False}), "validation_error"),
    ("landed cost apply", "admin", _landed, None),
    ("landed costs read", "admin", _one("list_landed_costs", {"number": "PO-00001"}), None),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Path:
    path = tmp_path_factory.mktemp("contract") / "world.db"
    shutil.copy(sqlite_template, path)
    reg = open_registry(Settings(database_url=f"sqlite:///{path}"))
    given = Given(reg).company()
    given.recipe("P1", {"M1": "2"})
    given.stock({"M1": ("8", "1.25")}, reason="seed")
    given.item("M3", reorder_point="5", reorder_quantity="20")
    given.po({"M2": ("10", "3")})
    given.item("T1", name="Tracked", batch_tracked=True)
    given.stock({"T1": {"quantity": "5", "unit_cost": "2", "lots": [
        {"lot": "L1", "expiry": "2030-01-01", "quantity": "3"}, {"lot": "L2", "quantity": "2"}]}},
        reason="seed")
    reg.store.dispose()
    return path


@pytest.fixture
def copy_of(world: Path, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    def make(name: str) -> str:
        target = tmp_path / f"{name}.db"
        shutil.copy(world, target)
        return f"sqlite:///{target}"
    yield make


@asynccontextmanager
async def adapter(kind: str, db_url: str, role: str, url: str | None,
                  auth: Authenticator | None, reg: Registry) -> AsyncIterator[Call]:
    if kind == "registry":
        cm = surfaces.registry_surface(reg, role)
    elif kind == "cli":
        cm = surfaces.cli_surface(db_url, role)
    elif kind == "cli-process":
        cm = surfaces.cli_process_surface(db_url, role)
    elif kind == "http":
        assert url and auth
        cm = surfaces.http_surface(url, auth, role)
    elif kind == "mcp-memory":
        cm = surfaces.mcp_memory_surface(reg, role)
    elif kind == "mcp-stdio":
        cm = surfaces.mcp_stdio_surface(db_url, role)
    else:
        assert url and auth
        cm = surfaces.mcp_http_surface(url, auth, role)
    async with cm as call:
        yield call


KINDS = ["registry", "cli", "http", "mcp-memory", "mcp-stdio", "mcp-http"]
Case = tuple[str, str, Callable[[Call], Awaitable[dict[str, Any]]], str | None]
# What the CLI as its own process must show: a read, a write's preview, apply and replay,
# and each kind of refusal with its exit status (the in-process CLI runs every case).
PROCESS_CASES = [c for c in CASES if c[0] in {
    "read", "write preview", "write apply", "replayed apply", "validation", "not found",
    "conflict", "insufficient stock", "stale preview", "forbidden", "unauthenticated"}]
PROCESS_PARTS = [slice(0, 6), slice(6, None)]
"""Two halves of about as many processes; the replay stays with the apply it replays."""


def run_script(kind: str, db_url: str, cases: list[Case] = CASES) -> dict[str, dict[str, Any]]:
    settings = Settings(database_url=db_url)
    reg = open_registry(settings)
    auth = Authenticator(reg, settings)

    async def go(url: str | None) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        async with AsyncExitStack() as stack:
            calls: dict[str, Call] = {}
            for case, role, script, _ in cases:
                if role not in calls:
                    calls[role] = await stack.enter_async_context(
                        adapter(kind, db_url, role, url, auth, reg))
                out[case] = await script(calls[role])
        return out

    try:
        if kind in ("http", "mcp-http"):
            with serving(build_app(reg, settings)) as url:
                return asyncio.run(go(url))
        return asyncio.run(go(None))
    finally:
        reg.store.dispose()


def _same_payloads(results: dict[str, dict[str, dict[str, Any]]],
                   cases: list[Case]) -> None:
    """Every surface's payloads equal the registry's, masked; each case's code as listed."""
    baseline = results["registry"]
    for case, _, _, code in cases:
        got = baseline[case]
        if code is None:
            assert "error" not in got, (case, got)
        else:
            assert got["error"]["code"] == code, (case, got)
    problems = []
    for kind, result in results.items():
        for case, _, _, code in cases:
            a, b = baseline[case], result[case]
            if code == "unauthenticated":
                # How to authenticate differs by surface, so only the code must agree.
                a, b = a["error"]["code"], b["error"]["code"]
            diff = differences(normalise(a), normalise(b))
            problems += [f"{kind} / {case}: {d}" for d in diff]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("kind", KINDS[1:])
def test_every_surface_returns_the_same_payloads(copy_of: Callable[[str], str],
                                                kind: str) -> None:
    """One surface against the registry's own answers (a test a surface, so that parallel
    workers share them)."""
    results = {k: run_script(k, copy_of(k)) for k in ("registry", kind)}
    _same_payloads(results, CASES)
    baseline = results["registry"]
    # the floor's payloads carry what they are compared for: dates through the calendar
    read = baseline["routed order"]["read"]
    assert [(o["planned_minutes"], o["planned_start"], o["planned_finish"])
            for o in read["operations"]] == [("250", FLOOR_START, "2027-03-01T12:40:00Z")]
    assert [(r["period"], r["planned_minutes"]) for r in baseline["work centre load"]["rows"]
            if r["planned_minutes"] != "0"] == [("2027-03-01", "250")]
    assert [o["planned_finish"] for o in baseline["schedule preview"]["document"]["orders"]] \
        == ["2027-03-01T12:40:00Z"]
    # buying's payloads carry their figures: the terms as set, the freight all capitalised
    assert baseline["supplier items read"]["supplier_items"][0]["purchase_unit"] == "box"
    assert baseline["supplier item refused"]["error"]["field"] == "price_breaks[1].min_quantity"
    landed = baseline["landed costs read"]["landed_costs"]
    assert [(c["company_amount"], c["capitalised"], c["expensed"]) for c in landed] == \
        [("12.5", "12.5", "0")]


@pytest.mark.parametrize("part", range(len(PROCESS_PARTS)))
def test_the_cli_as_a_process_returns_the_same_payloads(copy_of: Callable[[str], str],
                                                        part: int) -> None:
    """The installed command's own start (a process a call, the slowest surface) on the
    cases that differ in kind; the in-process CLI above runs them all. In parts (each
    against its own registry run on its own copy), so that two workers share them."""
    cases = PROCESS_CASES[PROCESS_PARTS[part]]
    results = {k: run_script(k, copy_of(k), cases) for k in ("registry", "cli-process")}
    assert len(PROCESS_CASES) == 11 and cases
    _same_payloads(results, cases)


def test_tool_lists_and_schemas_are_identical(copy_of: Callable[[str], str]) -> None:
    db_url = copy_of("tools")
    settings = Settings(database_url=db_url)
    reg = open_registry(settings)
    want = {t.name: (t.full_description, t.input_schema, t.output_schema) for t in reg.tools()}

    cli = subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--db", db_url,
                          "--fmt", "json", "tools", "list"], capture_output=True, text=True,
                         timeout=60)
    got = {"cli": {t["name"]: (t["description"], t["input_schema"], t["output_schema"])
                   for t in json.loads(cli.stdout)["tools"]}}
    auth = Authenticator(reg, settings)

    async def mcp_lists(url: str) -> None:
        token = auth.mint("local", ["viewer"], 600)
        async with AsyncExitStack() as stack:
            sessions = {
                "mcp-memory": await stack.enter_async_context(
                    Client(build_server(reg, settings_actor(settings)))),
                "mcp-stdio": await stack.enter_async_context(
                    stdio_session(db_url, SHOPFLOOR_TOOLSETS="all")),
                "mcp-http": await stack.enter_async_context(
                    http_session(url, token, path="/mcp/x/all")),
            }
            for kind, s in sessions.items():
                listed = await s.list_tools()
                got[kind] = {t.name: (t.description, t.input_schema, t.output_schema)
                             for t in listed.tools}
        r = httpx.get(f"{url}/api/v1/tools", headers={"Authorization": f"Bearer {token}"})
        got["http"] = {t["name"]: (t["description"], t["input_schema"], t["output_schema"])
                       for t in r.json()["tools"]}

    with serving(build_app(reg, settings)) as url:
        asyncio.run(mcp_lists(url))
    for kind, tools in got.items():
        assert list(tools) == list(want), kind
        for name in want:
            assert tools[name] == want[name], (kind, name)


def test_the_normaliser_catches_a_drifted_payload() -> None:
    a = {"applied": True, "operation_id": "1f0e...", "summary": "Create location DOCK",
         "changes": [{"entity": "location", "before": None, "after": "Dock"}],
         "created_at": "2026-11-22T10:00:00Z"}
    same = {**a, "operation_id": "other", "created_at": "2026-11-23T11:00:00Z"}
    assert differences(normalise(a), normalise(same)) == []
    drifted = {**a, "changes": [{"entity": "location", "before": None, "after": "Dock "}]}
    assert differences(normalise(a), normalise(drifted)) == [
        "$.changes[0].after: 'Dock' != 'Dock '"]
    renamed = {k if k != "summary" else "message": v for k, v in a.items()}
    assert differences(normalise(a), normalise(renamed))
    assert differences(normalise({"q": "1.5"}), normalise({"q": 1.5}))
