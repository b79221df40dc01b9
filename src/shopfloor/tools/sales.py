"""Sales orders: take, change, cancel, fulfil, and read."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import reverts
from shopfloor.domain.sales import orders
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import said
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import SalesOrder
from shopfloor.tools.fields import (
    Amount,
    Day,
    Key,
    Limit,
    Page,
    PartnerName,
    Reference,
    RowCursor,
    Text,
)
from shopfloor.tools.order_fields import (
    ByNumber,
    ByNumberWrite,
    LineHead,
    Lines,
    MoveLineIn,
    OrderHead,
    OrderKind,
    OrderLineIn,
    listed,
    remarks,
    some_lines,
    total_said,
)
from shopfloor.tools.refs import NumberOrId


# -- what a sales order reads as, on every surface. Beside the tools that take it, so that
# a field added to a line is added in one place.
class SalesLineOut(LineHead):
    returned_quantity: Amount
    unit: str  # the item's


class SalesOrderOut(OrderHead):
    lines: list[SalesLineOut]


def sales_order_out(so: SalesOrder) -> SalesOrderOut:
    lines = [SalesLineOut(sku=ln.item.sku, quantity=ln.quantity, unit_price=ln.unit_price,
                          done_quantity=ln.fulfilled_quantity, unit=ln.item.uom,
                          returned_quantity=ln.returned_quantity) for ln in so.lines]
    return SalesOrderOut(
        id=so.id, number=so.number, status=so.status, partner=so.customer.name,
        location=so.location.code, due_date=so.due_date, created_at=so.created_at,
        total=sum((ln.quantity * ln.unit_price for ln in so.lines), Decimal(0)),
        currency=currencies.of_document(so), notes=so.notes, reference=so.reference,
        lines=lines)


tools = Toolset("sales")

SoStatus = Literal["open", "partially_fulfilled", "fulfilled", "closed", "cancelled"]


class SalesOrderPage(Page):
    orders: list[SalesOrderOut]


SALE = OrderKind(SalesOrder, "sales order", lookup.sales_order)
locked_so = SALE.locked


class ListSalesOrders(Request):
    status: SoStatus | None = None
    customer: PartnerName | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


@tools.read("list_sales_orders", everyday=True,
            title="List sales orders", response=SalesOrderPage,
            description="Sales orders, newest first; filter by status or customer.")
def list_sales_orders(op: Op, req: ListSalesOrders) -> SalesOrderPage:
    customer = SalesOrder.customer_id == lookup.customer(op, req.customer).id \
        if req.customer else None
    page, next_cursor = listed(op, SalesOrder, req, customer, sales_order_out)
    return SalesOrderPage(orders=page, next_cursor=next_cursor)


@tools.read("get_sales_order", everyday=True,
            title="Get sales order", response=SalesOrderOut,
            description="One sales order by number or id, with its lines.")
def get_sales_order(op: Op, req: ByNumber) -> SalesOrderOut:
    return sales_order_out(SALE.found(op, req))


class CreateSalesOrder(WriteRequest):
    customer: PartnerName
    location: Key = Field(description="ships from here")
    number: Key | None = Field(None, description="default: next SO-number")
    due_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    lines: list[OrderLineIn] = Lines


@tools.write("create_sales_order", everyday=True,
             title="Create sales order", response=SalesOrderOut,
             description="Take a customer order; its quantities are committed at the location.",
             destructive=False,
             undo=Undo.using(reverts.created("sales_order")))
def create_sales_order(op: Op, req: CreateSalesOrder) -> Done[SalesOrderOut]:
    so = orders.create_sales_order(op, req.customer, req.location,
                                   [ln.spec() for ln in req.lines], number=req.number,
                                   due_date=req.due_date, notes=req.notes)
    remark(op, "sales_order", so, reference=req.reference)
    doc = sales_order_out(so)
    return Done(f"Create sales order {so.number} for {req.customer}: {total_said(doc)}", doc)


class ModifySalesOrder(NumberOrId, WriteRequest):
    customer: PartnerName | None = None
    location: Key | None = None
    due_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    clear_notes: bool = False
    clear_reference: bool = False
    lines: list[OrderLineIn] | None = some_lines("replace the lines")


@tools.write("modify_sales_order", title="Modify sales order", response=SalesOrderOut,
             role=Role.admin, description="Change an open sales order; lines replace all.",
             destructive=True)
def modify_sales_order(op: Op, req: ModifySalesOrder) -> Done[SalesOrderOut]:
    so = orders.modify_sales_order(op, locked_so(op, req), customer=req.customer,
                                   location=req.location, due_date=req.due_date, notes=None,
                                   lines=[ln.spec() for ln in req.lines] if req.lines else None)
    remark(op, "sales_order", so, **remarks(req))
    return Done(f"Modify sales order {so.number}", sales_order_out(so))


@tools.write("delete_sales_order", title="Cancel sales order", response=SalesOrderOut,
             role=Role.admin, description="Cancel an open sales order and release its "
                                          "committed stock. It is kept, as cancelled.",
             destructive=True,
             undo=Undo.using(reverts.cancelled("sales_order")))
def delete_sales_order(op: Op, req: ByNumberWrite) -> Done[SalesOrderOut]:
    so = orders.cancel_sales_order(op, locked_so(op, req))
    return Done(f"Cancel sales order {so.number}", sales_order_out(so))


class FulfillOrder(NumberOrId, WriteRequest):
    lines: list[MoveLineIn] | None = some_lines("omit to ship all outstanding")


@tools.write("fulfill_order", everyday=True,
             title="Fulfil sales order", response=SalesOrderOut,
             description="Ship a sales order, in part or in full, from its location.",
             destructive=True,
             undo=Undo.using(reverts.so_shipment),
             subject="the sales order fulfilment")
def fulfill_order(op: Op, req: FulfillOrder) -> Done[SalesOrderOut]:
    specs = [ln.spec() for ln in req.lines] if req.lines else None
    shipped = orders.fulfill_sales_order(op, locked_so(op, req), specs)
    so = shipped.document
    return Done(f"Ship {len(shipped.lines)} line(s) of {so.number}: now {said(so.status)}",
                sales_order_out(so))
