"""Partners you can manage (issue 29): a supplier's and a customer's details changed after
creation, previewed; a currency change refused while an open order is in the old one,
naming it, and allowed once none is; one partner read back with its open orders and totals."""

from __future__ import annotations

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot


def _changes(preview: dict[str, object]) -> dict[str, tuple[object, object]]:
    return {c["field"]: (c["before"], c["after"])  # type: ignore[index]
            for c in preview["changes"]}  # type: ignore[attr-defined]


def test_a_suppliers_details_change_previewed_and_read_back(registry: Registry,
                                                            given: Given) -> None:
    given.company()
    args = {"supplier": "Acme", "contact": "Ana Ruiz", "address": "1 Mill Lane\r\n\r\n Leeds ",
            "tax_id": "GB 123 456 789", "payment_terms_days": 30, "lead_time_days": 12,
            "email": "orders@acme.example", "currency": "USD"}
    before = snapshot(registry)
    preview = registry.invoke("modify_supplier", args, ADMIN)
    assert snapshot(registry) == before
    assert _changes(preview) == {
        "currency": (None, "USD"), "contact": (None, "Ana Ruiz"),
        "email": (None, "orders@acme.example"), "address": (None, "1 Mill Lane\nLeeds"),
        "tax_id": (None, "GB 123 456 789"), "payment_terms_days": (None, "30"),
        "lead_time_days": (None, "12")}
    registry.invoke("modify_supplier", preview["apply"]["arguments"], ADMIN)
    got = registry.invoke("get_supplier", {"name": "Acme"}, ADMIN)
    assert (got["currency"], got["contact"], got["address"], got["tax_id"]) == (
        "USD", "Ana Ruiz", "1 Mill Lane\nLeeds", "GB 123 456 789")
    assert (got["payment_terms_days"], got["lead_time_days"]) == (30, 12)
    assert registry.invoke("get_supplier", {"id": got["id"]}, ADMIN)["name"] == "Acme"

    apply(registry, "modify_supplier", id=got["id"], name="Acme Tools", clear_contact=True,
          clear_currency=True)
    got = registry.invoke("get_supplier", {"name": "Acme Tools"}, ADMIN)
    assert (got["contact"], got["currency"], got["email"]) == (None, None,
                                                               "orders@acme.example")
    with pytest.raises(ShopfloorError) as err:
        registry.invoke("get_supplier", {"name": "Acme"}, ADMIN)
    assert err.value.code == "not_found"
    apply(registry, "create_supplier", name="Other")
    with pytest.raises(ShopfloorError) as err:
        apply(registry, "modify_supplier", supplier="Other", name="Acme Tools")
    assert (err.value.code, err.value.field) == ("conflict", "name")


def test_a_currency_change_waits_for_the_open_orders_in_the_old_one(
        registry: Registry, given: Given) -> None:
    given.company()
    po1 = given.po({"M1": ("2", "3")})["number"]
    po2 = given.po({"M2": ("1", "4")})["number"]
    preview = registry.invoke("modify_supplier", {"supplier": "Acme", "currency": "USD"},
                              ADMIN)
    blocking = [w for w in preview["warnings"] if w["blocking"]]
    assert blocking and blocking[0]["code"] == "conflict"
    assert po1 in blocking[0]["message"] and po2 in blocking[0]["message"]
    with pytest.raises(ShopfloorError) as err:
        apply(registry, "modify_supplier", supplier="Acme", currency="USD")
    assert err.value.field == "currency" and err.value.details["orders"] == [po1, po2]
    assert registry.invoke("get_supplier", {"name": "Acme"}, ADMIN)["currency"] is None

    apply(registry, "receive_purchase_order", number=po1)
    apply(registry, "delete_purchase_order", number=po2)
    apply(registry, "modify_supplier", supplier="Acme", currency="USD")
    po3 = given.po({"M1": ("1", "2")})
    assert po3["currency"] == "USD"
    # back to euros: the open dollar order now holds the currency in place
    with pytest.raises(ShopfloorError) as err:
        apply(registry, "modify_supplier", supplier="Acme", clear_currency=True)
    assert po3["number"] in err.value.message and "USD" in err.value.message


def test_a_partner_reads_with_open_orders_totals_and_supplier_items(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "set_supplier_item", sku="M1", supplier="Acme", supplier_sku="AC-M1",
          purchase_unit="box", units_per_purchase_unit="10", lead_time_days=5,
          price_breaks=[{"min_quantity": "1", "unit_price": "12"},
                        {"min_quantity": "10", "unit_price": "11"}], preferred=True)
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               reference="AC-1", lines=[{"sku": "M1", "quantity": "2", "unit": "box"}])
    given.po({"M2": ("3", "1.5")})
    done = given.po({"M2": ("1", "9")})
    apply(registry, "receive_purchase_order", number=done["number"])
    got = registry.invoke("get_supplier", {"name": "Acme"}, ADMIN)
    assert [o["number"] for o in got["open_orders"]] == [po["number"], "PO-00002"]
    assert got["open_orders"][0]["reference"] == "AC-1"
    assert got["totals"] == [{"currency": "EUR", "open_orders": 2, "open_value": "28.5"}]
    offer = registry.invoke("list_supplier_items", {"supplier": "Acme"},
                            ADMIN)["supplier_items"][0]
    assert (offer["sku"], offer["supplier_sku"], offer["purchase_unit"],
            offer["lead_time_days"], offer["preferred"]) == ("M1", "AC-M1", "box", 5, True)
    assert [b["unit_price"] for b in offer["price_breaks"]] == ["12", "11"]

    given.so({"P1": ("2", "7")})
    bob = registry.invoke("get_customer", {"name": "Bob"}, ADMIN)
    assert bob["totals"] == [{"currency": "EUR", "open_orders": 1, "open_value": "14"}]


def test_create_takes_the_details_too(registry: Registry) -> None:
    made = apply(registry, "create_customer", name="Cleo", contact="Cleo Park",
                 payment_terms_days=14, address="2 Quay St\nBristol")
    assert (made["contact"], made["payment_terms_days"], made["address"]) == (
        "Cleo Park", 14, "2 Quay St\nBristol")


def test_a_suppliers_lead_time_is_its_items_default(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_supplier", supplier="Acme", lead_time_days=21)
    breaks = [{"min_quantity": "1", "unit_price": "2"}]
    made = apply(registry, "set_supplier_item", sku="M1", supplier="Acme", purchase_unit="box",
                 units_per_purchase_unit="10", price_breaks=breaks)
    assert made["lead_time_days"] == 21
    made = apply(registry, "set_supplier_item", sku="M2", supplier="Acme", purchase_unit="box",
                 units_per_purchase_unit="10", price_breaks=breaks, lead_time_days=0)
    assert made["lead_time_days"] == 0
