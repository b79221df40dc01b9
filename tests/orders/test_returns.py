"""Returns by hand: a customer return restocked at the cost it was shipped at, quarantined
or scrapped; a supplier return leaving at its received cost; the orders show what came
back; both revert."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.numbers import cost
from shopfloor.registry.registry import Registry
from tests.corrections.test_revert import revert, stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, snapshot


def _world(reg: Registry) -> None:
    """M1: 10 @ 2 opening; PO 10 @ 5 received -> 20 @ 3.5; SO ships 6 @ 3.5 -> 14;
    found 6 @ 1 -> (14 x 3.5 + 6) / 20 = 2.75."""
    given = Given(reg).company()
    given.location("QUAR", "Quarantine")
    given.stock({"M1": ("10", "2")})
    given.po({"M1": ("10", "5")}, receive=True)
    given.so({"M1": ("6", "9")}, fulfil=True)
    given.stock({"M1": ("6", "1")}, reason="found")
    assert stock(reg, "M1") == (D(20), D(0), D("2.75"))


def test_customer_return_restocks_at_its_shipped_cost(registry: Registry) -> None:
    _world(registry)
    lines = [{"sku": "M1", "quantity": "2", "disposition": "restock"}]
    preview = registry.invoke("create_customer_return", {
        "number": "SO-00001", "reason": "wrong size", "lines": lines}, ADMIN)
    assert preview["document"]["lines"][0]["unit_cost"] == "3.5"
    done = registry.invoke("create_customer_return", preview["apply"]["arguments"], ADMIN)
    assert done["number"].startswith("RET-") and done["value"] == "7"
    # a line in the item's own unit names it (a figure alone would not say what it counts)
    assert "2 pcs M1" in done["summary"], done["summary"]
    assert [(ln["line_quantity"], ln["line_unit"], ln["quantity_text"])
            for ln in done["lines"]] == [(None, None, "2 pcs")]
    # (20 x 2.75 + 2 x 3.5) / 22 = 62 / 22
    assert stock(registry, "M1") == (D(22), D(0), cost(D(62) / 22))
    so = registry.invoke("get_sales_order", {"number": "SO-00001"}, ADMIN)
    assert (so["lines"][0]["done_quantity"], so["lines"][0]["returned_quantity"]) == ("6", "2")

    done = apply(registry, "create_customer_return", number="SO-00001", reason="damaged",
                 quarantine_location="QUAR", lines=[
                     {"sku": "M1", "quantity": "1", "disposition": "quarantine"}])
    assert stock(registry, "M1", "QUAR") == (D(1), D(0), D("3.5"))
    before = stock(registry, "M1")
    done = apply(registry, "create_customer_return", number="SO-00001", reason="broken",
                 lines=[{"sku": "M1", "quantity": "1", "disposition": "scrap"}])
    assert done["lines"][0]["location"] is None and done["value"] == "3.5"
    assert stock(registry, "M1") == before  # scrapped goods never re-enter stock
    so = registry.invoke("get_sales_order", {"number": "SO-00001"}, ADMIN)
    assert so["lines"][0]["returned_quantity"] == "4"
    assert not ledger_mismatches(registry)

    unchanged = snapshot(registry)
    bad = [({"lines": [{"sku": "M1", "quantity": "3"}]}, "lines[0].quantity"),
           ({"lines": [{"sku": "M2", "quantity": "1"}]}, "lines[0].sku"),
           ({"lines": [{"sku": "M1", "quantity": "1", "disposition": "quarantine"}]},
            "quarantine_location"),
           ({"lines": [{"sku": "M1", "quantity": "1", "disposition": "quarantine"}],
             "quarantine_location": "MAIN"}, "quarantine_location"),
           ({"lines": [{"sku": "M1", "quantity": "1", "disposition": "lost"}]},
            "lines[0].disposition")]
    for args, field in bad:
        with pytest.raises(ShopfloorError) as info:
            apply(registry, "create_customer_return", number="SO-00001", reason="x", **args)
        assert (info.value.code, info.value.field) == ("validation_error", field), args
    assert snapshot(registry) == unchanged


def test_supplier_return_leaves_at_its_received_cost_and_both_revert(
        registry: Registry) -> None:
    _world(registry)
    back = apply(registry, "create_customer_return", number="SO-00001", reason="wrong size",
                 lines=[{"sku": "M1", "quantity": "2"}])
    avg = cost(D(62) / 22)
    sent = apply(registry, "create_supplier_return", number="PO-00001", reason="faulty",
                 lines=[{"sku": "M1", "quantity": "3"}])
    assert sent["lines"][0]["unit_cost"] == "5" and sent["value"] == "15"
    # 3 leave at the 5 they came in at; the 19 that stay keep the rest of the value
    assert stock(registry, "M1") == (D(19), D(0), cost((22 * avg - 3 * 5) / 19))
    po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
    assert (po["lines"][0]["done_quantity"], po["lines"][0]["returned_quantity"]) == ("10", "3")
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "create_supplier_return", number="PO-00001", reason="more",
              lines=[{"sku": "M1", "quantity": "8"}])
    assert (info.value.code, info.value.field) == ("validation_error", "lines[0].quantity")

    # the customer return's stock has been followed by the supplier return's: that first
    with pytest.raises(ShopfloorError) as info:
        revert(registry, back)
    assert info.value.code == "conflict" and "RET-00002" in info.value.message
    revert(registry, sent)
    assert stock(registry, "M1") == (D(22), D(0), avg)
    revert(registry, back)
    assert stock(registry, "M1") == (D(20), D(0), D("2.75"))
    po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
    so = registry.invoke("get_sales_order", {"number": "SO-00001"}, ADMIN)
    assert po["lines"][0]["returned_quantity"] == so["lines"][0]["returned_quantity"] == "0"
    # a shipment that goods came back against cannot be reverted until the return is
    back = apply(registry, "create_customer_return", number="SO-00001", reason="again",
                 lines=[{"sku": "M1", "quantity": "6", "disposition": "scrap"}])
    shipment = registry.invoke("get_operation_log", {"tool": "fulfill_order"},
                               ADMIN)["entries"][0]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "revert_operation", operation_id=shipment["operation_id"])
    assert info.value.code == "conflict" and "came back" in info.value.message
    assert not ledger_mismatches(registry)
