"""A lot has one expiry: stock coming into an existing lot with another one is refused
unless the caller asks to change it (and the preview shows the change), and stock coming
in already expired or into a held lot is said in the preview. Both databases."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, refused_alike
from tests.lots.test_lots import TODAY, setup


def expiries(reg: Registry, sku: str) -> dict[str, str | None]:
    return {r["lot"]: r["expiry"] for r in reg.invoke("list_lots", {"sku": sku}, ADMIN)["lots"]}


def order(reg: Registry, quantity: str = "5") -> str:
    po = apply(reg, "create_purchase_order", supplier="Mill", location="MAIN",
               lines=[{"sku": "FLOUR", "quantity": quantity, "unit_price": "2"}])
    return str(po["number"])


def receipt(number: str, lot: dict[str, Any], quantity: str = "5") -> dict[str, Any]:
    return {"number": number,
            "lines": [{"sku": "FLOUR", "quantity": quantity, "lots": [lot]}]}


def lot_a(reg: Registry, expiry: str | None = "2027-01-01") -> None:
    setup(reg)
    lot: dict[str, Any] = {"lot": "A"}
    if expiry:
        lot["expiry"] = expiry
    apply(reg, "receive_purchase_order", **receipt(order(reg), lot))


def expiry_changes(preview: dict[str, Any]) -> set[tuple[str, Any, Any]]:
    return {(c["key"], c["before"], c["after"]) for c in preview["changes"]
            if c["entity"] == "lot" and c["field"] == "expiry"}


def test_receiving_an_existing_lot_with_another_expiry_is_refused(registry: Registry) -> None:
    lot_a(registry)
    args = receipt(order(registry), {"lot": "A", "expiry": "2027-06-01"})
    err = refused_alike(registry, "receive_purchase_order", args)
    assert (err.code, err.field) == ("validation_error", "lines[0].lots[0].expiry")
    assert "2027-01-01" in err.message and "change_expiry" in err.message
    assert expiries(registry, "FLOUR") == {"A": "2027-01-01"}


def test_change_expiry_changes_it_and_the_preview_shows_before_and_after(
        registry: Registry) -> None:
    lot_a(registry)
    args = receipt(order(registry), {"lot": "A", "expiry": "2027-06-01",
                                     "change_expiry": True})
    preview = registry.invoke("receive_purchase_order", args, ADMIN)
    assert expiry_changes(preview) == {("FLOUR/A", "2027-01-01", "2027-06-01")}
    registry.invoke("receive_purchase_order", preview["apply"]["arguments"], ADMIN)
    assert expiries(registry, "FLOUR") == {"A": "2027-06-01"}
    assert ledger_mismatches(registry) == []


@pytest.mark.parametrize("lot", [{"lot": "A"}, {"lot": "A", "expiry": "2027-01-01"},
                                 {"lot": "A", "expiry": "2027-01-01", "change_expiry": True}])
def test_the_same_expiry_or_none_adds_to_the_lot_unchanged(registry: Registry,
                                                            lot: dict[str, Any]) -> None:
    lot_a(registry)
    preview = registry.invoke("receive_purchase_order", receipt(order(registry), lot), ADMIN)
    assert expiry_changes(preview) == set()
    registry.invoke("receive_purchase_order", preview["apply"]["arguments"], ADMIN)
    assert expiries(registry, "FLOUR") == {"A": "2027-01-01"}


def test_a_lot_without_an_expiry_is_given_one_only_when_asked(registry: Registry) -> None:
    lot_a(registry, expiry=None)
    number = order(registry)
    err = refused_alike(registry, "receive_purchase_order",
                        receipt(number, {"lot": "A", "expiry": "2027-03-01"}))
    assert (err.code, err.field) == ("validation_error", "lines[0].lots[0].expiry")
    apply(registry, "receive_purchase_order",
          **receipt(number, {"lot": "A", "expiry": "2027-03-01", "change_expiry": True}))
    assert expiries(registry, "FLOUR") == {"A": "2027-03-01"}


def test_change_expiry_goes_with_an_expiry(registry: Registry) -> None:
    lot_a(registry)
    err = refused_alike(registry, "receive_purchase_order",
                        receipt(order(registry), {"lot": "A", "change_expiry": True}))
    assert err.code == "validation_error" and err.field.startswith("lines[0].lots[0]")


def test_a_receipts_one_lot_names_the_documents_expiry(registry: Registry) -> None:
    lot_a(registry)
    number = order(registry)
    args = {"number": number, "batch": "A", "expiry": "2027-06-01"}
    err = refused_alike(registry, "receive_purchase_order", args)
    assert (err.code, err.field) == ("validation_error", "expiry")
    preview = registry.invoke("receive_purchase_order", {**args, "change_expiry": True}, ADMIN)
    assert expiry_changes(preview) == {("FLOUR/A", "2027-01-01", "2027-06-01")}
    registry.invoke("receive_purchase_order", preview["apply"]["arguments"], ADMIN)
    assert expiries(registry, "FLOUR") == {"A": "2027-06-01"}


def test_an_adjustment_into_a_lot_with_another_expiry_is_refused(registry: Registry) -> None:
    lot_a(registry)
    line = {"sku": "FLOUR", "quantity_delta": "3",
            "lots": [{"lot": "A", "expiry": "2027-02-01"}]}
    args = {"location": "MAIN", "reason": "found", "lines": [line]}
    err = refused_alike(registry, "create_stock_adjustment", args)
    assert (err.code, err.field) == ("validation_error", "lines[0].lots[0].expiry")
    line["lots"][0]["change_expiry"] = True  # type: ignore[index]
    apply(registry, "create_stock_adjustment", **args)
    assert expiries(registry, "FLOUR") == {"A": "2027-02-01"}


def product(reg: Registry) -> None:
    setup(reg)
    given = Given(reg)
    given.item("M", name="Material", purchase_price="1")
    given.item("BREAD", "product", name="Bread", batch_tracked=True)
    given.recipe("BREAD", {"M": "1"})
    given.stock({"M": ("100", "1")})


def make(reg: Registry, quantity: str = "2") -> str:
    mo = apply(reg, "create_manufacturing_order", sku="BREAD", quantity=quantity,
               location="MAIN")
    return str(mo["number"])


def test_completing_into_a_lot_with_another_expiry_is_refused(registry: Registry) -> None:
    product(registry)
    apply(registry, "complete_manufacturing_order", number=make(registry), lot="B-1",
          expiry="2026-12-01")
    args = {"number": make(registry), "lot": "B-1", "expiry": "2026-12-05"}
    err = refused_alike(registry, "complete_manufacturing_order", args)
    assert (err.code, err.field) == ("validation_error", "expiry")
    preview = registry.invoke("complete_manufacturing_order", {**args, "change_expiry": True},
                              ADMIN)
    assert expiry_changes(preview) == {("BREAD/B-1", "2026-12-01", "2026-12-05")}
    registry.invoke("complete_manufacturing_order", preview["apply"]["arguments"], ADMIN)
    assert expiries(registry, "BREAD") == {"B-1": "2026-12-05"}


# -- said, not refused ---------------------------------------------------------------------
def warnings(preview: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [w for w in preview["warnings"] if w["code"] == code]


def test_receiving_an_already_expired_lot_is_a_warning(registry: Registry) -> None:
    setup(registry)  # today is 2026-11-23
    number = order(registry, "10")
    args = receipt(number, {"lot": "OLD", "expiry": "2026-11-22"})
    preview = registry.invoke("receive_purchase_order", args, ADMIN)
    [warned] = warnings(preview, "expired_lot")
    assert not warned["blocking"] and warned["field"] == "lines[0].lots[0].expiry"
    assert "2026-11-22" in warned["message"]
    registry.invoke("receive_purchase_order", preview["apply"]["arguments"], ADMIN)
    # more into the expired lot, naming no expiry: said again; expiring today is not expired
    more = registry.invoke("receive_purchase_order", receipt(number, {"lot": "OLD"}), ADMIN)
    assert warnings(more, "expired_lot")
    today = registry.invoke("receive_purchase_order",
                            receipt(number, {"lot": "NEW", "expiry": TODAY.date().isoformat()}),
                            ADMIN)
    assert warnings(today, "expired_lot") == []


def test_completing_into_a_held_lot_is_a_warning(registry: Registry) -> None:
    product(registry)
    apply(registry, "complete_manufacturing_order", number=make(registry), lot="B-1")
    apply(registry, "hold_lot", sku="BREAD", lot="B-1", reason="lab check")
    preview = registry.invoke("complete_manufacturing_order",
                              {"number": make(registry), "lot": "B-1"}, ADMIN)
    [warned] = warnings(preview, "held_lot")
    assert not warned["blocking"] and "hold" in warned["message"]
    done = registry.invoke("complete_manufacturing_order", preview["apply"]["arguments"], ADMIN)
    assert done["status"] == "done"
    [lot] = registry.invoke("list_lots", {"sku": "BREAD"}, ADMIN)["lots"]
    assert lot["held"] and lot["on_hand"] == "4"
    # a lot that is not held says nothing
    fresh = registry.invoke("complete_manufacturing_order",
                            {"number": make(registry), "lot": "B-2"}, ADMIN)
    assert warnings(fresh, "held_lot") == []
