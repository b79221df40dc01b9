"""Issue 21's figures, through the tools on both databases: a balance's value is the sum of
its ledger rows' values, never below zero and never left on an empty balance; what could
not stay on stock is a variance naming its document; a price correction re-prices a
receipt's goods wherever they are; reverts negate exactly or are refused."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from sqlalchemy import func, select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, Variance
from tests.corrections.test_revert import revert, stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.lots.test_lots import refused


def _value(reg: Registry, sku: str, location: str = "MAIN") -> D:
    with reg.store.reading() as s:
        found = s.scalars(select(Balance.stock_value).where(
            Balance.item.has(sku=sku), Balance.location.has(code=location))).first()
    return found if found is not None else D(0)


def _variances(reg: Registry) -> list[tuple[str, str | None, str | None, D]]:
    with reg.store.reading() as s:
        rows = s.execute(select(Variance.kind, Variance.document_type,
                                Variance.document_number, func.sum(Variance.amount))
                         .group_by(Variance.kind, Variance.document_type,
                                   Variance.document_number)).all()
    return sorted((k, t, n, a) for k, t, n, a in rows if a != 0)


def _books(reg: Registry) -> None:
    assert ledger_mismatches(reg) == []


def _opening(reg: Registry, sku: str, qty: str, unit: str) -> None:
    apply(reg, "create_stock_adjustment", location="MAIN", reason="opening",
          lines=[{"sku": sku, "quantity_delta": qty, "unit_cost": unit}])


def _po(reg: Registry, sku: str, qty: str, price: str, lots: list[dict[str, Any]] | None = None
        ) -> tuple[str, dict[str, Any]]:
    po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": sku, "quantity": qty, "unit_price": price}])
    args: dict[str, Any] = {"number": po["number"]}
    if lots:
        args["lines"] = [{"sku": sku, "quantity": qty, "lots": lots}]
    return str(po["number"]), apply(reg, "receive_purchase_order", **args)


def _ship(reg: Registry, sku: str, qty: str) -> tuple[str, dict[str, Any]]:
    so = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": sku, "quantity": qty, "unit_price": "20"}])
    return str(so["number"]), apply(reg, "fulfill_order", number=so["number"])


def _figure_a(reg: Registry) -> str:
    Given(reg).company()
    _opening(reg, "M1", "10", "1")
    po, _ = _po(reg, "M1", "10", "9")
    assert stock(reg, "M1") == (D(20), D(0), D(5))
    _ship(reg, "M1", "15")
    assert (stock(reg, "M1"), _value(reg, "M1")) == ((D(5), D(0), D(5)), D(25))
    return po


def test_figure_a_receipt_corrected_down_takes_no_more_than_the_stock_holds(
        registry: Registry) -> None:
    po = _figure_a(registry)
    preview = registry.invoke("correct_purchase_receipt", {
        "number": po, "sku": "M1", "quantity": "6"}, ADMIN)
    changes = {(c["entity"], c["key"], c["field"]): c["after"] for c in preview["changes"]}
    # 4 at 9.00 is 36.00 but the stock holds 25.00: it all leaves, 11.00 is a variance
    assert changes[("variance", f"purchase_order {po}", "M1@MAIN price")] == "-11"
    assert changes[("stock", "M1@MAIN", "average_cost")] == "0"
    apply(registry, "correct_purchase_receipt", **preview["apply"]["arguments"])
    assert stock(registry, "M1") == (D(1), D(0), D(0)) and _value(registry, "M1") == 0
    assert _variances(registry) == [("price", "purchase_order", po, D(-11))]
    _books(registry)


def test_figure_a_supplier_return_takes_no_more_than_the_stock_holds(
        registry: Registry) -> None:
    po = _figure_a(registry)
    ret = apply(registry, "create_supplier_return", number=po, reason="wrong",
                lines=[{"sku": "M1", "quantity": "4"}])
    assert stock(registry, "M1") == (D(1), D(0), D(0)) and _value(registry, "M1") == 0
    assert _variances(registry) == [("price", "stock_return", ret["number"], D(-11))]
    _books(registry)
    # and the revert gives it all back exactly, the variance answered
    revert(registry, ret)
    assert (stock(registry, "M1"), _value(registry, "M1")) == ((D(5), D(0), D(5)), D(25))
    assert _variances(registry) == []
    _books(registry)


def test_figure_c_a_return_that_empties_the_stock_drops_nothing(registry: Registry,
                                                                given: Given) -> None:
    given.company()
    _opening(registry, "M1", "5", "10")
    po, _ = _po(registry, "M1", "10", "4")
    assert stock(registry, "M1") == (D(15), D(0), D(6))
    _ship(registry, "M1", "5")
    ret = apply(registry, "create_supplier_return", number=po, reason="wrong",
                lines=[{"sku": "M1", "quantity": "10"}])
    assert stock(registry, "M1")[0] == 0 and _value(registry, "M1") == 0
    # 60.00 left the stock, the supplier takes back 40.00: 20.00 recorded, not dropped
    assert _variances(registry) == [("price", "stock_return", ret["number"], D(20))]
    _books(registry)


def test_a_price_corrected_after_a_return_leaves_other_stock_alone(
        registry: Registry, given: Given) -> None:
    """Goods returned to their supplier were that receipt's own: a later price correction
    expenses their difference against the return and never re-prices the other stock."""
    given.company()
    _opening(registry, "M1", "10", "4")
    po, _ = _po(registry, "M1", "10", "4")
    ret = apply(registry, "create_supplier_return", number=po, reason="wrong",
                lines=[{"sku": "M1", "quantity": "4"}])
    assert (stock(registry, "M1"), _value(registry, "M1")) == ((D(16), D(0), D(4)), D(64))
    apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="5")
    # the 6 still on hand take +6; the 4 returned take their +4 with them, as a variance
    assert _value(registry, "M1") == D(70)
    assert _variances(registry) == [("price_correction", "stock_return", ret["number"], D(4))]
    everything = apply(registry, "create_supplier_return", number=po, reason="all of it",
                       lines=[{"sku": "M1", "quantity": "6"}])
    assert (stock(registry, "M1")[0], _value(registry, "M1")) == (D(10), D(40))
    apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="6")
    # none of that receipt's goods is here: the opening stock stays 10 @ 4.00
    assert (stock(registry, "M1"), _value(registry, "M1")) == ((D(10), D(0), D(4)), D(40))
    kind = ("price_correction", "stock_return")
    assert _variances(registry) == sorted([(*kind, ret["number"], D(8)),
                                           (*kind, everything["number"], D(6))])
    _books(registry)


def _po2(reg: Registry) -> str:
    Given(reg).company()
    po, _ = _po(reg, "M1", "10", "4")
    return po


def _reprice(reg: Registry, po: str, price: str = "5") -> dict[str, Any]:
    return apply(reg, "correct_purchase_receipt", number=po, sku="M1", unit_price=price)


def test_figure_po2_a_reverted_shipment_never_took_any(registry: Registry) -> None:
    po = _po2(registry)
    _, shipped = _ship(registry, "M1", "3")
    revert(registry, shipped)
    _reprice(registry, po)
    # (the order is open again: its 3 are committed)
    assert stock(registry, "M1") == (D(10), D(3), D(5)) and _value(registry, "M1") == 50
    assert _variances(registry) == []
    _books(registry)


def test_figure_po2_a_round_trip_to_another_place_comes_back_re_priced(
        registry: Registry) -> None:
    po = _po2(registry)
    for a, b in (("MAIN", "SHOP"), ("SHOP", "MAIN")):
        apply(registry, "create_stock_transfer", from_location=a, to_location=b,
              lines=[{"sku": "M1", "quantity": "4"}])
    _reprice(registry, po)
    assert stock(registry, "M1") == (D(10), D(0), D(5)) and _value(registry, "M1") == 50
    assert _variances(registry) == []
    _books(registry)


def test_goods_moved_elsewhere_and_left_there_carry_the_new_price(registry: Registry) -> None:
    po = _po2(registry)
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "M1", "quantity": "4"}])
    _reprice(registry, po)
    assert stock(registry, "M1") == (D(6), D(0), D(5)) and _value(registry, "M1") == 30
    assert stock(registry, "M1", "SHOP") == (D(4), D(0), D(5))
    assert _value(registry, "M1", "SHOP") == 20
    assert _variances(registry) == []
    _books(registry)


def test_goods_returned_by_the_customer_carry_the_new_price(registry: Registry) -> None:
    po = _po2(registry)
    so, _ = _ship(registry, "M1", "3")
    apply(registry, "create_customer_return", number=so, reason="unwanted",
          lines=[{"sku": "M1", "quantity": "3"}])
    _reprice(registry, po)
    assert stock(registry, "M1") == (D(10), D(0), D(5)) and _value(registry, "M1") == 50
    assert _variances(registry) == []
    _books(registry)


def test_goods_that_truly_left_are_expensed_naming_their_document(registry: Registry) -> None:
    po = _po2(registry)
    so, _ = _ship(registry, "M1", "3")
    done = _reprice(registry, po)
    assert stock(registry, "M1") == (D(7), D(0), D(5)) and _value(registry, "M1") == 35
    assert _variances(registry) == [("price_correction", "sales_order", so, D(3))]
    _books(registry)
    revert(registry, done)  # nothing left since: exact negation, variance answered
    assert stock(registry, "M1") == (D(7), D(0), D(4)) and _value(registry, "M1") == 28
    assert _variances(registry) == []
    _books(registry)


def _tracked(reg: Registry) -> None:
    Given(reg).company().item("LOT", name="Lotted", batch_tracked=True)


def test_figure_m_both_reverts_give_back_the_first_lots_cost(registry: Registry) -> None:
    _tracked(registry)
    m1, _ = _po(registry, "LOT", "10", "4", [{"lot": "M1", "quantity": "10"}])
    _, m2 = _po(registry, "LOT", "10", "6", [{"lot": "M2", "quantity": "10"}])
    assert stock(registry, "LOT") == (D(20), D(0), D(5))
    fix = apply(registry, "correct_purchase_receipt", number=m1, sku="LOT", unit_price="5")
    assert stock(registry, "LOT") == (D(20), D(0), D("5.5"))
    revert(registry, m2)
    assert stock(registry, "LOT") == (D(10), D(0), D(5))
    revert(registry, fix)
    assert stock(registry, "LOT") == (D(10), D(0), D(4)) and _value(registry, "LOT") == 40
    _books(registry)


def test_figure_l_a_re_priced_lot_receipt_is_refused_like_an_untracked_one(
        registry: Registry) -> None:
    _tracked(registry)
    l1, got = _po(registry, "LOT", "10", "4", [{"lot": "L1", "quantity": "10"}])
    fix = apply(registry, "correct_purchase_receipt", number=l1, sku="LOT", unit_price="5")
    _po(registry, "LOT", "10", "6", [{"lot": "L2", "quantity": "10"}])
    err = refused(registry, "revert_operation", operation_id=got["operation_id"])
    assert err.code == "conflict" and "re-priced since" in err.message
    # the correction first, then the receipt: L2 alone, at its own cost
    revert(registry, fix)
    revert(registry, got)
    assert stock(registry, "LOT") == (D(10), D(0), D(6)) and _value(registry, "LOT") == 60
    _books(registry)


def test_a_shipment_re_priced_after_it_left_comes_back_only_once_the_price_is_undone(
        registry: Registry) -> None:
    po = _po2(registry)
    _, shipped = _ship(registry, "M1", "3")
    fix = _reprice(registry, po)
    err = refused(registry, "revert_operation", operation_id=shipped["operation_id"])
    assert err.code == "conflict" and "price correction made since" in err.message
    revert(registry, fix)
    revert(registry, shipped)
    _reprice(registry, po)
    assert stock(registry, "M1") == (D(10), D(3), D(5)) and _value(registry, "M1") == 50
    assert _variances(registry) == []
    _books(registry)
