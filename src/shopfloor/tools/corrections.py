"""Fixing mistakes without editing history: close short, revert an operation, correct a
receipt, a shipment or a manufacturing order. Each is a previewed write whose apply adds
reversing and new ledger rows in one transaction."""

from __future__ import annotations

from pydantic import Field

from shopfloor.domain import closing
from shopfloor.domain.context import Op
from shopfloor.registry.actor import Role
from shopfloor.registry.tool import Done, Toolset, WriteRequest
from shopfloor.store.tables import PurchaseOrder, SalesOrder
from shopfloor.tools.fields import Text
from shopfloor.tools.refs import NumberOrId, number_of
from shopfloor.tools.views import OrderOut, purchase_order_out, sales_order_out

tools = Toolset()


class CloseOrder(NumberOrId, WriteRequest):
    reason: Text | None = Field(None, description="kept in the order's notes")


def _dropped(op: Op) -> int:
    return sum(1 for c in op.changes if c.field.endswith((" on order", " outstanding")))


@tools.write("close_purchase_order", title="Close purchase order short", response=OrderOut,
             role=Role.admin,
             description="Close a partly received purchase order with what it has: the rest "
                         "is no longer on order (MRP and low stock stop counting it).")
def close_purchase_order(op: Op, req: CloseOrder) -> Done[OrderOut]:
    number = number_of(op, PurchaseOrder, req, "purchase order")
    po = closing.close_purchase_order(op, number, req.reason)
    return Done(closing.describe("purchase order", number, _dropped(op)),
                purchase_order_out(po))


@tools.write("close_sales_order", title="Close sales order short", response=OrderOut,
             role=Role.admin,
             description="Close a partly shipped sales order with what it shipped: the rest "
                         "is released from committed stock.")
def close_sales_order(op: Op, req: CloseOrder) -> Done[OrderOut]:
    number = number_of(op, SalesOrder, req, "sales order")
    so = closing.close_sales_order(op, number, req.reason)
    return Done(closing.describe("sales order", number, _dropped(op)), sales_order_out(so))
