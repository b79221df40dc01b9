"""GTINs on items, what a scanner reads resolved to its record, and the pick list.

Every test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from shopfloor.app.wiring import worker_for
from shopfloor.kernel import gs1
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply

TODAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
GTIN = "09501101530003"  # GS1's own example GTIN-14
VIEWER = Actor.of("vera", "viewer")


def refused(reg: Registry, tool: str, **args: Any) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as info:
        apply(reg, tool, **args)
    return info.value


def find(reg: Registry, code: str) -> dict[str, Any]:
    return reg.invoke("find_by_code", {"code": code}, VIEWER)


def setup(reg: Registry) -> str:
    reg.clock = lambda: TODAY
    given = Given(reg).bakery(gtin=GTIN)
    given.item("SUGAR", name="Sugar", batch_tracked=True)
    po = given.po({"FLOUR": ("30", "2"), "SUGAR": ("5", "1")}, "Mill")
    apply(reg, "receive_purchase_order", number=po["number"], lines=[
        {"sku": "FLOUR", "quantity": "30", "lots": [
            {"lot": "L-LATE", "quantity": "10", "expiry": "2027-03-01"},
            {"lot": "L-SOON", "quantity": "10", "expiry": "2026-12-01"},
            {"lot": "L-MID", "quantity": "10", "expiry": "2027-01-15"}]},
        {"sku": "SUGAR", "quantity": "5", "lots": [{"lot": "L-MID", "quantity": "5"}]}])
    return str(po["number"])


@pytest.mark.parametrize("good", ["96385074", "036000291452", "4006381333931", GTIN,
                                  "00012345600012"])
def test_a_gtin_with_its_check_digit_is_kept_as_given(registry: Registry, good: str) -> None:
    registry.clock = lambda: TODAY
    item = apply(registry, "create_item", sku="X", name="X", gtin=good)
    assert item["gtin"] == good
    assert registry.invoke("get_item", {"sku": "X"}, VIEWER)["gtin"] == good


@pytest.mark.parametrize("bad", ["4006381333932", "400638133393", "40063813339311",
                                 "4006381A33931", "1234567"])
def test_a_wrong_gtin_is_refused_naming_gtin(registry: Registry, bad: str) -> None:
    registry.clock = lambda: TODAY
    err = refused(registry, "create_item", sku="X", name="X", gtin=bad)
    assert (err.code, err.field) == ("validation_error", "gtin")
    apply(registry, "create_item", sku="Y", name="Y")
    err = refused(registry, "modify_item", sku="Y", gtin=bad)
    assert (err.code, err.field) == ("validation_error", "gtin")


def test_a_gtin_names_one_item_in_any_of_its_lengths(registry: Registry) -> None:
    registry.clock = lambda: TODAY
    apply(registry, "create_item", sku="A", name="A", gtin="4006381333931")
    apply(registry, "create_item", sku="B", name="B")
    err = refused(registry, "modify_item", sku="B", gtin="04006381333931")
    assert (err.code, err.field) == ("conflict", "gtin")
    apply(registry, "modify_item", sku="A", gtin="4006381333931")  # its own: no conflict


def test_import_takes_gtin_and_rejects_a_bad_one_by_column(registry: Registry) -> None:
    registry.clock = lambda: TODAY
    csv = "sku,name,gtin\nA,Apple,4006381333931\nB,Bean,4006381333932\n"
    preview = registry.invoke("import_items", {"csv": csv, "skip_rejects": True}, ADMIN)
    rows = preview["document"]["rows"]
    assert [(r["sku"], r["action"], r["field"]) for r in rows] == [
        ("A", "create", None), ("B", "reject", "gtin")]
    queued = registry.invoke("import_items", preview["apply"]["arguments"], ADMIN)
    assert worker_for(registry).run_one(queued["job_id"])
    assert registry.invoke("get_item", {"sku": "A"}, VIEWER)["gtin"] == "4006381333931"
    again = "sku,name,gtin\nC,Corn,04006381333931\nD,Date,96385074\nE,Eel,96385074\n"
    rows = registry.invoke("import_items", {"csv": again, "skip_rejects": True},
                           ADMIN)["document"]["rows"]
    assert [(r["sku"], r["action"], r["field"]) for r in rows] == [
        ("C", "reject", "gtin"), ("D", "create", None), ("E", "reject", "gtin")]
    assert rows[0]["detail"] == "GTIN 04006381333931 is already item A's"


@pytest.mark.parametrize("spelt", [
    f"(01){GTIN}(17)270115(10)L-MID",
    f"]C101{GTIN}17270115" + "10L-MID",
    f"\x1d01{GTIN}10L-MID\x1d17270115",
    f"01{GTIN}17270115" + "10L-MID",
])
def test_a_gs1_reading_finds_the_lot_and_its_item(registry: Registry, spelt: str) -> None:
    setup(registry)
    found = find(registry, spelt)
    assert found["gs1"]["01"] == GTIN
    assert found["matches"] == [{"kind": "lot", "key": "L-MID", "sku": "FLOUR",
                                 "name": "Flour", "expiry": "2027-01-15"}]


def test_keys_resolve_and_a_shared_lot_number_lists_both(registry: Registry) -> None:
    po = setup(registry)
    assert [(m["kind"], m["key"]) for m in find(registry, "FLOUR")["matches"]] == [
        ("item", "FLOUR")]
    assert [(m["kind"], m["key"]) for m in find(registry, GTIN)["matches"]] == [
        ("item", "FLOUR")]
    assert [(m["kind"], m["key"]) for m in find(registry, "9501101530003")["matches"]] == [
        ("item", "FLOUR")]
    assert [(m["kind"], m["key"]) for m in find(registry, "MAIN")["matches"]] == [
        ("location", "MAIN")]
    assert [(m["kind"], m["key"]) for m in find(registry, po)["matches"]] == [
        ("purchase_order", po)]
    both = find(registry, "L-MID")["matches"]
    assert sorted((m["kind"], m["sku"]) for m in both) == [("lot", "FLOUR"), ("lot", "SUGAR")]


def test_an_unknown_code_is_not_found_naming_code(registry: Registry) -> None:
    setup(registry)
    for code in ("NOPE", "(01)09501101530004"):  # the second fails its check digit
        with pytest.raises(ShopfloorError) as info:
            find(registry, code)
        assert (info.value.code, info.value.field) == ("not_found", "code")
    # a known GTIN with an unknown lot still names its item
    found = find(registry, f"(01){GTIN}(10)L-NONE")
    assert [(m["kind"], m["key"]) for m in found["matches"]] == [("item", "FLOUR")]


def test_pick_list_takes_lots_first_expiring_first(registry: Registry, given: Given) -> None:
    setup(registry)
    apply(registry, "hold_lot", sku="FLOUR", lot="L-SOON", reason="smell")
    so = given.so({"FLOUR": "15", "SUGAR": "7"}, customer="Cafe")
    picks = registry.invoke("get_pick_list", {"number": so["number"]}, VIEWER)
    flour, sugar = picks["lines"]
    assert [(p["lot"], p["quantity"]) for p in flour["picks"]] == [("L-MID", "10"),
                                                                  ("L-LATE", "5")]
    assert flour["short"] == "0"
    assert [(p["lot"], p["quantity"]) for p in sugar["picks"]] == [("L-MID", "5")]
    assert sugar["short"] == "2"
    assert picks["customer"] == "Cafe" and picks["location"] == "MAIN"


def test_gs1_element_string_puts_fnc1_after_a_variable_field_only() -> None:
    data = gs1.element_string([("01", GTIN), ("10", "AB"), ("17", "270115")])
    assert data == f"{gs1.FNC1}01{GTIN}10AB{gs1.FNC1}17270115"
    assert gs1.parse(data) == [("01", GTIN), ("10", "AB"), ("17", "270115")]
    assert gs1.parse_date("270200") is not None and gs1.parse_date("270200").day == 28


def test_a_gs1_serial_finds_the_serial_number(registry: Registry, given: Given) -> None:
    setup(registry)
    apply(registry, "create_item", sku="SCALE", name="Scale", serial_tracked=True,
          gtin="4006381333931")
    po = given.po({"SCALE": ("2", "50")}, supplier="Mill")
    apply(registry, "receive_purchase_order", number=po["number"],
          lines=[{"sku": "SCALE", "quantity": "2", "serials": ["SN-1", "SN-2"]}])
    found = find(registry, "(01)04006381333931(21)SN-2")
    assert found["matches"] == [{"kind": "serial", "key": "SN-2", "sku": "SCALE",
                                 "name": "Scale", "expiry": None}]
