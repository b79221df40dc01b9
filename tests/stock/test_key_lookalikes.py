"""Keys people type are one stored form, nothing in them is invisible, and a new key that
people would take for an existing one is warned about before it is created.

`PLAIN-1` typed with a Cyrillic Er was created next to `PLAIN-1` without a word; a
zero-width space made a third `PLAIN-1`; `PLAIN-2` typed in fullwidth letters was stored
as typed, and found only when typed that way again.
"""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.app.wiring import worker_for
from shopfloor.kernel import keys
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply


def _preview(reg: Registry, tool: str, **args: Any) -> dict[str, Any]:
    return reg.invoke(tool, args, ADMIN)


def _warned(preview: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [w for w in preview["warnings"] if w["code"] == code]


@pytest.fixture
def reg(registry: Registry, given: Given) -> Registry:
    given.company().item("PLAIN-1", name="Plain one")
    return registry


def test_a_cyrillic_lookalike_warns_naming_the_existing_key(reg: Registry) -> None:
    preview = _preview(reg, "create_item", sku="\u0420LAIN-1", name="Fake")
    [warning] = _warned(preview, "key_lookalike")
    assert "'PLAIN-1'" in warning["message"], warning
    assert "CYRILLIC CAPITAL LETTER ER" in warning["message"], warning
    assert warning["field"] == "sku" and not warning["blocking"]
    assert preview["preview_token"]  # a warning, not a refusal: it may be meant


def test_a_key_differing_only_in_case_warns(reg: Registry) -> None:
    preview = _preview(reg, "create_item", sku="plain-1", name="Lower")
    [warning] = _warned(preview, "key_lookalike")
    assert "'PLAIN-1'" in warning["message"] and "case" in warning["message"], warning


def test_an_unrelated_key_has_no_warning(reg: Registry) -> None:
    assert _preview(reg, "create_item", sku="PLAIN-10", name="Ten")["warnings"] == []


@pytest.mark.parametrize("invisible", ["\u200b", "\u200d", "\u200e", "\u202e", "\u2066",
                                       "\u00ad", "\ufeff", "\u0085", "\u2028", "\u180e"])
def test_an_invisible_character_is_refused_naming_the_field(reg: Registry,
                                                            invisible: str) -> None:
    with pytest.raises(ShopfloorError) as refused:
        _preview(reg, "create_item", sku=f"PLAIN{invisible}-1", name="Ghost")
    assert (refused.value.code, refused.value.field) == ("validation_error", "sku")
    assert f"U+{ord(invisible):04X}" in refused.value.message, refused.value.message
    with pytest.raises(ShopfloorError) as looked_up:  # a lookup too: never "not found"
        reg.invoke("get_item", {"sku": f"PLAIN-{invisible}1"}, ADMIN)
    assert (looked_up.value.code, looked_up.value.field) == ("validation_error", "sku")


def test_every_key_field_refuses_them(reg: Registry) -> None:
    for tool, args, field in [
        ("create_location", {"code": "BIN\u200b1", "name": "Bin"}, "code"),
        ("create_supplier", {"name": "Acme\u200b"}, "name"),
        ("create_purchase_order", {"supplier": "Acme", "location": "MA\u202eIN",
                                   "lines": [{"sku": "M1", "quantity": "1"}]}, "location"),
        ("create_sales_order", {"customer": "Bob", "location": "MAIN",
                                "lines": [{"sku": "M\u200c1", "quantity": "1"}]},
         "lines[0].sku"),
    ]:
        with pytest.raises(ShopfloorError) as refused:
            _preview(reg, tool, **args)
        assert (refused.value.code, refused.value.field) == ("validation_error", field), tool


def test_a_fullwidth_key_is_stored_plain_and_found_typed_either_way(reg: Registry) -> None:
    typed = "\uff30\uff2c\uff21\uff29\uff2e-2"  # PLAIN-2 in fullwidth letters
    preview = _preview(reg, "create_item", sku=typed, name="Wide")
    [warning] = _warned(preview, "key_normalised")
    assert f"{typed!r}" in warning["message"] and "'PLAIN-2'" in warning["message"], warning
    assert _warned(preview, "key_lookalike") == []
    created = reg.invoke("create_item", preview["apply"]["arguments"], ADMIN)
    assert created["applied"] and created["sku"] == "PLAIN-2", created
    assert reg.invoke("get_item", {"sku": typed}, ADMIN)["sku"] == "PLAIN-2"
    assert reg.invoke("get_item", {"sku": "PLAIN-2"}, ADMIN)["sku"] == "PLAIN-2"
    with pytest.raises(ShopfloorError) as again:  # the same key, however it is typed
        apply(reg, "create_item", sku="PLAIN-2", name="Again")
    assert again.value.code == "conflict"


def test_locations_and_partners_warn_too(reg: Registry) -> None:
    location = _preview(reg, "create_location", code="\u041cAIN", name="Main?")  # Cyrillic Em
    assert "'MAIN'" in _warned(location, "key_lookalike")[0]["message"]
    supplier = _preview(reg, "create_supplier", name="\u0410cme")  # Cyrillic A
    assert "'Acme'" in _warned(supplier, "key_lookalike")[0]["message"]
    customer = _preview(reg, "create_customer", name="BOB")
    assert "'Bob'" in _warned(customer, "key_lookalike")[0]["message"]
    apply(reg, "create_location", code="\uff22\uff29\uff2e-1", name="Bin")  # fullwidth
    assert [r["code"] for r in reg.invoke("list_locations", {"query": "BIN"}, ADMIN)
            ["locations"]] == ["BIN-1"]


def test_import_items_warns_about_lookalikes_and_normalised_skus(reg: Registry) -> None:
    csv = ("sku,name\n"
           "\u0420LAIN-1,Fake\n"              # Cyrillic Er: looks like PLAIN-1
           "\uff30\uff2c\uff21\uff29\uff2e-3,Wide\n"  # stored as PLAIN-3
           "NEW-1,New\n"
           "new-1,New again\n"                # like NEW-1, a line of the same file
           "PLAIN-1,Renamed\n")               # an update: no warning
    preview = reg.invoke("import_items", {"csv": csv}, ADMIN)
    assert preview["document"]["created"] == 4 and preview["document"]["rejected"] == 0
    alike = [w["message"] for w in _warned(preview, "key_lookalike")]
    assert any("line 2" in m and "existing item 'PLAIN-1'" in m for m in alike), alike
    assert any("line 5" in m and "item 'NEW-1' (line 4)" in m for m in alike), alike
    assert len(alike) == 2, alike
    [normalised] = [w["message"] for w in _warned(preview, "key_normalised")]
    assert "line 3" in normalised and "'PLAIN-3'" in normalised, normalised
    queued = reg.invoke("import_items", preview["apply"]["arguments"], ADMIN)
    assert worker_for(reg).run_one(queued["job_id"])
    assert reg.invoke("get_item", {"sku": "PLAIN-3"}, ADMIN)["name"] == "Wide"


def test_an_import_finds_a_location_typed_in_fullwidth_and_refuses_an_invisible_one(
        reg: Registry) -> None:
    wide = "sku,name,on_hand:\uff2d\uff21\uff29\uff2e\nW1,Wide,5\n"  # on_hand:MAIN
    preview = reg.invoke("import_items", {"csv": wide}, ADMIN)
    assert "on hand at MAIN 0 -> 5" in preview["document"]["rows"][0]["detail"], preview
    with pytest.raises(ShopfloorError) as refused:
        reg.invoke("import_items", {"csv": "sku,name,on_hand:MA\u200bIN\nW1,Wide,5\n"}, ADMIN)
    assert refused.value.field == "csv" and "U+200B" in refused.value.message


def test_an_invisible_character_in_an_import_rejects_its_row(reg: Registry) -> None:
    preview = reg.invoke("import_items", {"csv": "sku,name\nGHOST\u200b-1,Ghost\n",
                                          "skip_rejects": True}, ADMIN)
    [row] = preview["document"]["rows"]
    assert (row["action"], row["field"]) == ("reject", "sku") and "U+200B" in row["detail"]


def test_plain_ascii_is_its_own_form_and_skeleton() -> None:
    """The hot path: an ASCII key goes through untouched (the same object)."""
    sku = "PLAIN-1"
    assert keys.normal(sku, 64) is sku
    assert keys.skeleton(sku) == "plain-1"
    assert keys.skeleton("\u0420LAIN-1") == keys.skeleton("plain-1")
    assert keys.skeleton("PL\u0391IN\u20131") == "plain-1"  # Greek Alpha, an en dash
    assert keys.skeleton("PLAIN-1") != keys.skeleton("PLA1N-1")  # ASCII is not folded
