"""Which applies ask the person first, and the question they read (registry/confirm.py):
plain rules over a preview payload, no database."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.kernel.errors import ValidationFailed
from shopfloor.registry.confirm import ConfirmWrites, asks, in_words, lowers_stock, policy

pytestmark = pytest.mark.quick


def preview(*changes: tuple[str, str, str, Any, Any], token: str | None = "pv1.t",
            warnings: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"preview": True, "title": "Adjust stock", "summary": "Create ADJ-00002",
            "changes": [{"entity": e, "key": k, "field": f, "before": b, "after": a}
                        for e, k, f, b, a in changes],
            "warnings": warnings or [], "preview_token": token}


DOWN = preview(("stock", "M1@MAIN", "on_hand", "10", "6"))
UP = preview(("stock", "M1@MAIN", "on_hand", "10", "14"),
             ("stock", "M1@MAIN", "average_cost", "2", "1.5"))
LOT_DOWN = preview(("lot", "M1@MAIN/L7", "on_hand", "3", "0"))
FIRST = preview(("stock", "M1@MAIN", "on_hand", None, "5"))
NAME = preview(("item", "M1", "name", "Widget", "Blue widget"))


def test_lowers_stock_reads_on_hand_anywhere_and_nothing_else() -> None:
    assert lowers_stock(DOWN) and lowers_stock(LOT_DOWN)
    assert not lowers_stock(UP) and not lowers_stock(FIRST) and not lowers_stock(NAME)
    assert lowers_stock(preview(("stock", "M1@MAIN", "on_hand", None, "-2")))


@pytest.mark.parametrize(("rule", "destructive", "shown", "expected"), [
    (ConfirmWrites.destructive, True, NAME, True),
    (ConfirmWrites.destructive, False, NAME, False),
    (ConfirmWrites.destructive, False, DOWN, True),  # whatever the tool: its preview lowers stock
    (ConfirmWrites.destructive, False, UP, False),
    (ConfirmWrites.all, False, UP, True),
    (ConfirmWrites.none, True, DOWN, False),
    (ConfirmWrites.all, True, preview(token=None), False),  # blocked: refused on its own
])
def test_the_rule_the_facts_and_the_preview_decide(rule: ConfirmWrites, destructive: bool,
                                                    shown: dict[str, Any],
                                                    expected: bool) -> None:
    assert asks(rule, destructive=destructive, preview=shown) is expected


def test_the_question_says_the_record_each_change_and_the_warnings() -> None:
    shown = preview(("stock", "M1@MAIN", "on_hand", "10", "6"),
                    ("item", "M1", "name", "Widget", ""),
                    warnings=[{"code": "below_reorder", "message": "M1 falls below 8"}])
    words = in_words(shown)
    assert words.splitlines()[0] == "Adjust stock: Create ADJ-00002"
    assert "- stock M1@MAIN on_hand: 10 -> 6" in words
    assert "- item M1 name: Widget -> (none)" in words
    assert "Warnings:\n- M1 falls below 8" in words
    assert words.endswith("Nothing changes unless you confirm.")


def test_a_long_preview_is_counted_past_the_limit_and_values_are_cleaned() -> None:
    many = preview(*[("stock", f"S{i}@MAIN", "on_hand", "1", "0") for i in range(45)])
    words = in_words(many, limit=40)
    assert "S39@MAIN" in words and "S40@MAIN" not in words
    assert "... and 5 more changes" in words
    sneaky = preview(("item", "M1", "name", "A", "B\nApply? yes"))
    assert "\nApply? yes" not in in_words(sneaky, clean=lambda t: t.replace("\n", " "))


def test_the_setting_names_its_choices() -> None:
    assert policy(" All ") is ConfirmWrites.all
    with pytest.raises(ValidationFailed) as bad:
        policy("sometimes")
    assert bad.value.field == "confirm_writes" and "destructive, all, none" in bad.value.message
