"""A manufacturing order counts scrapped units against its quantity: good + scrap reaching
it finishes the order and releases every component it committed. An order can be closed
short (and the close reverted), and reverting a completion with scrap puts it all back.

P1 = 2 M1 + 1 M2 per unit; M1 30 @ 1, M2 20 @ 2. Both databases.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest
from sqlalchemy import select, text

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, Item
from tests.corrections.test_revert import revert, stock
from tests.given import Given
from tests.helpers import (
    ADMIN,
    apply,
    ledger_mismatches,
    migrate_to,
    snapshot,
)


def _world(reg: Registry, quantity: str = "10") -> str:
    given = Given(reg).company()
    given.recipe("P1", {"M1": "2", "M2": "1"})
    given.stock({"M1": ("30", "1"), "M2": ("20", "2")})
    mo = given.mo("P1", quantity)
    return str(mo["number"])


def _mo(reg: Registry, number: str) -> dict[str, Any]:
    return reg.invoke("get_manufacturing_order", {"number": number}, ADMIN)


def _committed(reg: Registry) -> tuple[D, D]:
    return stock(reg, "M1")[1], stock(reg, "M2")[1]


def _committed_in_sql(reg: Registry) -> tuple[D, D]:
    """Committed M1 and M2 read in SQL: at an older revision the registry's models (head's)
    name columns a later revision adds."""


    b, i = Balance.__table__.c, Item.__table__.c
    with reg.store.engine.connect() as conn:
        got = dict(conn.execute(select(i.sku, b.committed).join_from(
            Balance.__table__, Item.__table__, i.id == b.item_id)).all())
    return got["M1"], got["M2"]


def test_good_and_scrap_reaching_the_quantity_finish_the_order(registry: Registry) -> None:
    number = _world(registry)
    assert _committed(registry) == (D(20), D(10))
    done = apply(registry, "complete_manufacturing_order", number=number, quantity="9",
                 scrap="1")
    assert done["status"] == "done"
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == ("done", "9", "1")
    assert _committed(registry) == (D(0), D(0))
    # 10 units' components consumed (20 M1 @ 1 + 10 M2 @ 2 = 40) over 9 good units
    assert stock(registry, "M1")[0] == D(10) and stock(registry, "M2")[0] == D(10)
    assert stock(registry, "P1")[:2] == (D(9), D(0))
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "complete_manufacturing_order", number=number, quantity="1")
    assert info.value.code == "conflict"
    assert not ledger_mismatches(registry)

    # reverting it puts back the stock, both counts, the status and the commitments
    revert(registry, done)
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == \
        ("planned", "0", "0")
    assert _committed(registry) == (D(20), D(10))
    assert stock(registry, "M1")[0] == D(30) and stock(registry, "P1")[0] == D(0)
    assert not ledger_mismatches(registry)


def test_partial_completions_with_scrap_count_it_and_revert_in_turn(registry: Registry) -> None:
    number = _world(registry)
    first = apply(registry, "complete_manufacturing_order", number=number, quantity="4",
                  scrap="1")
    assert (first["status"], first["completed_quantity"]) == ("in_progress", "4")
    assert _committed(registry) == (D(10), D(5))  # 5 of 10 units still to come
    # the rest, one more scrapped: 4 good, and the order is finished
    preview = registry.invoke("complete_manufacturing_order", {"number": number, "scrap": "1"},
                              ADMIN)
    shown = {c["field"]: (c["before"], c["after"]) for c in preview["changes"]
             if c["entity"] == "manufacturing_order"}
    assert shown["completed_quantity"] == ("4", "8")
    assert shown["scrapped_quantity"] == ("1", "2")
    assert shown["status"] == ("in_progress", "done")
    second = registry.invoke("complete_manufacturing_order", preview["apply"]["arguments"], ADMIN)
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == ("done", "8", "2")
    assert _committed(registry) == (D(0), D(0))
    assert stock(registry, "P1")[0] == D(8)

    revert(registry, second)
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == \
        ("in_progress", "4", "1")
    assert _committed(registry) == (D(10), D(5))
    revert(registry, first)
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == \
        ("planned", "0", "0")
    assert _committed(registry) == (D(20), D(10))
    assert not ledger_mismatches(registry)


def test_scrap_beyond_the_quantity_is_yield_loss_and_releases_only_what_was_committed(
        registry: Registry) -> None:
    number = _world(registry, "5")
    done = apply(registry, "complete_manufacturing_order", number=number, quantity="5",
                 scrap="2")
    assert (done["status"], done["completed_quantity"]) == ("done", "5")
    assert _committed(registry) == (D(0), D(0))
    assert stock(registry, "M1")[0] == D(30 - 14)  # 7 units made, 2 of them scrapped
    revert(registry, done)
    assert _committed(registry) == (D(10), D(5))
    assert _mo(registry, number)["status"] == "planned"


def test_closing_an_order_short_releases_what_it_still_committed(registry: Registry) -> None:
    number = _world(registry)
    apply(registry, "complete_manufacturing_order", number=number, quantity="3", scrap="1")
    assert _committed(registry) == (D(12), D(6))
    preview = registry.invoke("close_manufacturing_order",
                              {"number": number, "reason": "line stopped"}, ADMIN)
    assert preview["preview"] is True
    shown = {c["field"]: (c["before"], c["after"]) for c in preview["changes"]
             if c["entity"] == "manufacturing_order"}
    assert shown["outstanding"] == ("6", "0")
    assert shown["status"] == ("in_progress", "closed")
    done = registry.invoke("close_manufacturing_order", preview["apply"]["arguments"], ADMIN)
    assert done["status"] == "closed" and done["summary"].startswith(f"Close {number}")
    assert _committed(registry) == (D(0), D(0))
    mo = _mo(registry, number)
    assert (mo["status"], mo["completed_quantity"], mo["scrapped_quantity"]) == \
        ("closed", "3", "1")
    listed = registry.invoke("list_manufacturing_orders", {"status": "closed"}, ADMIN)
    assert [o["number"] for o in listed["orders"]] == [number]
    log = registry.invoke("get_operation_log", {"tool": "close_manufacturing_order"}, ADMIN)
    assert [e["operation_id"] for e in log["entries"]] == [done["operation_id"]]

    unchanged = snapshot(registry)
    for tool, args in (("close_manufacturing_order", {"number": number}),
                       ("complete_manufacturing_order", {"number": number}),
                       ("delete_manufacturing_order", {"number": number})):
        with pytest.raises(ShopfloorError) as info:
            apply(registry, tool, **args)
        assert (info.value.code, info.value.field) == ("conflict", "number"), tool
    assert snapshot(registry) == unchanged

    # a completion of a closed order is not reverted behind its back
    first = registry.invoke("get_operation_log", {"tool": "complete_manufacturing_order"},
                            ADMIN)["entries"][0]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=first["operation_id"])
    assert info.value.code == "conflict" and "closed" in info.value.message

    # reverting the close reopens it as it was, its components committed again
    revert(registry, done)
    assert _mo(registry, number)["status"] == "in_progress"
    assert _committed(registry) == (D(12), D(6))
    finish = apply(registry, "complete_manufacturing_order", number=number)
    assert (finish["status"], finish["completed_quantity"]) == ("done", "9")
    assert _committed(registry) == (D(0), D(0))
    assert not ledger_mismatches(registry)


def test_close_refuses_finished_orders_and_is_admin_and_destructive(registry: Registry) -> None:
    number = _world(registry)
    tool = next(t for t in registry.tools() if t.name == "close_manufacturing_order")
    assert tool.facts.writes and tool.facts.destructive and tool.facts.role.name == "admin"
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("close_manufacturing_order", {"number": number},
                        Actor.of("o", "operator"))
    assert info.value.code == "forbidden"
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_manufacturing_order", number="MO-09999")
    assert (info.value.code, info.value.field) == ("not_found", "number")
    # a planned order closes too (nothing made: the same as cancelling, and it says so)
    preview = registry.invoke("close_manufacturing_order", {"number": number}, ADMIN)
    assert [w["code"] for w in preview["warnings"]] == ["nothing_made"]
    closed = apply(registry, "close_manufacturing_order", number=number)
    assert _committed(registry) == (D(0), D(0))
    revert(registry, closed)
    assert _mo(registry, number)["status"] == "planned"
    assert _committed(registry) == (D(20), D(10))
    apply(registry, "complete_manufacturing_order", number=number)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_manufacturing_order", number=number)
    assert info.value.code == "conflict" and "done" in info.value.message
    other = apply(registry, "create_manufacturing_order", sku="P1", quantity="1",
                  location="MAIN")["number"]
    apply(registry, "delete_manufacturing_order", number=other)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "close_manufacturing_order", number=other)
    assert info.value.code == "conflict" and "cancelled" in info.value.message


def test_correcting_the_quantity_made_keeps_the_scrap_counted(registry: Registry) -> None:
    number = _world(registry)
    apply(registry, "complete_manufacturing_order", number=number, quantity="9", scrap="1")
    done = apply(registry, "correct_manufacturing_order", number=number, completed_quantity="7")
    assert (done["status"], done["scrapped_quantity"]) == ("in_progress", "1")
    assert _committed(registry) == (D(4), D(2))  # 10 - 7 good - 1 scrapped = 2 to come
    apply(registry, "close_manufacturing_order", number=number)
    closed = apply(registry, "correct_manufacturing_order", number=number,
                   completed_quantity="6")
    assert closed["status"] == "closed"
    assert _committed(registry) == (D(0), D(0))  # closed: no more expected
    assert not ledger_mismatches(registry)


def test_rebuild_and_low_stock_count_scrap_as_no_longer_to_come(registry: Registry) -> None:
    from tests.planning.test_mrp import run_job

    number = _world(registry)
    apply(registry, "modify_item", sku="P1", reorder_point="20", reorder_quantity="10")
    apply(registry, "complete_manufacturing_order", number=number, quantity="2", scrap="3")
    assert _committed(registry) == (D(10), D(5))
    low = registry.invoke("list_low_stock", {}, ADMIN)["items"]
    assert next(r for r in low if r["sku"] == "P1")["on_order"] == "5"  # 10 - 2 - 3
    run_job(registry, "rebuild_balances")
    assert _committed(registry) == (D(10), D(5))


def test_downgrading_and_upgrading_keeps_every_figure(db_url: str) -> None:
    """Before the column, an order completed 9 good + 1 scrap of 10 stayed in progress
    with one unit's components committed. The downgrade goes back to that; the upgrade
    counts the logged scrap (not a reverted completion's) and finishes such orders."""
    from tests.system.test_migration_lots import _figures

    reg = open_registry(Settings(database_url=db_url))
    stuck = _world(reg)
    apply(reg, "complete_manufacturing_order", number=stuck, quantity="9", scrap="1")
    running = apply(reg, "create_manufacturing_order", sku="P1", quantity="4",
                    location="MAIN")["number"]
    undone = apply(reg, "complete_manufacturing_order", number=running, quantity="1",
                   scrap="1")
    revert(reg, undone)
    apply(reg, "complete_manufacturing_order", number=running, quantity="1", scrap="1")
    assert _committed(reg) == (D(4), D(2))
    figures = _figures(reg)
    migrate_to(reg, "downgrade", "0011")
    with reg.store.engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT number, status FROM manufacturing_orders")).all())
    assert rows == {stuck: "in_progress", running: "in_progress"}
    assert _committed_in_sql(reg) == (D(8), D(4))  # the old rule: one more unit each
    migrate_to(reg, "upgrade", "head")
    assert _figures(reg) == figures
    reg.store.dispose()
    reg = open_registry(Settings(database_url=db_url))
    one, two = _mo(reg, stuck), _mo(reg, running)
    assert (one["status"], one["completed_quantity"], one["scrapped_quantity"]) == \
        ("done", "9", "1")
    assert (two["status"], two["completed_quantity"], two["scrapped_quantity"]) == \
        ("in_progress", "1", "1")
    reg.store.dispose()
