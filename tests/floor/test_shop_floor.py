"""Issue 22's worked example, figure by figure, on both databases.

CUT (30.00/h) and ASM (40.00/h) on the default calendar (Mon-Fri 08:00-16:00, UTC).
TABLE = 2 BOARD @ 5.00 + 8 SCREW @ 0.10; routing Cut on CUT 30 + 2/unit, Assemble on ASM
15 + 3/unit. 2027-03-01 is a Monday.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, run_as_job

MON = "2027-03-01"


def _world(reg: Registry) -> None:
    given = Given(reg)
    given.location()
    for sku, kind in (("BOARD", "material"), ("SCREW", "material"), ("TABLE", "product")):
        given.item(sku, kind, name=sku.title())
    given.recipe("TABLE", {"BOARD": "2", "SCREW": "8"})
    given.stock({"BOARD": ("1000", "5.00"), "SCREW": ("5000", "0.10")})
    given.work_centre("CUT", name="Cutting", hourly_cost="30.00")
    given.work_centre("ASM", name="Assembly", hourly_cost="40.00")
    given.routing("TABLE", [
        {"sequence": 10, "name": "Cut", "work_centre": "CUT", "setup_minutes": 30,
         "run_minutes": 2},
        {"sequence": 20, "name": "Assemble", "work_centre": "ASM", "setup_minutes": 15,
         "run_minutes": 3}])


def _shelves(reg: Registry) -> None:
    """SHELF made of one PLANK in 3 min on SAW (one unit), at MAIN."""
    given = Given(reg)
    given.location()
    given.item("PLANK", name="Plank")
    given.item("SHELF", "product", name="Shelf")
    given.recipe("SHELF", {"PLANK": "1"})
    given.work_centre("SAW")
    given.routing("SHELF", [{"sequence": 1, "name": "Saw", "work_centre": "SAW",
                             "run_minutes": 3}])


def _mo(reg: Registry, **args: Any) -> dict[str, Any]:
    made = apply(reg, "create_manufacturing_order", sku="TABLE", location="MAIN", **args)
    return reg.invoke("get_manufacturing_order", {"number": made["number"]}, ADMIN)


def _load(reg: Registry, centre: str, start: str = MON, end: str = "2027-03-05",
          bucket: str = "day") -> list[tuple[str, str, str, str | None]]:
    rows = reg.invoke("get_work_centre_load", {"work_centre": centre, "start": start,
                                               "end": end, "bucket": bucket}, ADMIN)["rows"]
    return [(r["period"], r["available_minutes"], r["planned_minutes"], r["load_percent"])
            for r in rows]


def test_an_order_of_100_tables_from_monday_eight(registry: Registry) -> None:
    _world(registry)
    mo = _mo(registry, quantity=100, start=f"{MON}T08:00:00Z")
    cut, asm = mo["operations"]
    assert (cut["planned_minutes"], cut["planned_start"], cut["planned_finish"]) == \
        ("230", f"{MON}T08:00:00Z", f"{MON}T11:50:00Z")
    assert (asm["planned_minutes"], asm["planned_start"], asm["planned_finish"]) == \
        ("315", f"{MON}T11:50:00Z", "2027-03-02T09:05:00Z")
    assert (mo["planned_start"], mo["planned_finish"]) == \
        (f"{MON}T08:00:00Z", "2027-03-02T09:05:00Z")
    assert [(o["logged_minutes"], o["status"]) for o in mo["operations"]] == \
        [("0", "planned"), ("0", "planned")]
    assert mo["planned_cost"] == {"materials": "1080", "operations": "325",
                                  "by_products": "0", "total": "1405"}
    assert [D(x) for x in mo["planned_cost"].values()] == [D("1080.00"), D("115.00") +
                                                          D("210.00"), D(0), D("1405.00")]
    # Assemble puts 250 minutes on Monday and 65 on Tuesday
    assert _load(registry, "ASM", end="2027-03-02") == [
        (MON, "480", "250", "52.08"), ("2027-03-02", "480", "65", "13.54")]


def test_logged_time_prices_the_output_and_shows_the_labour_variance(
        registry: Registry) -> None:
    _world(registry)
    mo = _mo(registry, quantity=100, start=f"{MON}T08:00:00Z")
    logged = apply(registry, "record_operation_time", number=mo["number"], sequence=10,
                   minutes=240, finished=True)
    assert (logged["logged_minutes"], logged["status"]) == ("240", "done")
    with pytest.raises(ShopfloorError) as e:
        apply(registry, "record_operation_time", number=mo["number"], sequence=30, minutes=5)
    assert (e.value.code, e.value.field) == ("not_found", "sequence")

    preview = registry.invoke("complete_manufacturing_order", {"number": mo["number"]}, ADMIN)
    said = [w["message"] for w in preview["warnings"] if w["code"] == "variance"]
    assert said == ["10 Cut: 240 min logged against 230 planned (+10 min, +5 at cost)"]
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    made = registry.invoke("list_stock_movements", {"sku": "TABLE"}, ADMIN)["movements"]
    assert [(m["quantity"], m["unit_cost"]) for m in made] == [("100", "14.1")]
    # 1,080 + 4 h x 30 + 315 min x 40/h = 1,410.00
    assert D(made[0]["unit_cost"]) * 100 == D("1410.00")


def test_the_completion_preview_shows_labour_variance_beside_material_variance(
        registry: Registry) -> None:
    """100 TABLE from Monday 08:00: 210 BOARD used against 2 x 100 = 200 (+10 @ 5.00 =
    +50.00); Cut 240 min against 230 (+10 min @ 30.00/h = +5.00), Assemble 330 against 315
    (+15 min @ 40.00/h = +10.00). The output: 210 x 5.00 + 800 x 0.10 = 1,130.00 of
    materials + 4 h x 30 + 5.5 h x 40 = 340.00 of labour = 1,470.00, 14.70 each."""
    _world(registry)
    mo = _mo(registry, quantity=100, start=f"{MON}T08:00:00Z")
    apply(registry, "record_operation_time", number=mo["number"], sequence=10, minutes=240,
          finished=True)
    apply(registry, "record_operation_time", number=mo["number"], sequence=20, minutes=330)
    args = {"number": mo["number"], "consumed": [{"sku": "BOARD", "quantity": "210"}]}
    preview = registry.invoke("complete_manufacturing_order", args, ADMIN)
    assert [w["message"] for w in preview["warnings"] if w["code"] == "variance"] == [
        "BOARD: 210 used against 200 planned (+10, +50 at cost)",
        "10 Cut: 240 min logged against 230 planned (+10 min, +5 at cost)",
        "20 Assemble: 330 min logged against 315 planned (+15 min, +10 at cost)"]
    assert {c["field"]: (c["before"], c["after"]) for c in preview["changes"]
            if c["field"].endswith((" consumed", " minutes"))} == {
        "BOARD consumed": ("200", "210"), "10 Cut minutes": ("230", "240"),
        "20 Assemble minutes": ("315", "330")}
    apply(registry, "complete_manufacturing_order", **args)
    made = registry.invoke("list_stock_movements", {"sku": "TABLE"}, ADMIN)["movements"]
    assert [(m["quantity"], m["unit_cost"]) for m in made] == [("100", "14.7")]
    assert D(made[0]["unit_cost"]) * 100 == D("1130.00") + D("120.00") + D("220.00")


def test_an_80_percent_efficient_assembly_runs_longer(registry: Registry) -> None:
    _world(registry)
    apply(registry, "modify_work_centre", code="ASM", efficiency_percent=80)
    mo = _mo(registry, quantity=100, start=f"{MON}T08:00:00Z")
    asm = mo["operations"][1]
    assert (asm["planned_minutes"], mo["planned_finish"]) == ("390", "2027-03-02T10:20:00Z")
    assert _load(registry, "ASM", end="2027-03-02") == [
        (MON, "480", "250", "52.08"), ("2027-03-02", "480", "140", "29.17")]


def test_an_order_with_a_due_date_is_scheduled_backward_from_its_closing_time(
        registry: Registry) -> None:
    _world(registry)
    mo = _mo(registry, quantity=100, due_date="2027-03-02")
    assert (mo["planned_start"], mo["planned_finish"]) == \
        ("2027-03-01T14:55:00Z", "2027-03-02T16:00:00Z")  # 65 + 165, 315
    # backward then forward: the same dates
    again = _mo(registry, quantity=100, start=mo["planned_start"])
    assert [(o["planned_start"], o["planned_finish"]) for o in again["operations"]] == \
        [(o["planned_start"], o["planned_finish"]) for o in mo["operations"]]


def test_an_item_without_a_routing_keeps_todays_order(registry: Registry) -> None:
    _world(registry)
    apply(registry, "update_routing", sku="TABLE", operations=[])
    mo = _mo(registry, quantity=10, due_date="2027-03-02")
    assert (mo["operations"], mo["planned_start"], mo["planned_finish"]) == ([], None, None)
    assert mo["planned_cost"] == {"materials": "108", "operations": "0", "by_products": "0",
                                  "total": "108"}
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    made = registry.invoke("list_stock_movements", {"sku": "TABLE"}, ADMIN)["movements"]
    assert made[0]["unit_cost"] == "10.8"


def test_the_planned_cost_shown_counts_yield_and_by_products_as_its_creation_did(
        registry: Registry, given: Given) -> None:
    """LAMP = 3 WIRE @ 0.02 (5% attrition, set-up 15, reels of 50) + 1 BASE @ 2.00, gives
    1 OFFCUT carrying 10%, routed Cut on CUT 30 + 2/unit at 30.00/h. 80 LAMP: WIRE 240 x
    1.05 = 252 + 15 = 267 -> 300 x 0.02 = 6.00, BASE 160.00: materials 166.00; Cut 190 min
    = 95.00; OFFCUT 10% of 261.00 = 26.10; the lamps 234.90, 2.93625 each."""
    _world(registry)
    for sku, kind in (("WIRE", "material"), ("BASE", "material"), ("OFFCUT", "material"),
                      ("LAMP", "product")):
        apply(registry, "create_item", sku=sku, name=sku.title(), kind=kind)
    apply(registry, "update_recipe", sku="LAMP", components=[
        {"sku": "WIRE", "quantity": "3", "attrition_percent": "5", "setup_quantity": "15",
         "rounding_multiple": "50"}, {"sku": "BASE", "quantity": "1"}],
        by_products=[{"sku": "OFFCUT", "quantity": "1", "cost_share_percent": "10"}])
    given.stock({"WIRE": ("1000", "0.02"), "BASE": ("100", "2.00")})
    apply(registry, "update_routing", sku="LAMP", operations=[
        {"sequence": 10, "name": "Cut", "work_centre": "CUT", "setup_minutes": 30,
         "run_minutes": 2}])
    args = {"sku": "LAMP", "quantity": "80", "location": "MAIN", "start": f"{MON}T08:00:00Z"}
    preview = registry.invoke("create_manufacturing_order", args, ADMIN)
    assert [c["after"] for c in preview["changes"] if c["field"] == "planned cost"] == \
        ["€234.90 (€2.9363 each)"]
    made = apply(registry, "create_manufacturing_order", **args)
    mo = registry.invoke("get_manufacturing_order", {"number": made["number"]}, ADMIN)
    assert mo["planned_cost"] == {"materials": "166", "operations": "95",
                                  "by_products": "26.1", "total": "234.9"}
    assert D(mo["planned_cost"]["total"]) == D("166.00") + D("95.00") - D("26.10")
    # done as planned, the lamps cost what the plan said
    apply(registry, "complete_manufacturing_order", number=made["number"])
    lamps = registry.invoke("list_stock_movements", {"sku": "LAMP"}, ADMIN)["movements"]
    assert [(m["quantity"], m["unit_cost"]) for m in lamps] == [("80", "2.93625")]


OVERLOAD = [[], *([f"SAW on {MON}: {m} of 480 min planned ({p}%)"]
                  for m, p in ((600, "125"), (900, "187.5"), (1200, "250"), (1500, "312.5")))]
"""What each order in turn puts on the saw's Monday."""


