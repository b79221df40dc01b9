"""Production statuses follow the floor (issue 29): an order is in progress from its first
logged time or consumption, and completing it finishes every operation, the ones nobody
logged too (done at their planned minutes, or skipped where the completion says so). A
revert of the completion puts every status back. Both databases."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.statuses import BY_KIND, Step
from shopfloor.registry.registry import Registry
from tests.floor.test_shop_floor import MON, _world
from tests.helpers import ADMIN, apply


def _routed(reg: Registry) -> None:
    _world(reg)
    apply(reg, "update_routing", sku="TABLE", operations=[
        {"sequence": 10, "name": "Cut", "work_centre": "CUT", "setup_minutes": 30,
         "run_minutes": 2},
        {"sequence": 20, "name": "Assemble", "work_centre": "ASM", "setup_minutes": 15,
         "run_minutes": 3},
        {"sequence": 30, "name": "Finish", "work_centre": "ASM", "setup_minutes": 10,
         "run_minutes": 1}])


def _order(reg: Registry, number: str) -> dict[str, Any]:
    return reg.invoke("get_manufacturing_order", {"number": number}, ADMIN)


def _steps(mo: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(o["sequence"], o["status"], o["logged_minutes"]) for o in mo["operations"]]


def test_logged_time_starts_the_order_and_completing_it_finishes_every_operation(
        registry: Registry) -> None:
    _routed(registry)
    number = apply(registry, "create_manufacturing_order", sku="TABLE", location="MAIN",
                   quantity=10, start=f"{MON}T08:00:00Z")["number"]
    assert _order(registry, number)["status"] == "planned"
    apply(registry, "record_operation_time", number=number, sequence=10, minutes=55,
          finished=True)
    assert _order(registry, number)["status"] == "in_progress"
    apply(registry, "record_operation_time", number=number, sequence=20, minutes=20)
    done = apply(registry, "complete_manufacturing_order", number=number)
    mo = _order(registry, number)
    assert done["status"] == mo["status"] == "done"
    # 10 keeps its time, 20 had some (kept, now done), 30 had none: its planned 20 minutes
    assert _steps(mo) == [(10, "done", "55"), (20, "done", "20"), (30, "done", "20")]
    assert mo["operations"][2]["planned_minutes"] == "20"

    apply(registry, "revert_operation", operation_id=done["operation_id"])
    back = _order(registry, number)
    assert back["status"] == "in_progress"
    assert _steps(back) == [(10, "done", "55"), (20, "in_progress", "20"),
                            (30, "planned", "0")]


def test_a_completion_may_say_an_operation_was_skipped(registry: Registry) -> None:
    _routed(registry)
    number = apply(registry, "create_manufacturing_order", sku="TABLE", location="MAIN",
                   quantity=10, start=f"{MON}T08:00:00Z")["number"]
    shown = registry.invoke("complete_manufacturing_order",
                            {"number": number, "skipped": [30]}, ADMIN)
    said = {(c["key"], c["field"]): c["after"] for c in shown["changes"]}
    assert said[(f"{number}/30", "status")] == "skipped"
    assert said[(f"{number}/10", "status")] == "done"
    done = registry.invoke("complete_manufacturing_order", shown["apply"]["arguments"], ADMIN)
    mo = _order(registry, number)
    assert _steps(mo) == [(10, "done", "50"), (20, "done", "45"), (30, "skipped", "0")]
    # a skipped operation costs nothing: the output carries 50 min at 30/h + 45 at 40/h
    produced = registry.invoke("list_stock_movements", {"sku": "TABLE"}, ADMIN)["movements"]
    assert D(produced[0]["unit_cost"]) * 10 == D("108") + D("25") + D("30")
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert _steps(_order(registry, number)) == [(10, "planned", "0"), (20, "planned", "0"),
                                                (30, "planned", "0")]
    assert _order(registry, number)["status"] == "planned"


def test_a_skip_names_an_operation_of_the_order_that_has_no_time(registry: Registry) -> None:
    _routed(registry)
    number = apply(registry, "create_manufacturing_order", sku="TABLE", location="MAIN",
                   quantity=10, start=f"{MON}T08:00:00Z")["number"]
    apply(registry, "record_operation_time", number=number, sequence=20, minutes=5)
    for skipped, why in (([40], "no operation 40"), ([20], "logged")):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke("complete_manufacturing_order",
                            {"number": number, "skipped": skipped}, ADMIN)
        assert info.value.field == "skipped" and why in info.value.message
    # a partial completion finishes nothing yet: the order is in progress
    apply(registry, "complete_manufacturing_order", number=number, quantity=4)
    mo = _order(registry, number)
    assert mo["status"] == "in_progress"
    assert _steps(mo) == [(10, "planned", "0"), (20, "in_progress", "5"),
                          (30, "planned", "0")]


def test_the_operation_words_come_from_the_one_vocabulary() -> None:
    assert Step.skipped in BY_KIND["operation"].terminal
    assert BY_KIND["operation"].as_json()["labels"]["skipped"] == "Skipped"


def test_a_correction_to_nothing_made_keeps_an_order_the_floor_started_in_progress(
        registry: Registry) -> None:
    _routed(registry)
    number = apply(registry, "create_manufacturing_order", sku="TABLE", location="MAIN",
                   quantity=10, start=f"{MON}T08:00:00Z")["number"]
    apply(registry, "record_operation_time", number=number, sequence=10, minutes=30)
    apply(registry, "complete_manufacturing_order", number=number, quantity=4)
    apply(registry, "correct_manufacturing_order", number=number, completed_quantity=0)
    assert _order(registry, number)["status"] == "in_progress"
