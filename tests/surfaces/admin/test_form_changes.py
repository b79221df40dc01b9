"""What an edit form sends (surfaces/admin/forms.changed): only what the person changed
against the record it started from; a changed line table whole; a cleared field as its
`clear_` flag. Plain values, no server."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.app.wiring import catalogue_tools
from shopfloor.surfaces.admin import forms

pytestmark = pytest.mark.quick

SCHEMA: dict[str, Any] = {"properties": {
    "sku": {"type": "string"}, "name": {"type": "string"},
    "purchase_price": {"anyOf": [{"type": "number"}, {"type": "string"}, {"type": "null"}]},
    "batch_tracked": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
    "default_supplier": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "clear_default_supplier": {"type": "boolean"},
    "lines": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "quantity": {"type": "number"}}}},
}}
FIELDS = forms.form_fields(SCHEMA)
RECORD = {"sku": "GLUE", "name": "Glue", "purchase_price": "3.167100", "batch_tracked": True,
          "default_supplier": "Mill", "on_hand": "12",
          "lines": [{"sku": "A", "quantity": "1.000"}, {"sku": "B", "quantity": "2"}]}


def test_an_untouched_form_sends_only_its_key() -> None:
    original = forms.from_record(FIELDS, RECORD, {"sku": "GLUE"})
    assert original["purchase_price"] == "3.1671" and original["batch_tracked"] is True
    typed = forms.parse(FIELDS, {"sku": ["GLUE"], "name": ["Glue"],
                                 "purchase_price": ["3.1671"],
                                 "batch_tracked": ["false", "true"],
                                 "default_supplier": ["Mill"],
                                 "clear_default_supplier": ["false"],
                                 "lines.0.sku": ["A"], "lines.0.quantity": ["1"],
                                 "lines.1.sku": ["B"], "lines.1.quantity": ["2.0"]})
    assert forms.changed(FIELDS, typed, original) == {"sku": "GLUE"}
    renamed = {**typed, "name": "Wood glue"}
    assert forms.changed(FIELDS, renamed, original) == {"sku": "GLUE", "name": "Wood glue"}


def test_a_changed_line_sends_every_line_and_a_cleared_field_its_flag() -> None:
    original = forms.from_record(FIELDS, RECORD, {"sku": "GLUE"})
    lines = [{"sku": "A", "quantity": "1"}, {"sku": "B", "quantity": "3"}]
    edited = {"sku": "GLUE", "name": "Glue", "purchase_price": "3.1671",
              "batch_tracked": False, "lines": lines}
    assert forms.changed(FIELDS, edited, original) == {
        "sku": "GLUE", "batch_tracked": False, "lines": lines,
        "clear_default_supplier": True}
    assert forms.changed(FIELDS, edited, None) == edited  # no record: all that was typed


def test_the_read_behind_a_modify_tool() -> None:
    names = {"get_item", "get_recipe", "get_purchase_order"}
    assert forms.record_tool("modify_item", names) == "get_item"
    assert forms.record_tool("update_recipe", names) == "get_recipe"
    assert forms.record_tool("update_stock_adjustment", names) is None
    assert forms.key_of(FIELDS, {"sku": ["GLUE"]}) == {"sku": "GLUE"}
    assert forms.key_of(FIELDS, {"name": ["x"]}) is None


def test_a_work_centre_form_round_trips_its_shifts_and_closed_dates() -> None:
    """`code` names a work centre; a shift's days (a list inside a line) read back as the
    list they were, so an untouched calendar is not sent."""
    tool = next(t for t in catalogue_tools() if t.name == "modify_work_centre")
    fields = forms.form_fields(tool.input_schema)
    assert forms.record_tool("modify_work_centre", {"get_work_centre"}) == "get_work_centre"
    assert forms.key_of(fields, {"code": ["CUT"]}) == {"code": "CUT"}
    record = {"code": "CUT", "name": "Saw", "hourly_cost": "30.000000", "capacity": 1,
              "efficiency_percent": "100.000000", "time_zone": "Europe/Berlin",
              "calendar": [{"days": ["mon", "tue"], "start": "08:00", "end": "16:00"},
                           {"days": ["sat"], "start": "08:00", "end": "12:00"}],
              "closed_dates": ["2026-12-24", "2026-12-31"]}
    original = forms.from_record(fields, record, {"code": "CUT"})
    shown = forms.values_of(fields, original)
    assert shown["calendar"][0] == {"days": "mon, tue", "start": "08:00", "end": "16:00"}
    assert shown["closed_dates"] == "2026-12-24\n2026-12-31"
    form: dict[str, list[str]] = {"code": ["CUT"]}
    for name, value in shown.items():
        if isinstance(value, list):
            for i, row in enumerate(value):
                form.update({f"{name}.{i}.{k}": [v] for k, v in row.items()})
        else:
            form[name] = [str(value)]
    typed = forms.parse(fields, form)
    assert typed["calendar"][0]["days"] == ["mon", "tue"]
    assert forms.changed(fields, typed, original) == {"code": "CUT"}
    form["calendar.1.days"] = ["sat, sun"]
    sent = forms.changed(fields, forms.parse(fields, form), original)
    assert sent == {"code": "CUT", "calendar": [
        {"days": ["mon", "tue"], "start": "08:00", "end": "16:00"},
        {"days": ["sat", "sun"], "start": "08:00", "end": "12:00"}]}


def test_a_required_field_is_sent_even_untouched() -> None:
    """update_routing's operations are required: an untouched form still sends them (as
    they were), or the tool could not run at all."""
    tool = next(t for t in catalogue_tools() if t.name == "update_routing")
    fields = forms.form_fields(tool.input_schema)
    record = {"sku": "BOX", "operations": [{"sequence": 10, "name": "Cut",
                                            "work_centre": "SAW", "setup_minutes": "12.5",
                                            "run_minutes": "0.75"}]}
    original = forms.from_record(fields, record, {"sku": "BOX"})
    assert forms.changed(fields, dict(original), original) == original


def test_a_line_index_or_an_id_that_is_not_ascii_digits_is_not_a_number() -> None:
    """'²' passes `str.isdigit` and fails `int`, and `int` refuses past 4,300 digits: a
    crafted form or query string is ignored or kept as text, never a server error."""
    odd = ["\u00b2", "\u2460", "1" * 4400]
    form = {"sku": ["GLUE"], "lines.0.sku": ["A"], "lines.0.quantity": ["1"],
            **{f"lines.{i}.sku": ["X"] for i in odd}}
    assert forms.parse(FIELDS, form)["lines"] == [{"sku": "A", "quantity": "1"}]
    assert forms.prefill(FIELDS, form)["lines"] == [{"sku": "A", "quantity": "1"}]
    ids = forms.form_fields({"properties": {"id": {"type": "integer"}}})
    assert forms.key_of(ids, {"id": ["12"]}) == {"id": 12}
    for raw in odd:
        assert forms.key_of(ids, {"id": [raw]}) == {"id": raw}