def _saw_orders_of(reg: Registry, dues: dict[str, str]) -> None:
    """SAW (one unit) and a SHELF order of 300 min per number, each from Monday 08:00, in
    the order given, each preview warning of the overload it makes."""
    _shelves(reg)
    for n, number in enumerate(dues):
        args = {"sku": "SHELF", "location": "MAIN", "quantity": 100, "number": number,
                "due_date": dues[number], "start": f"{MON}T08:00:00Z"}
        preview = reg.invoke("create_manufacturing_order", args, ADMIN)
        overload = [w["message"] for w in preview["warnings"] if w["code"] == "overload"]
        assert overload == OVERLOAD[n]
        apply(reg, "create_manufacturing_order", **args)


def _saw_orders(reg: Registry) -> None:
    # made in any order: the due dates decide
    _saw_orders_of(reg, {"E": "2027-03-03", "D": "2027-03-03", "C": "2027-03-02",
                         "B": "2027-03-02", "A": "2027-03-01"})


def test_five_orders_on_one_saw_overload_monday_then_finite_scheduling_spreads_them(
        registry: Registry) -> None:
    from tests.helpers import snapshot

    _saw_orders(registry)
    assert _load(registry, "SAW", end=MON) == [(MON, "480", "1500", "312.5")]
    before = snapshot(registry)
    preview = registry.invoke("schedule_manufacturing_orders",
                              {"start": f"{MON}T08:00:00Z"}, ADMIN)
    assert snapshot(registry) == before  # a preview changes nothing
    finishes = {o["number"]: (o["planned_finish"], o["late"])
                for o in preview["document"]["orders"]}
    assert finishes == {"A": (f"{MON}T13:00:00Z", False), "B": ("2027-03-02T10:00:00Z", False),
                        "C": ("2027-03-02T15:00:00Z", False),
                        "D": ("2027-03-03T12:00:00Z", False),
                        "E": ("2027-03-04T09:00:00Z", True)}
    assert preview["document"]["late"] == ["E"]
    assert [w["message"] for w in preview["warnings"]] == \
        ["E finishes 2027-03-04 09:00, due 2027-03-03"]

    job = run_as_job(registry, "schedule_manufacturing_orders", preview)
    assert job["result"]["late"] == ["E"]
    got = {n: registry.invoke("get_manufacturing_order", {"number": n}, ADMIN)
           for n in "ABCDE"}
    assert {n: mo["planned_finish"] for n, mo in got.items()} == \
        {n: f for n, (f, _) in finishes.items()}
    assert got["B"]["planned_start"] == f"{MON}T13:00:00Z"
    assert _load(registry, "SAW", end="2027-03-04") == [
        (MON, "480", "480", "100"), ("2027-03-02", "480", "480", "100"),
        ("2027-03-03", "480", "480", "100"), ("2027-03-04", "480", "60", "12.5")]
    assert _load(registry, "SAW", end="2027-03-07", bucket="week") == [
        (MON, "2400", "1500", "62.5")]


