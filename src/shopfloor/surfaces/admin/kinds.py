"""The kinds of record more than one admin page shows, said once: each order kind's URL,
tools, status words and partner, and the job kinds that are MRP runs. Kept outside
`pages/` so that the pages share them without importing one another."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shopfloor.kernel.statuses import BY_KIND, Vocabulary

MRP_KINDS = ("mrp", "run_mrp")


@dataclass(frozen=True)
class OrderKind:
    slug: str
    title: str
    list_tool: str
    get_tool: str
    vocabulary: Vocabulary
    partner: str

    @property
    def statuses(self) -> tuple[str, ...]:
        return self.vocabulary.words

    @property
    def open_statuses(self) -> tuple[str, ...]:
        return self.vocabulary.open


ORDERS = {
    "purchase-orders": OrderKind("purchase-orders", "Purchase orders", "list_purchase_orders",
                                 "get_purchase_order", BY_KIND["purchase_order"], "Supplier"),
    "sales-orders": OrderKind("sales-orders", "Sales orders", "list_sales_orders",
                              "get_sales_order", BY_KIND["sales_order"], "Customer"),
    "manufacturing-orders": OrderKind("manufacturing-orders", "Manufacturing orders",
                                      "list_manufacturing_orders", "get_manufacturing_order",
                                      BY_KIND["manufacturing_order"], "Product"),
}


def outstanding(order: dict[str, Any]) -> list[dict[str, str]]:
    """An order's lines still to receive or ship (what Receive and Ship pre-fill)."""
    rows = []
    for line in order.get("lines") or []:
        left = Decimal(str(line.get("quantity", 0))) - Decimal(str(line.get("done_quantity", 0)))
        if left > 0:
            rows.append({"sku": line["sku"], "quantity": format(left.normalize(), "f")})
    return rows


def left_to_make(order: dict[str, Any]) -> str:
    """A manufacturing order's quantity still to complete (what Complete pre-fills)."""
    left = Decimal(str(order.get("quantity", 0))) - Decimal(
        str(order.get("completed_quantity", 0))) - Decimal(
        str(order.get("scrapped_quantity", 0)))
    return format(left.normalize(), "f")
