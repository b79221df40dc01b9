"""Work centres and routings through the registry, on both databases."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.kernel.errors import NotFound, ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, run_as_job


def _refused(reg: Registry, tool: str, **args: Any) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as e:
        apply(reg, tool, **args)
    return e.value


def test_a_work_centre_has_defaults_and_changes_only_what_is_given(registry: Registry) -> None:
    made = apply(registry, "create_work_centre", code="CUT", name="Saw", hourly_cost="30")
    assert (made["hourly_cost"], made["capacity"], made["efficiency_percent"],
            made["time_zone"], made["closed_dates"]) == ("30", 1, "100", "UTC", [])
    assert made["calendar"] == [{"days": ["mon", "tue", "wed", "thu", "fri"],
                                 "start": "08:00", "end": "16:00"}]
    changed = apply(registry, "modify_work_centre", code="CUT", efficiency_percent="80",
                    closed_dates=["2027-12-25"],
                    calendar=[{"days": ["mon", "tue"], "start": "08:00", "end": "12:00"},
                              {"days": ["tue", "mon"], "start": "12:30", "end": "16:30"}])
    assert changed["efficiency_percent"] == "80" and changed["hourly_cost"] == "30"
    assert changed["closed_dates"] == ["2027-12-25"]
    assert [s["start"] for s in changed["calendar"]] == ["08:00", "12:30"]
    listed = registry.invoke("list_work_centres", {"query": "sa"}, ADMIN)["work_centres"]
    assert [c["code"] for c in listed] == ["CUT"]


@pytest.mark.parametrize("calendar, words", [
    ([{"days": ["mon"], "start": "16:00", "end": "08:00"}], "before it starts"),
    ([{"days": ["someday"], "start": "08:00", "end": "16:00"}], "not a day"),
    ([{"days": ["mon"], "start": "08:00", "end": "12:00"},
      {"days": ["mon"], "start": "11:00", "end": "13:00"}], "overlap"),
])
def test_a_calendar_that_cannot_be_is_a_coded_error_naming_calendar(
        registry: Registry, calendar: list[dict[str, Any]], words: str) -> None:
    e = _refused(registry, "create_work_centre", code="X", name="X", calendar=calendar)
    assert (e.code, e.field) == ("validation_error", "calendar") and words in e.message
    assert registry.invoke("list_work_centres", {}, ADMIN)["work_centres"] == []


def test_other_bad_centre_fields_name_themselves(registry: Registry) -> None:
    apply(registry, "create_work_centre", code="CUT", name="Saw")
    assert _refused(registry, "create_work_centre", code="CUT", name="Again").field == "code"
    assert _refused(registry, "create_work_centre", code="Z", name="Z",
                    time_zone="Mars/Base").field == "time_zone"
    assert _refused(registry, "modify_work_centre", code="NOPE", name="Z").code == "not_found"
    assert _refused(registry, "create_work_centre", code="Y", name="Y",
                    capacity=0).field == "capacity"


def test_a_routing_replaces_whole_and_refuses_what_cannot_be_followed(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_work_centre", code="CUT", name="Saw")
    apply(registry, "create_work_centre", code="ASM", name="Bench")
    ops = [{"sequence": 20, "name": "Assemble", "work_centre": "ASM", "setup_minutes": 15,
            "run_minutes": 3},
           {"sequence": 10, "name": "Cut", "work_centre": "CUT", "setup_minutes": "30",
            "run_minutes": "2"}]
    done = apply(registry, "update_routing", sku="P1", operations=ops)
    assert [(o["sequence"], o["work_centre"], o["setup_minutes"], o["run_minutes"])
            for o in done["operations"]] == [(10, "CUT", "30", "2"), (20, "ASM", "15", "3")]
    routing = registry.invoke("get_routing", {"sku": "P1"}, ADMIN)
    assert routing["operations"] == done["operations"]

    bad = [{**ops[0], "work_centre": "NOPE"}]
    e = _refused(registry, "update_routing", sku="P1", operations=bad)
    assert (e.code, e.field) == ("not_found", "operations[0].work_centre")
    e = _refused(registry, "update_routing", sku="P1", operations=[ops[0], {**ops[1],
                                                                           "sequence": 20}])
    assert e.field == "operations[1].sequence"
    e = _refused(registry, "update_routing", sku="P1",
                 operations=[{**ops[0], "setup_minutes": -1}])
    assert e.field == "operations[0].setup_minutes"
    e = _refused(registry, "update_routing", sku="P1",
                 operations=[{**ops[0], "run_minutes": "lots"}])
    assert e.field == "operations[0].run_minutes"
    e = _refused(registry, "update_routing", sku="M1", operations=ops)
    assert e.field == "sku"
    assert registry.invoke("get_routing", {"sku": "P1"}, ADMIN) == routing  # none half-done
    assert apply(registry, "update_routing", sku="P1", operations=[])["operations"] == []


def test_an_import_carries_routings_and_rejects_a_row_whose_routing_cannot_be(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_work_centre", code="CUT", name="Saw")
    csv = ("sku,name,kind,routing\n"
           "T1,Table,product,10:Cut:CUT:30:2;20:Cut again: CUT :0:1.5\n"
           "T2,Chair,product,10:Cut:NOPE:1:1\n"
           "T3,Stool,product,10:Cut\n")
    preview = registry.invoke("import_items", {"csv": csv, "skip_rejects": True}, ADMIN)
    rows = {r["sku"]: r for r in preview["document"]["rows"]}
    assert (rows["T1"]["action"], rows["T2"]["action"], rows["T3"]["action"]) == \
        ("create", "reject", "reject")
    assert rows["T2"]["field"] == "routing" and "NOPE" in rows["T2"]["detail"]
    assert rows["T3"]["field"] == "routing"
    run_as_job(registry, "import_items", preview)
    ops = registry.invoke("get_routing", {"sku": "T1"}, ADMIN)["operations"]
    assert [(o["sequence"], o["name"], o["work_centre"], o["setup_minutes"], o["run_minutes"])
            for o in ops] == [(10, "Cut", "CUT", "30", "2"), (20, "Cut again", "CUT", "0",
                                                            "1.5")]


def test_an_import_rejects_a_routing_sequence_that_is_not_a_whole_number_in_range(
        registry: Registry, given: Given) -> None:
    """A superscript passes `str.isdigit` and fails `int`; a 12-digit sequence would
    overflow the column on PostgreSQL: each is the row's reject, never an internal error."""
    given.company()
    apply(registry, "create_work_centre", code="CUT", name="Saw")
    sequences = ["\u00b2", "\u2460", "999999999999", "100001", "-1", "1" * 4400]
    csv = "sku,name,kind,routing\n" + "".join(
        f"S{i},Part,product,{seq}:Cut:CUT:1:1\n" for i, seq in enumerate(sequences))
    preview = registry.invoke("import_items", {"csv": csv, "skip_rejects": True}, ADMIN)
    rows = {r["sku"]: r for r in preview["document"]["rows"]}
    for i, seq in enumerate(sequences):
        row = rows[f"S{i}"]
        assert (row["action"], row["field"]) == ("reject", "routing"), (seq[:20], row)
        assert "whole sequence" in row["detail"], row


def test_one_work_centre_is_read_by_its_code(registry: Registry) -> None:
    """What the admin's edit form loads before it opens (`?code=...`)."""
    made = apply(registry, "create_work_centre", code="CUT", name="Saw", hourly_cost="30",
                 closed_dates=["2027-12-25"], time_zone="Europe/Berlin")
    apply(registry, "create_work_centre", code="CUTTER", name="Other saw")
    got = registry.invoke("get_work_centre", {"code": "CUT"}, Actor.of("vera", "viewer"))
    assert got == {k: made[k] for k in got}  # the centre as the write answered it
    with pytest.raises(NotFound) as e:
        registry.invoke("get_work_centre", {"code": "NOPE"}, ADMIN)
    assert e.value.field == "code"