def test_an_overloaded_day_in_the_coming_weeks_is_an_alert(registry: Registry) -> None:
    from datetime import date, timedelta

    from shopfloor.app import alerts

    monday = date.today() + timedelta(days=7 - date.today().weekday())
    _shelves(registry)
    shown = alerts.content(registry, "overloaded-centres", alerts.WATCHER)
    assert shown["count"] == 0
    for number in ("A", "B"):  # 300 min each, both from Monday 08:00: 600 of 480
        apply(registry, "create_manufacturing_order", sku="SHELF", location="MAIN",
              quantity=100, number=number, start=f"{monday.isoformat()}T08:00:00Z")
    shown = alerts.content(registry, "overloaded-centres", alerts.WATCHER)
    assert [(r["work_centre"], r["period"], r["planned_minutes"], r["load_percent"])
            for r in shown["rows"]] == [("SAW", monday.isoformat(), "600", "125")]


def test_scheduling_some_orders_places_them_around_the_others(registry: Registry) -> None:
    """SAW, one unit: X (300 min) is on it Monday 08:00-13:00 and is not named; Y (300 min,
    made over it from Monday 08:00) goes after it, 13:00 to Tuesday 10:00. BOX has no
    routing, so its order has nothing to place, and is said so."""
    _saw_orders_of(registry, {"X": "2027-03-05", "Y": "2027-03-03"})
    apply(registry, "create_item", sku="BOX", name="Box", kind="product")
    apply(registry, "update_recipe", sku="BOX", components=[{"sku": "PLANK", "quantity": 1}])
    apply(registry, "create_manufacturing_order", sku="BOX", location="MAIN", quantity=1,
          number="Z", due_date="2027-03-03")
    args = {"start": f"{MON}T08:00:00Z", "orders": ["Y", "Z"]}
    preview = registry.invoke("schedule_manufacturing_orders", args, ADMIN)
    doc = preview["document"]
    assert [(o["number"], o["planned_start"], o["planned_finish"], o["late"])
            for o in doc["orders"]] == [
        ("Y", f"{MON}T13:00:00Z", "2027-03-02T10:00:00Z", False)]
    assert doc["unscheduled"] == ["Z"]
    assert [w["message"] for w in preview["warnings"] if w["code"] == "unscheduled"] == \
        ["Z has no operations to place"]
    run_as_job(registry, "schedule_manufacturing_orders", preview)
    got = {n: registry.invoke("get_manufacturing_order", {"number": n}, ADMIN) for n in "XY"}
    assert {n: (mo["planned_start"], mo["planned_finish"]) for n, mo in got.items()} == {
        "X": (f"{MON}T08:00:00Z", f"{MON}T13:00:00Z"),
        "Y": (f"{MON}T13:00:00Z", "2027-03-02T10:00:00Z")}
    assert _load(registry, "SAW", end="2027-03-02") == [
        (MON, "480", "480", "100"), ("2027-03-02", "480", "120", "25")]
