"""Replacing an order's lines keeps what already happened to them: received or shipped,
and returned. (The admin's edit form sends a changed line table whole, so this path is
the one an office edit takes.)"""

from __future__ import annotations

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply


def test_new_lines_preview_and_keep_the_returned_quantity(registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": "10", "M2": "5"})
    apply(registry, "receive_purchase_order", number=po["number"],
          lines=[{"sku": "M1", "quantity": "4"}])
    apply(registry, "create_supplier_return", number=po["number"], reason="cracked",
          lines=[{"sku": "M1", "quantity": "1"}])
    lines = [{"sku": "M1", "quantity": "10"}, {"sku": "M2", "quantity": "6"}]
    shown = registry.invoke("modify_purchase_order",
                            {"number": po["number"], "lines": lines}, ADMIN)
    assert [ln["returned_quantity"] for ln in shown["document"]["lines"]] == ["1", "0"]
    apply(registry, "modify_purchase_order", number=po["number"], lines=lines)
    got = registry.invoke("get_purchase_order", {"number": po["number"]}, ADMIN)["lines"]
    assert [(ln["quantity"], ln["done_quantity"], ln["returned_quantity"]) for ln in got] == [
        ("10", "4", "1"), ("6", "0", "0")]

    given.stock({"P1": ("9", "2")})
    so = given.so({"P1": "5"})
    apply(registry, "fulfill_order", number=so["number"], lines=[{"sku": "P1", "quantity": "3"}])
    apply(registry, "create_customer_return", number=so["number"], reason="wrong size",
          lines=[{"sku": "P1", "quantity": "1"}])
    apply(registry, "modify_sales_order", number=so["number"],
          lines=[{"sku": "P1", "quantity": "4"}])
    [line] = registry.invoke("get_sales_order", {"number": so["number"]}, ADMIN)["lines"]
    assert (line["quantity"], line["done_quantity"], line["returned_quantity"]) == ("4", "3", "1")
