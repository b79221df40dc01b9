"""import_items takes every field create_item takes (lot sizing, tracking, lot numbering,
shelf life), under the same rules as modify_item: a row that would turn tracking off
while lots hold stock, or give a numbering rule the lots could not use, is a row-level
reject naming its column, and nothing of it is applied."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand, snapshot


def _rows(reg: Registry, csv: str, **args: Any) -> dict[str, Any]:
    return reg.invoke("import_items", {"csv": csv, **args}, ADMIN)


def _run(reg: Registry, csv: str) -> dict[str, Any]:
    preview = _rows(reg, csv, skip_rejects=True)
    queued = reg.invoke("import_items", preview["apply"]["arguments"], ADMIN)
    assert worker_for(reg).run_one(queued["job_id"])
    job = reg.invoke("get_job", {"job_id": queued["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", (job["message"], job["result"])
    return job["result"]  # type: ignore[no-any-return]


def test_import_sets_lot_sizing_tracking_numbering_and_shelf_life(registry: Registry,
                                                                  given: Given) -> None:
    given.company()
    csv = ("sku,name,order_multiple,supply_period_days,serial_tracked,lot_numbering,"
           "shelf_life_days,on_hand:MAIN\n"
           "SCREW,Screw,100,14,,,,\n"
           "GLUE,Glue,,,,GL-{date}-{seq},180,\n"
           "SAW,Saw,,,true,,,\n"
           "M1,,25,7,,,,3\n")
    result = _run(registry, csv)
    assert (result["created"], result["updated"], result["rejected"]) == (3, 1, 0), result
    screw = registry.invoke("get_item", {"sku": "SCREW"}, ADMIN)
    assert (screw["order_multiple"], screw["supply_period_days"]) == ("100", 14)
    glue = registry.invoke("get_item", {"sku": "GLUE"}, ADMIN)
    assert (glue["lot_numbering"], glue["shelf_life_days"]) == ("GL-{date}-{seq}", 180)
    assert registry.invoke("get_item", {"sku": "SAW"}, ADMIN)["serial_tracked"] is True
    m1 = registry.invoke("get_item", {"sku": "M1"}, ADMIN)
    assert (m1["order_multiple"], m1["supply_period_days"]) == ("25", 7)
    assert on_hand(registry, "M1") == 3
    assert not ledger_mismatches(registry)


def test_import_rejects_what_modify_item_refuses_naming_the_column(registry: Registry,
                                                                   given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="FLOUR", name="Flour", batch_tracked=True)
    apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
          lines=[{"sku": "FLOUR", "quantity_delta": "5", "unit_cost": "1",
                  "lots": [{"lot": "F1", "quantity": "5"}]}])
    csv = ("sku,batch_tracked,lot_numbering,order_multiple,supply_period_days\n"
           "FLOUR,false,,,\n"
           "M1,,X-{week},,\n"
           "M2,,,0,\n"
           "N1,,,,400\n")
    before = snapshot(registry)
    preview = _rows(registry, csv)
    assert preview["apply"] is None and preview["warnings"][0]["blocking"]
    rows = preview["document"]["rows"]
    assert [(r["action"], r["field"]) for r in rows] == [
        ("reject", "batch_tracked"), ("reject", "lot_numbering"),
        ("reject", "order_multiple"), ("reject", "supply_period_days")], rows
    assert "still has stock in lots" in rows[0]["detail"]
    assert "{week}" in rows[1]["detail"]

    with pytest.raises(ShopfloorError) as refused:  # before it queues, as the preview says
        registry.invoke("import_items", {"csv": csv, "preview": False}, ADMIN)
    assert (refused.value.code, refused.value.field) == ("validation_error", "csv")
    assert "4 of 4 rows rejected" in refused.value.message
    assert snapshot(registry) == before
    assert registry.invoke("get_item", {"sku": "FLOUR"}, ADMIN)["batch_tracked"] is True


def test_import_may_turn_tracking_off_once_the_lots_are_empty(registry: Registry,
                                                              given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="FLOUR", name="Flour", batch_tracked=True)
    result = _run(registry, "sku,batch_tracked\nFLOUR,false\n")
    assert result["updated"] == 1
    assert registry.invoke("get_item", {"sku": "FLOUR"}, ADMIN)["batch_tracked"] is False


def test_a_serial_tracked_item_stays_tracked_when_a_row_clears_batch(
        registry: Registry, given: Given) -> None:
    """batch_tracked=false on a serial-tracked item with serials in stock leaves it tracked
    (by serial): nothing is stranded, so the row is not refused."""
    given.company()
    apply(registry, "create_item", sku="SAW", name="Saw", serial_tracked=True)
    apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
          lines=[{"sku": "SAW", "quantity_delta": "1", "unit_cost": "9", "serials": ["S-1"]}])
    result = _run(registry, "sku,batch_tracked\nSAW,false\n")
    assert result["rejected"] == 0
    assert registry.invoke("get_item", {"sku": "SAW"}, ADMIN)["serial_tracked"] is True


def test_an_imported_count_finer_than_its_unit_is_the_rows_reject(registry: Registry,
                                                                  given: Given) -> None:
    """Counted stock in an import is held to the item's unit as a typed count is: 2.5 pcs
    is the row's reject naming its column, 2.5 kg (a row that makes the item kg) is not."""
    given.company()
    csv = ("sku,name,uom,on_hand:MAIN\n"
           "M1,,,2.5\n"
           "N1,Sand,kg,2.5\n"
           "N2,Bolt,,2.0001\n")
    rows = _rows(registry, csv)["document"]["rows"]
    assert [(r["action"], r["field"]) for r in rows] == [
        ("reject", "on_hand:MAIN"), ("create", None), ("reject", "on_hand:MAIN")], rows
    assert "whole units" in rows[0]["detail"]
    _run(registry, csv)
    assert on_hand(registry, "N1") == Decimal("2.5")
    assert on_hand(registry, "M1") == 0
    assert not ledger_mismatches(registry)
