"""Each kind of order reads in its own shape: a purchase line carries its own date and its
supplier's pack, a sales line neither (issue 33), in the answer and in the schema every
surface is served."""

from __future__ import annotations

import json

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN

SALES_LINE = {"sku", "quantity", "unit_price", "done_quantity", "returned_quantity", "unit"}


def test_a_sales_line_reads_without_a_purchase_lines_fields(registry: Registry,
                                                            given: Given) -> None:
    given.company()
    given.po({"M1": ("3", "2")}, expected_date="2030-01-02")
    given.so({"M1": ("2", "5")})
    po = registry.invoke("list_purchase_orders", {}, ADMIN)["orders"][0]
    so = registry.invoke("get_sales_order", {"number": registry.invoke(
        "list_sales_orders", {}, ADMIN)["orders"][0]["number"]}, ADMIN)
    assert set(so["lines"][0]) == SALES_LINE
    assert so["lines"][0]["unit"] == "pcs"
    assert po["lines"][0]["expected_date"] == "2030-01-02"
    for name, kind_of_line in (("get_purchase_order", True), ("get_sales_order", False)):
        schema = json.dumps(registry.get(name).output_schema)
        assert ('"expected_date"' in schema, '"pack"' in schema) == (kind_of_line,) * 2, name
