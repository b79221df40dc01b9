"""Landed costs (issue 23), on both databases: the issue's worked example to the cent,
allocation by weight, a landed cost in another currency, the coded refusals, and a
revert that puts stock value and variances back exactly."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest
from sqlalchemy import func, select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Variance
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot


def world(reg: Registry) -> None:
    given = Given(reg)
    given.location("MAIN")
    given.location("SHOP")
    given.supplier("Acme")
    given.supplier("Wires Inc", currency="USD")
    given.customer("Bob")
    for sku in ("LA", "LB"):
        given.item(sku)


def received(reg: Registry, lines: list[tuple[str, str, str]], supplier: str = "Acme"
             ) -> str:
    po = Given(reg).po({s: (q, p) for s, q, p in lines}, supplier, receive=True)
    return str(po["number"])


def ship(reg: Registry, sku: str, qty: str) -> str:
    so = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": sku, "quantity": qty, "unit_price": "50"}])
    apply(reg, "fulfill_order", number=so["number"])
    return str(so["number"])


def stock(reg: Registry, sku: str, location: str = "MAIN") -> tuple[D, D, D]:
    """(on hand, average cost, stock value) of one balance."""
    rows = reg.invoke("get_stock", {"sku": sku, "location": location}, ADMIN)["balances"]
    val = reg.invoke("get_stock_valuation", {"sku": sku, "location": location}, ADMIN)
    return D(rows[0]["on_hand"]), D(rows[0]["average_cost"]), D(val["total"]["value"])


def variances(reg: Registry) -> list[tuple[str, str | None, str | None, D]]:
    with reg.store.reading() as s:
        return [(k, t, n, a) for k, t, n, a in s.execute(
            select(Variance.kind, Variance.document_type, Variance.document_number,
                   Variance.amount).order_by(Variance.id))]


def lines_of(doc: dict[str, Any]) -> dict[str, tuple[D, D, D]]:
    return {ln["sku"]: (D(ln["share"]), D(ln["capitalised"]), D(ln["expensed"]))
            for ln in doc["lines"]}


def refused(reg: Registry, args: dict[str, Any]) -> ShopfloorError:
    """Refused on preview and on apply alike, writing nothing either way."""
    before = snapshot(reg)
    for preview in (True, False):
        with pytest.raises(ShopfloorError) as info:
            reg.invoke("add_landed_cost", {**args, "preview": preview}, ADMIN)
        assert snapshot(reg) == before
    return info.value


def test_the_worked_example_to_the_cent(registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "10", "10.00"), ("LB", "10", "20.00")])
    so = ship(registry, "LA", "4")
    before = snapshot(registry)
    preview = registry.invoke("add_landed_cost", {"number": po, "amount": "30.00",
                                                  "description": "freight"}, ADMIN)
    assert snapshot(registry) == before  # a preview writes nothing
    assert lines_of(preview["document"]) == {"LA": (D(10), D(6), D(4)),
                                             "LB": (D(20), D(20), D(0))}
    changes = {(c["key"], c["field"]): c["after"] for c in preview["changes"]}
    assert changes[("LC-00001", "line LA capitalised")] == "6"
    assert changes[("LC-00001", "line LA expensed")] == "4"
    freight = apply(registry, "add_landed_cost", number=po, amount="30.00",
                    description="freight", preview_token=preview["preview_token"])
    assert freight["number"] == "LC-00001" and freight["allocate_by"] == "value"
    assert lines_of(freight) == {"LA": (D(10), D(6), D(4)), "LB": (D(20), D(20), D(0))}
    assert (D(freight["capitalised"]), D(freight["expensed"])) == (D(26), D(4))
    assert stock(registry, "LA") == (D(6), D(11), D(66))
    assert stock(registry, "LB") == (D(10), D(22), D(220))
    assert variances(registry) == [("landed_cost", "sales_order", so, D(4))]

    duty = apply(registry, "add_landed_cost", number=po, amount="20.00",
                 allocate_by="quantity", description="duty")
    assert lines_of(duty) == {"LA": (D(10), D(6), D(4)), "LB": (D(10), D(10), D(0))}
    assert stock(registry, "LA") == (D(6), D(12), D(72))
    assert stock(registry, "LB") == (D(10), D(23), D(230))
    assert variances(registry) == [("landed_cost", "sales_order", so, D(4))] * 2
    assert ledger_mismatches(registry) == []
    listed = registry.invoke("list_landed_costs", {"number": po}, ADMIN)["landed_costs"]
    assert [(c["number"], c["description"], c["company_amount"], c["reverted"])
            for c in listed] == [("LC-00001", "freight", "30", False),
                                 ("LC-00002", "duty", "20", False)]
    got = registry.invoke("get_purchase_order", {"number": po}, ADMIN)
    assert got["landed_costs"] == "50"


def test_a_revert_puts_value_and_variances_back_exactly(registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "3", "10.00"), ("LB", "7", "20.00")])
    ship(registry, "LA", "1")
    start = (stock(registry, "LA"), stock(registry, "LB"))
    done = apply(registry, "add_landed_cost", number=po, amount="10.00",
                 allocate_by="quantity", description="freight")
    # 3 / 10 of 10.00 on LA: 1 of its 3 units gone, so 1.00 expensed, 2.00 capitalised
    assert lines_of(done) == {"LA": (D(3), D(2), D(1)), "LB": (D(7), D(7), D(0))}
    assert stock(registry, "LA") == (D(2), D(11), D(22))
    undone = apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert undone["reverted_tool"] == "add_landed_cost"
    assert (stock(registry, "LA"), stock(registry, "LB")) == start
    assert sum((a for *_, a in variances(registry)), D(0)) == 0
    assert ledger_mismatches(registry) == []
    listed = registry.invoke("list_landed_costs", {"number": po}, ADMIN)["landed_costs"]
    assert listed[0]["reverted"] is True
    assert registry.invoke("get_purchase_order", {"number": po}, ADMIN)["landed_costs"] == "0"
    # once re-priced stock has left since, its share went with it: refused, listing why
    again = apply(registry, "add_landed_cost", number=po, amount="10.00",
                  description="freight")
    ship(registry, "LB", "2")
    shipped = registry.invoke("get_operation_log", {"tool": "fulfill_order"},
                              ADMIN)["entries"][0]["operation_id"]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=again["operation_id"])
    assert (info.value.code, info.value.field) == ("conflict", "operation_id")
    assert "LB at MAIN" in info.value.message and "revert those first" in info.value.message
    apply(registry, "revert_operation", operation_id=shipped)  # it left after: it may go
    apply(registry, "revert_operation", operation_id=again["operation_id"])
    assert (stock(registry, "LA"), stock(registry, "LB")) == start
    assert sum((a for *_, a in variances(registry)), D(0)) == 0


def test_a_shipment_that_took_a_share_is_reverted_after_the_landed_cost(
        registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "10", "10.00")])
    so = ship(registry, "LA", "4")
    shipped = registry.invoke("get_operation_log", {"tool": "fulfill_order"},
                              ADMIN)["entries"][0]["operation_id"]
    lc = apply(registry, "add_landed_cost", number=po, amount="10", description="freight")
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=shipped)
    assert "landed cost" in info.value.message and so in info.value.message
    receipt = registry.invoke("get_operation_log", {"tool": "receive_purchase_order"},
                              ADMIN)["entries"][0]["operation_id"]
    with pytest.raises(ShopfloorError) as info:  # its goods were re-priced since
        apply(registry, "revert_operation", operation_id=receipt)
    assert lc["operation_id"] in info.value.message
    apply(registry, "revert_operation", operation_id=lc["operation_id"])
    apply(registry, "revert_operation", operation_id=shipped)
    assert stock(registry, "LA") == (D(10), D(10), D(100))


def test_all_gone_is_all_expensed_and_reverts_too(registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "5", "10.00")])
    so = ship(registry, "LA", "5")
    done = apply(registry, "add_landed_cost", number=po, amount="7.50", description="duty")
    assert lines_of(done) == {"LA": (D("7.5"), D(0), D("7.5"))}
    assert variances(registry) == [("landed_cost", "sales_order", so, D("7.5"))]
    apply(registry, "revert_operation", operation_id=done["operation_id"])
    assert sum((a for *_, a in variances(registry)), D(0)) == 0


def test_goods_moved_elsewhere_take_their_share_with_them(registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "10", "10.00")])
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "LA", "quantity": "4"}])
    done = apply(registry, "add_landed_cost", number=po, amount="20", description="freight")
    assert lines_of(done) == {"LA": (D(20), D(20), D(0))}
    assert stock(registry, "LA") == (D(6), D(12), D(72))
    assert stock(registry, "LA", "SHOP") == (D(4), D(12), D(48))


def test_allocation_by_weight_and_rounding_residue_on_the_largest(registry: Registry) -> None:
    world(registry)
    apply(registry, "create_item", sku="LC", name="Item LC")
    po = received(registry, [("LA", "3", "1"), ("LB", "1", "1"), ("LC", "2", "1")])
    err = refused(registry, {"number": po, "amount": "10", "allocate_by": "weight",
                             "description": "freight"})
    assert (err.code, err.field) == ("validation_error", "allocate_by")
    assert "LA" in err.message
    apply(registry, "modify_item", sku="LA", weight="2")  # 6 kg received
    apply(registry, "modify_item", sku="LB", weight="1.5")  # 1.5 kg
    apply(registry, "modify_item", sku="LC", weight="0.75")  # 1.5 kg
    assert registry.invoke("get_item", {"sku": "LA"}, ADMIN)["weight"] == "2"
    done = apply(registry, "add_landed_cost", number=po, amount="10", allocate_by="weight",
                 description="freight")
    # 10 x 6/9 = 6.666.. -> 6.67; 10 x 1.5/9 = 1.67 twice; 10.01 - 10 = 0.01 off the largest
    assert {s: sh for s, (sh, _, _) in lines_of(done).items()} == {
        "LA": D("6.66"), "LB": D("1.67"), "LC": D("1.67")}
    assert [D(ln["base"]) for ln in done["lines"]] == [D(6), D("1.5"), D("1.5")]
    assert stock(registry, "LA") == (D(3), D("3.22"), D("9.66"))
    assert ledger_mismatches(registry) == []


def test_a_landed_cost_in_dollars_at_the_days_rate(registry: Registry) -> None:
    world(registry)
    apply(registry, "set_exchange_rate", currency="USD", rate="0.5", valid_from="2000-01-01")
    po = received(registry, [("LA", "10", "4")], supplier="Wires Inc")  # 10 @ 2.00 EUR
    err = refused(registry, {"number": po, "amount": "10", "currency": "GBP",
                             "description": "duty"})
    assert (err.code, err.field) == ("validation_error", "currency")
    err = refused(registry, {"number": po, "amount": "10", "currency": "gbp",
                             "description": "duty"})
    assert (err.code, err.field) == ("validation_error", "currency")
    done = apply(registry, "add_landed_cost", number=po, amount="10", description="freight")
    assert (done["currency"], done["rate"], done["company_amount"]) == ("USD", "0.5", "5")
    assert stock(registry, "LA") == (D(10), D("2.5"), D(25))
    done = apply(registry, "add_landed_cost", number=po, amount="5", currency="EUR",
                 description="duty")
    assert (done["currency"], done["company_amount"]) == ("EUR", "5")
    assert stock(registry, "LA") == (D(10), D(3), D(30))


def test_a_receipt_with_no_rate_on_its_day_is_refused_naming_currency(
        registry: Registry, given: Given) -> None:
    world(registry)
    apply(registry, "set_exchange_rate", currency="USD", rate="0.5", valid_from="2999-01-01")
    po = given.po({"LA": ("1", "1")}, supplier="Wires Inc")["number"]
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "receive_purchase_order", number=po)
    assert (info.value.code, info.value.field) == ("validation_error", "currency")
    assert snapshot(registry) == before


def test_one_receipt_of_several_by_its_operation_id(registry: Registry, given: Given) -> None:
    world(registry)
    po = given.po({"LA": ("10", "10")})["number"]
    first = apply(registry, "receive_purchase_order", number=po,
                  lines=[{"sku": "LA", "quantity": "4"}])
    ship(registry, "LA", "2")
    apply(registry, "receive_purchase_order", number=po)
    # MAIN: 2 of the first receipt's 4 and all 6 of the second, 80.00 of stock
    assert stock(registry, "LA") == (D(8), D(10), D(80))
    done = apply(registry, "add_landed_cost", operation_id=first["operation_id"],
                 amount="8", description="courier")
    assert done["purchase_order"] == po and done["receipt"] == first["operation_id"]
    # 8 over the first receipt's 4 units: 2 a unit; 2 units gone before the second came
    assert lines_of(done) == {"LA": (D(8), D(4), D(4))}
    assert stock(registry, "LA") == (D(8), D("10.5"), D(84))
    err = refused(registry, {"operation_id": first["operation_id"], "number": "PO-99999",
                             "amount": "1", "description": "x"})
    assert (err.code, err.field) == ("validation_error", "operation_id")


BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"amount": "10", "description": "x"}, "number", "validation_error"),
    ({"number": "PO-99999", "amount": "10", "description": "x"}, "number", "not_found"),
    ({"number": "{po}", "amount": "0", "description": "x"}, "amount", "validation_error"),
    ({"number": "{po}", "amount": "-5", "description": "x"}, "amount", "validation_error"),
    ({"number": "{po}", "amount": "10"}, "description", "validation_error"),
    ({"number": "{po}", "amount": "10", "description": "x", "allocate_by": "volume"},
     "allocate_by", "validation_error"),
    ({"number": "{open}", "amount": "10", "description": "x"}, "number", "conflict"),
    ({"operation_id": "no-such-op", "amount": "10", "description": "x"}, "operation_id",
     "not_found"),
    ({"operation_id": "{shipped}", "amount": "10", "description": "x"}, "operation_id",
     "validation_error"),
]


@pytest.mark.parametrize(("args", "field", "code"), BAD,
                         ids=[f"{f}-{i}" for i, (_, f, _) in enumerate(BAD)])
def test_bad_input_is_coded_names_the_field_and_writes_nothing(
        registry: Registry, args: dict[str, Any], field: str, code: str) -> None:
    world(registry)
    refs = {"po": received(registry, [("LA", "2", "1")]),
            "open": apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
                          lines=[{"sku": "LB", "quantity": "1"}])["number"]}
    ship(registry, "LA", "1")
    refs["shipped"] = registry.invoke("get_operation_log", {"tool": "fulfill_order"},
                                      ADMIN)["entries"][0]["operation_id"]
    filled = {k: v.format(**refs) if isinstance(v, str) else v for k, v in args.items()}
    err = refused(registry, filled)
    assert (err.code, err.field) == (code, field), err.to_payload()


def test_a_reverted_receipt_is_nothing_received(registry: Registry) -> None:
    world(registry)
    po = received(registry, [("LA", "2", "1")])
    receipt = registry.invoke("get_operation_log", {"tool": "receive_purchase_order"},
                              ADMIN)["entries"][0]["operation_id"]
    apply(registry, "revert_operation", operation_id=receipt)
    err = refused(registry, {"number": po, "amount": "1", "description": "x"})
    assert (err.code, err.field) == ("conflict", "number")
    err = refused(registry, {"operation_id": receipt, "amount": "1", "description": "x"})
    assert (err.code, err.field) == ("validation_error", "operation_id")
    with registry.store.reading() as s:
        assert s.execute(select(func.count()).select_from(Variance)).scalar() == 0
