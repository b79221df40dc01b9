"""Exact quantities in any unit (issue 30, defect 2), on both databases: a line in a
supplier's unit whose factor is not exact (RESIN bought by the pound, stocked in kg)
reads back as ordered, is received and returned in pounds compared in pounds, and never
leaves value on an empty balance; a quantity finer than its unit, or a line beyond what
is stored, is refused when it is given."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from sqlalchemy import func, select, text

from shopfloor.kernel.numbers import cost
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Variance
from tests.buying.test_buying import refused
from tests.given import Given
from tests.helpers import ADMIN, apply, journal_mismatches, ledger_mismatches, migrate_to


def _resin(reg: Registry, **item: Any) -> Given:
    """RESIN kept in kg, bought from Alpha in lb at 2."""
    given = Given(reg)
    given.location()
    given.supplier("Alpha")
    given.item("RESIN", name="Resin", uom="kg", **item)
    given.offer("RESIN", "Alpha", purchase_unit="lb", units_per_purchase_unit="0.453592",
                price_breaks=[{"min_quantity": "0", "unit_price": "2"}])
    return given


def _order(reg: Registry, quantity: str) -> str:
    po = apply(reg, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESIN", "unit": "lb", "quantity": quantity}])
    return str(po["number"])


def _receive(reg: Registry, number: str, quantity: str) -> dict[str, Any]:
    return apply(reg, "receive_purchase_order", number=number,
                 lines=[{"sku": "RESIN", "quantity": quantity}])


def _return(reg: Registry, number: str, quantity: str) -> dict[str, Any]:
    return apply(reg, "create_supplier_return", number=number, reason="wet",
                 lines=[{"sku": "RESIN", "quantity": quantity, "unit": "lb"}])


def _stock(reg: Registry) -> tuple[D, D]:
    """(on hand, stock value) of RESIN at MAIN."""
    rows = reg.invoke("get_stock", {"sku": "RESIN", "location": "MAIN"}, ADMIN)["balances"]
    val = reg.invoke("get_stock_valuation", {"sku": "RESIN", "location": "MAIN"}, ADMIN)
    return D(rows[0]["on_hand"]), D(val["total"]["value"])


def _line(reg: Registry, number: str) -> tuple[str, str, str, str]:
    ln = reg.invoke("get_purchase_order", {"number": number}, ADMIN)["lines"][0]
    return ln["quantity"], ln["done_quantity"], ln["returned_quantity"], ln["unit"]


def _moves(reg: Registry) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = reg.invoke("list_stock_movements", {"sku": "RESIN"},
                                             ADMIN)["movements"]
    return found


def test_an_order_in_pounds_reads_back_as_ordered(registry: Registry) -> None:
    _resin(registry)
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESIN", "unit": "lb", "quantity": "3.3"}])
    assert (po["lines"][0]["quantity"], po["total"]) == ("3.3", "6.6")
    assert _line(registry, po["number"]) == ("3.3", "0", "0", "lb")


def test_all_that_came_in_going_back_leaves_nothing_and_no_value(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "3.3")
    _receive(registry, number, "3.3")
    assert _stock(registry)[0] == D("1.497")  # 1.4968536 kg, to the kg's 3 places, once
    _return(registry, number, "3.3")
    assert _stock(registry) == (D(0), D(0))
    assert _line(registry, number) == ("3.3", "3.3", "3.3", "lb")
    assert ledger_mismatches(registry) == []


def test_the_last_receipt_goes_back_in_pounds(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "7.7")
    _receive(registry, number, "3.3")
    _receive(registry, number, "4.4")
    assert _line(registry, number) == ("7.7", "7.7", "0", "lb")
    assert _stock(registry)[0] == D("3.493")  # 7.7 lb, rounded once: 3.4926584
    _return(registry, number, "4.4")  # "4.4 lb" is 4.4 lb
    assert _line(registry, number) == ("7.7", "7.7", "4.4", "lb")
    assert _stock(registry)[0] == D("1.497")
    err = refused(registry, "create_supplier_return", {
        "number": number, "reason": "x",
        "lines": [{"sku": "RESIN", "quantity": "3.4", "unit": "lb"}]})
    assert err.field == "lines[0].quantity" and "only 3.3 lb" in err.message
    _return(registry, number, "3.3")
    assert _stock(registry) == (D(0), D(0))
    assert ledger_mismatches(registry) == []


def test_a_receipt_row_is_worth_its_quantity_at_its_unit_cost(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "7.7")
    _receive(registry, number, "3.3")
    _receive(registry, number, "4.4")
    rows = [m for m in _moves(registry) if m["reason"] == "receipt"]
    assert sorted(D(m["quantity"]) for m in rows) == [D("1.497"), D("1.996")]
    for m in rows:
        assert D(m["value"]) == cost(D(m["quantity"]) * D(m["unit_cost"]))
    # the stock is worth what the line costs, 7.7 lb at 2, to the books' precision
    assert abs(_stock(registry)[1] - D("15.4")) < D("0.00001")


def test_receipts_in_pounds_compare_in_pounds(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "3.3")
    err = refused(registry, "receive_purchase_order", {
        "number": number, "lines": [{"sku": "RESIN", "quantity": "3.31"}]})
    assert err.field == "lines[0].quantity" and "only 3.3 lb (1.497 kg)" in err.message
    got = _receive(registry, number, "3.3")
    assert got["status"] == "received"


def test_a_reverted_receipt_gives_back_its_pounds(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "7.7")
    first = _receive(registry, number, "3.3")
    _receive(registry, number, "4.4")
    apply(registry, "revert_operation", operation_id=first["operation_id"])
    assert _line(registry, number) == ("7.7", "4.4", "0", "lb")
    assert _stock(registry)[0] == D("1.996")
    apply(registry, "receive_purchase_order", number=number)
    assert _line(registry, number) == ("7.7", "7.7", "0", "lb")
    assert _stock(registry)[0] == D("3.493")
    back = _return(registry, number, "4.4")
    apply(registry, "revert_operation", operation_id=back["operation_id"])
    assert _line(registry, number) == ("7.7", "7.7", "0", "lb")
    assert _stock(registry)[0] == D("3.493")
    assert ledger_mismatches(registry) == []


def test_an_item_sets_its_own_precision(registry: Registry) -> None:
    _resin(registry, precision=1)
    item = registry.invoke("get_item", {"sku": "RESIN"}, ADMIN)
    assert item["precision"] == 1
    number = _order(registry, "3.3")
    _receive(registry, number, "3.3")
    assert _stock(registry)[0] == D("1.5")
    apply(registry, "modify_item", sku="RESIN", precision=3)
    assert registry.invoke("get_item", {"sku": "RESIN"}, ADMIN)["precision"] == 3


def test_half_a_unit_worth_a_millionth_is_refused_when_ordered(registry: Registry,
                                                               given: Given) -> None:
    given.location()
    given.supplier("Alpha")
    given.item("DUST", name="Dust", uom="g")
    given.offer("DUST", "Alpha", purchase_unit="mote", units_per_purchase_unit="0.000001",
                price_breaks=[{"min_quantity": "0", "unit_price": "1"}])
    err = refused(registry, "create_purchase_order", {
        "supplier": "Alpha", "location": "MAIN",
        "lines": [{"sku": "DUST", "unit": "mote", "quantity": "0.5"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")
    # a quantity finer than its unit, in the item's own unit: refused naming the field
    given.item("BOLT", name="Bolt")
    err = refused(registry, "create_purchase_order", {
        "supplier": "Alpha", "location": "MAIN",
        "lines": [{"sku": "DUST", "quantity": "1"}, {"sku": "BOLT", "quantity": "2.5"}]})
    assert (err.code, err.field) == ("validation_error", "lines[1].quantity")
    assert "whole units" in err.message


def test_a_line_beyond_what_is_stored_is_refused_when_ordered(registry: Registry,
                                                             given: Given) -> None:
    given.location()
    given.supplier("Alpha")
    given.item("BOLT", name="Bolt")
    err = refused(registry, "create_purchase_order", {
        "supplier": "Alpha", "location": "MAIN",
        "lines": [{"sku": "BOLT", "quantity": "999999999", "unit_price": "999999999"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")
    assert "999999998000000001" in err.message


def test_a_need_finer_than_is_stored_moves_as_stored(registry: Registry,
                                                     given: Given) -> None:
    """0.1 of a product taking 0.333333 g each needs 0.0333333 g: it moves as the 0.033333
    the ledger stores, so the 0.033333 on hand is enough and leaves nothing, worth 0."""
    given.location()
    given.item("GOLD", name="Gold", uom="g")
    given.item("PIN", "product", name="Pin", uom="g")
    given.recipe("PIN", {"GOLD": "0.333333"})
    given.stock({"GOLD": ("0.033333", "55.123457")})
    mo = apply(registry, "create_manufacturing_order", sku="PIN", quantity="0.1",
               location="MAIN")
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    rows = registry.invoke("get_stock", {"sku": "GOLD", "location": "MAIN"}, ADMIN)["balances"]
    val = registry.invoke("get_stock_valuation", {"sku": "GOLD", "location": "MAIN"}, ADMIN)
    assert (D(rows[0]["on_hand"]), D(val["total"]["value"])) == (D(0), D(0))
    assert ledger_mismatches(registry) == []


def test_a_coarser_precision_waits_for_the_stock_to_fit(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "3.3")
    _receive(registry, number, "3.3")  # 1.497 kg
    err = refused(registry, "modify_item", {"sku": "RESIN", "precision": 1})
    assert (err.code, err.field) == ("validation_error", "precision")
    err = refused(registry, "modify_item", {"sku": "RESIN", "uom": "pcs"})
    assert (err.code, err.field) == ("validation_error", "uom")
    apply(registry, "modify_item", sku="RESIN", precision=6)


def test_mrp_buys_whole_pieces_of_an_item_counted_in_pieces(registry: Registry) -> None:
    """3 products taking 0.5 of a pcs material need 1.5 pcs: the plan buys 2, and the
    order it makes is one a person could type. (The recipe line rounds to whole pieces, so
    its planned order of 3 is one the floor can make; test_exact_derived has the one that
    does not.)"""
    from tests.planning.test_mrp import TODAY, base, lines_of, plan_of, run_job, sell
    given = base(registry)
    given.item("P", "product", name="Product")
    given.item("M", name="Material", default_supplier="Acme", purchase_price="1")
    components = [{"sku": "M", "quantity": "0.5", "rounding_multiple": "1"}]
    apply(registry, "update_recipe", sku="P", components=components)
    sell(registry, "P", "3", 10)
    plan = plan_of(registry)
    assert [(ln["sku"], ln["quantity"]) for ln in lines_of(plan)] == [("M", "2")]
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    preview = registry.invoke("apply_mrp_plan", {"job_id": job["job_id"]}, ADMIN)
    registry.invoke("apply_mrp_plan", preview["apply"]["arguments"], ADMIN)
    pos = registry.invoke("list_purchase_orders", {}, ADMIN)["orders"]
    assert [(ln["sku"], ln["quantity"]) for po in pos for ln in po["lines"]] == [("M", "2")]


def test_the_migration_gives_old_lines_their_pounds_and_units_their_plain_names(
        registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "7.7")
    _receive(registry, number, "3.3")
    migrate_to(registry, "downgrade", "0020")
    registry.store.engine.dispose()
    with registry.store.engine.begin() as conn:  # as the old rules stored them
        conn.execute(text("UPDATE supplier_items SET purchase_unit = :u"), {"u": "\uff4c\uff42"})
        conn.execute(text("UPDATE purchase_order_lines SET unit = :u"), {"u": "l\u200bb"})
    migrate_to(registry, "upgrade", "head")
    registry.store.engine.dispose()
    # 3.493 kg ordered and 1.497 received, at 0.453592 kg a pound, to six places
    assert _line(registry, number) == ("7.700753", "3.300323", "0", "lb")
    terms = registry.invoke("list_supplier_items", {"sku": "RESIN"}, ADMIN)["supplier_items"]
    assert terms[0]["purchase_unit"] == "lb"
    _receive(registry, number, "4.40043")
    assert _stock(registry)[0] == D("3.493")


def test_a_sales_line_finer_than_its_unit_is_refused(registry: Registry,
                                                     given: Given) -> None:
    given.location()
    given.customer("Bob")
    given.item("BOLT", name="Bolt")
    given.item("OIL", name="Oil", uom="l")
    err = refused(registry, "create_sales_order", {
        "customer": "Bob", "location": "MAIN",
        "lines": [{"sku": "OIL", "quantity": "0.25"}, {"sku": "BOLT", "quantity": "2.5"}]})
    assert (err.code, err.field) == ("validation_error", "lines[1].quantity")
    so = given.so({"OIL": "0.25", "BOLT": "3"})
    err = refused(registry, "fulfill_order", {
        "number": so["number"], "lines": [{"sku": "OIL", "quantity": "0.0001"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")
    err = refused(registry, "modify_sales_order", {
        "number": so["number"], "lines": [{"sku": "BOLT", "quantity": "3.5"}]})
    assert (err.code, err.field) == ("validation_error", "lines[0].quantity")


def test_all_of_it_returned_in_kilograms_is_all_of_it_in_pounds(registry: Registry) -> None:
    _resin(registry)
    number = _order(registry, "3.2")
    _receive(registry, number, "3.2")  # 1.4514944 kg: 1.451, which is 3.19891 lb
    apply(registry, "create_supplier_return", number=number, reason="wet",
          lines=[{"sku": "RESIN", "quantity": "1.451"}])
    assert _line(registry, number) == ("3.2", "3.2", "3.2", "lb")
    assert _stock(registry) == (D(0), D(0))


def _rounding(reg: Registry) -> D:
    """The net of every `rounding` variance recorded (reverts answer theirs)."""
    with reg.store.reading() as s:
        found = s.scalar(select(func.coalesce(func.sum(Variance.amount), 0))
                         .where(Variance.kind == "rounding"))
    return D(found)


def _account(reg: Registry, code: str) -> D:
    rows = reg.invoke("get_trial_balance", {}, ADMIN)["rows"]
    return sum((D(r["closing"]) for r in rows if r["account"] == code), D(0))


def _two_receipts(reg: Registry) -> str:
    """7.7 lb in two receipts: 1.497 kg worth 6.600001 and 1.996 kg worth 8.800001, so
    3.493 kg worth 15.400002 at an average of 4.408818, which makes 15.400001."""
    _resin(reg).customer("Bob")
    number = _order(reg, "7.7")
    _receive(reg, number, "3.3")
    _receive(reg, number, "4.4")
    assert _stock(reg) == (D("3.493"), D("15.400002"))
    return number


def test_returning_in_pounds_leaves_no_rounding_to_record(registry: Registry) -> None:
    """Each receipt's goods go back at the value they came in with: the balance empties
    to nothing exactly, and there is no leftover to record."""
    number = _two_receipts(registry)
    _return(registry, number, "4.4")
    _return(registry, number, "3.3")
    assert _stock(registry) == (D(0), D(0))
    assert _rounding(registry) == 0
    assert ledger_mismatches(registry) == []


def test_the_last_kilogram_out_takes_the_rounding_and_records_it(registry: Registry,
                                                                 given: Given) -> None:
    """Shipped at the average, 3.493 kg x 4.408818 is 15.400001 of the 15.400002 the two
    receipts put on stock: the shipment's row is worth that, and the 0.000001 it leaves
    goes as a rounding (a row of quantity 0 and a rounding variance, in the valuation's
    variances and on the Rounding account), so the balance is 0 and 0; the shipment's
    revert takes it back."""
    _two_receipts(registry)
    so = given.so({"RESIN": "3.493"})
    shipped = apply(registry, "fulfill_order", number=so["number"])
    assert _stock(registry) == (D(0), D(0))
    assert _rounding(registry) == D("0.000001")
    period = registry.invoke("get_stock_valuation", {"start": "2000-01-01"}, ADMIN)["total"]
    assert (D(period["shipped"]), D(period["revalued"]), D(period["variances"])) == (
        D("-15.400001"), D("-0.000001"), D("0.000001"))
    row = next(m for m in _moves(registry) if m["reason"] == "shipment")
    assert D(row["value"]) == cost(D(row["quantity"]) * D(row["unit_cost"]))
    # the journal is in cents: the millionth the variance records is below its minor unit
    assert _account(registry, "7990") == D("0")  # Rounding
    assert _account(registry, "5000") == D("15.40")  # cost of goods sold: 3.493 x avg
    with registry.store.reading() as s:
        assert journal_mismatches(s) == []
    assert ledger_mismatches(registry) == []
    apply(registry, "revert_operation", operation_id=shipped["operation_id"])
    assert _stock(registry) == (D("3.493"), D("15.400002"))
    assert _rounding(registry) == 0
    assert (_account(registry, "7990"), _account(registry, "5000")) == (0, 0)
    assert ledger_mismatches(registry) == []


def test_a_count_to_nothing_records_the_rounding_a_transfer_carries_it(
        registry: Registry) -> None:
    _two_receipts(registry)
    Given(registry).location("SHOP")
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "RESIN", "quantity": "3.493"}])
    assert _stock(registry) == (D(0), D(0))
    assert _rounding(registry) == 0  # all of its value arrived at SHOP
    shop = registry.invoke("get_stock_valuation", {"sku": "RESIN", "location": "SHOP"}, ADMIN)
    assert D(shop["total"]["value"]) == D("15.400002")
    counted = apply(registry, "create_stock_adjustment", location="SHOP", reason="count",
                    lines=[{"sku": "RESIN", "counted_quantity": "0"}])
    assert _rounding(registry) == D("0.000001")
    assert ledger_mismatches(registry) == []
    apply(registry, "revert_operation", operation_id=counted["operation_id"])
    assert _rounding(registry) == 0
    assert D(registry.invoke("get_stock_valuation", {"sku": "RESIN", "location": "SHOP"},
                             ADMIN)["total"]["value"]) == D("15.400002")
