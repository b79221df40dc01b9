"""Where a call runs: with `inline_reads` (stdio, one client) a plain read runs on the event
loop, and a write or a job start always in a worker thread, so the loop is never held up
by one. Seen from the database: the thread each statement ran on."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from sqlalchemy import event

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import NotFound
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.mcp.surface import invoke
from tests.given import Given
from tests.helpers import ADMIN

ADJUST = {"location": "MAIN", "reason": "r", "lines": [{"sku": "M1", "quantity_delta": "1"}],
          "preview": False}


@pytest.fixture
def reg(sqlite_url: str) -> Iterator[Registry]:
    r = open_registry(Settings(database_url=sqlite_url))
    Given(r).company()
    yield r
    r.store.dispose()


def _threads(reg: Registry, inline: bool, name: str, args: dict[str, Any]) -> tuple[int, set[int]]:
    """The event loop's thread, and the threads the call's SQL ran on."""
    seen: set[int] = set()

    def record(*_: Any) -> None:
        seen.add(threading.get_ident())

    async def call() -> int:
        await invoke(reg, name, args, ADMIN, inline_reads=inline)
        return threading.get_ident()

    event.listen(reg.store.engine, "before_cursor_execute", record)
    try:
        loop = anyio.run(call)
    finally:
        event.remove(reg.store.engine, "before_cursor_execute", record)
    return loop, seen


@pytest.mark.parametrize("name", ["get_item", "list_locations", "get_stock"])
def test_plain_reads_run_on_the_loop_only_when_inline(reg: Registry, name: str) -> None:
    args = {"sku": "M1"} if name == "get_item" else {}
    loop, seen = _threads(reg, True, name, args)
    assert seen == {loop}
    loop, seen = _threads(reg, False, name, args)
    assert seen and loop not in seen


@pytest.mark.parametrize(("name", "args"), [
    ("create_stock_adjustment", {**ADJUST, "preview": True}),
    ("create_stock_adjustment", ADJUST),
    ("run_mrp", {}),
])
def test_writes_and_job_starts_never_run_on_the_loop(reg: Registry, name: str,
                                                     args: dict[str, Any]) -> None:
    loop, seen = _threads(reg, True, name, args)
    assert seen and loop not in seen


@pytest.mark.parametrize("inline", [True, False])
def test_an_unknown_tool_is_a_coded_error_on_either_path(reg: Registry, inline: bool) -> None:
    async def call() -> None:
        await invoke(reg, "no_such_tool", {}, ADMIN, inline_reads=inline)

    with pytest.raises(NotFound):
        anyio.run(call)
