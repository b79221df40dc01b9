"""Notes and the partner's reference on every document (issue 29): purchase, sales and
manufacturing orders and returns take both; they are stored, read back by the document's
`get_*` and list, previewed as changes, shown on its admin page and pre-filled in its edit
form, and an empty text clears them."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from starlette.testclient import TestClient

from shopfloor.app.settings import Settings
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.http import create_app
from tests.given import Given
from tests.helpers import ADMIN, apply

NOTE = "Deliver to gate 2\nCall Ana before 9"


def _changes(preview: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {c["field"]: (c["before"], c["after"]) for c in preview["changes"]}


def test_a_purchase_orders_notes_and_reference_are_kept_read_and_changed(
        registry: Registry, given: Given) -> None:
    given.company()
    args = {"supplier": "Acme", "location": "MAIN", "notes": NOTE, "reference": " AC-7781 ",
            "lines": [{"sku": "M1", "quantity": "3", "unit_price": "2"}]}
    preview = registry.invoke("create_purchase_order", args, ADMIN)
    assert _changes(preview)["reference"] == (None, "AC-7781")
    po = registry.invoke("create_purchase_order", preview["apply"]["arguments"], ADMIN)
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == (NOTE, "AC-7781")
    listed = registry.invoke("list_purchase_orders", {}, ADMIN)["orders"][0]
    assert listed["reference"] == "AC-7781"

    preview = registry.invoke("modify_purchase_order", {
        "number": po["number"], "reference": "AC-7782", "notes": "Gate 3"}, ADMIN)
    assert _changes(preview)["reference"] == ("AC-7781", "AC-7782")
    assert _changes(preview)["notes"] == (NOTE, "Gate 3")
    registry.invoke("modify_purchase_order", preview["apply"]["arguments"], ADMIN)
    apply(registry, "modify_purchase_order", number=po["number"], reference="")
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == ("Gate 3", None)


def test_a_sales_orders_reference_is_the_customers_po(registry: Registry, given: Given) -> None:
    given.company()
    so = given.so({"P1": ("1", "9")}, notes="Gift wrap", reference="BOB-PO-12")
    assert (so["notes"], so["reference"]) == ("Gift wrap", "BOB-PO-12")
    apply(registry, "modify_sales_order", number=so["number"], reference="BOB-PO-13")
    got = registry.invoke("get_sales_order", {"number": so["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == ("Gift wrap", "BOB-PO-13")


def test_a_manufacturing_order_takes_notes_and_a_reference(registry: Registry,
                                                           given: Given) -> None:
    given.company()
    given.recipe("P1", {"M1": "2"})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="4",
               location="MAIN", notes="Use the new jig", reference="JOB-9")
    got = registry.invoke("get_manufacturing_order", {"number": mo["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == ("Use the new jig", "JOB-9")
    preview = registry.invoke("modify_manufacturing_order",
                              {"number": mo["number"], "notes": ""}, ADMIN)
    assert _changes(preview) == {"notes": ("Use the new jig", None)}
    registry.invoke("modify_manufacturing_order", preview["apply"]["arguments"], ADMIN)
    got = registry.invoke("get_manufacturing_order", {"number": mo["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == (None, "JOB-9")
    apply(registry, "delete_manufacturing_order", number=mo["number"])
    with pytest.raises(ShopfloorError) as err:
        apply(registry, "modify_manufacturing_order", number=mo["number"], notes="late")
    assert err.value.code == "conflict" and err.value.field == "number"


def test_returns_take_notes_and_the_partners_rma(registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": ("5", "2")})
    apply(registry, "receive_purchase_order", number=po["number"])
    back = apply(registry, "create_supplier_return", number=po["number"], reason="damaged",
                 notes="Photos sent", reference="RMA-551",
                 lines=[{"sku": "M1", "quantity": "1"}])
    assert (back["notes"], back["reference"]) == ("Photos sent", "RMA-551")
    with pytest.raises(ShopfloorError) as err:
        registry.invoke("create_supplier_return", {
            "number": po["number"], "reason": "x", "reference": "two\nlines",
            "lines": [{"sku": "M1", "quantity": "1"}]}, ADMIN)
    assert err.value.field == "reference"


def test_the_page_shows_them_and_the_edit_form_starts_from_them(
        registry: Registry, given: Given, db_url: str) -> None:
    given.company()
    given.recipe("P1", {"M1": "2"})
    po = given.po({"M1": ("3", "2")}, notes=NOTE, reference="AC-7781")
    app = create_app(registry, Settings(database_url=db_url, currency="EUR"))
    with TestClient(app, headers={"Accept-Language": "en-GB"}) as client:
        client.cookies.set("shopfloor_session", app.state.auth.mint("ada", ["admin"], 600))
        page = client.get(f"/purchase-orders/{po['number']}").text
        assert "Call Ana before 9" in page and "AC-7781" in page
        edit = next(h for h in (unescape(x.split('"', 1)[0]) for x in page.split('href="')[1:])
                    if "modify_purchase_order" in h)
        form = unescape(client.get(edit).text)  # the form starts from the record
        assert "Call Ana before 9" in form and 'value="AC-7781"' in form
        mo_page = client.get("/manufacturing-orders/" + apply(
            registry, "create_manufacturing_order", sku="P1", quantity="1", location="MAIN",
            notes="Jig B", reference="JOB-4")["number"]).text
        edit = next(h for h in (unescape(x.split('"', 1)[0])
                                for x in mo_page.split('href="')[1:])
                    if "modify_manufacturing_order" in h)
        form = unescape(client.get(edit).text)
        assert "Jig B" in form and 'value="JOB-4"' in form


def test_an_edit_form_clears_them_by_their_flags(registry: Registry, given: Given) -> None:
    """A form sends an emptied field as its clear_ flag (forms.changed); the tools take
    those flags for notes and reference."""
    from shopfloor.surfaces.admin import forms

    given.company()
    po = given.po({"M1": "3"}, notes=NOTE, reference="AC-7781")
    fields = forms.form_fields(registry.get("modify_purchase_order").input_schema)
    record = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    original = forms.from_record(fields, record, {"number": po["number"]})
    typed = {**original, "reference": None, "notes": None, "clear_notes": False,
             "clear_reference": False}
    sent = forms.changed(fields, typed, original)
    assert sent["clear_notes"] is True and sent["clear_reference"] is True, sent
    apply(registry, "modify_purchase_order", **sent)
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == (None, None)
    so = given.so({"P1": "1"}, notes="n", reference="r")
    apply(registry, "modify_sales_order", number=so["number"], clear_reference=True)
    got = registry.invoke("get_sales_order", {"number": so["number"]}, ADMIN)
    assert (got["notes"], got["reference"]) == ("n", None)
