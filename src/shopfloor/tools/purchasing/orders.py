"""Purchase and sales orders: create, change, cancel, receive, fulfil, and read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Literal, TypeVar

from pydantic import Field
from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import landed_costs, reverts
from shopfloor.domain.orders import documents as orders
from shopfloor.domain.orders import purchase_units as units
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import said
from shopfloor.kernel.text import fmt, money
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import PurchaseOrder, SalesOrder
from shopfloor.tools.fields import (
    Amount,
    Day,
    Key,
    Limit,
    Money,
    Out,
    Page,
    PartnerName,
    Quantity,
    Reference,
    RowCursor,
    Text,
    Uom,
    paged,
)
from shopfloor.tools.lot_fields import ExpiryChange, IncomingLine, TrackedLine
from shopfloor.tools.planning import pegs_out
from shopfloor.tools.refs import NumberOrId, number_of
from shopfloor.tools.views import PegOut


# -- what an order reads as, on every surface: a purchase or sales order and its lines.
# Beside the tools that take them, so that a field added to a line is added in one place.
class LineOut(Out):
    sku: str
    quantity: Amount
    unit_price: Amount
    done_quantity: Amount = Field(description="received or fulfilled so far")
    expected_date: date | None = None  # a purchase line's own date, else its order's
    returned_quantity: Amount
    unit: str  # a purchase line's supplier unit, else the item's
    pack: str | None = Field(None, description="stock units in one unit, e.g. 3 pcs")


class OrderOut(Out):
    id: int
    number: str
    status: str
    partner: str
    location: str
    due_date: date | None = Field(description="expected (purchase) or due (sales) date")
    created_at: datetime
    total: Amount
    currency: str
    notes: str | None = None
    reference: str | None = Field(None, description="the partner's number for it")
    lines: list[LineOut]


class OrderDetailOut(OrderOut):
    pegs: list[PegOut] = Field(description="the needs MRP placed it for")
    landed_costs: Amount = Field(description="their total, company currency")


def purchase_order_out(po: PurchaseOrder) -> OrderOut:
    """Quantities and prices in each line's unit (the supplier's, where it has one)."""
    lines = [LineOut(sku=ln.item.sku, quantity=ordered, unit_price=ln.unit_price,
                     done_quantity=got, expected_date=ln.expected_date or po.expected_date,
                     returned_quantity=back, unit=ln.unit or ln.item.uom,
                     pack=f"{fmt(ln.units_per_unit)} {ln.item.uom}"
                     if ln.unit and ln.units_per_unit else None)
             for ln in po.lines for ordered, got, back in [units.shown(ln)]]
    return OrderOut(id=po.id, number=po.number, status=po.status, partner=po.supplier.name,
                    location=po.location.code, due_date=po.expected_date, created_at=po.created_at,
                    total=sum((ln.quantity * ln.unit_price for ln in lines), Decimal(0)),
                    currency=currencies.of_document(po), notes=po.notes,
                    reference=po.reference, lines=lines)


def sales_order_out(so: SalesOrder) -> OrderOut:
    lines = [LineOut(sku=ln.item.sku, quantity=ln.quantity, unit_price=ln.unit_price,
                     done_quantity=ln.fulfilled_quantity, unit=ln.item.uom,
                     returned_quantity=ln.returned_quantity) for ln in so.lines]
    return OrderOut(id=so.id, number=so.number, status=so.status, partner=so.customer.name,
                    location=so.location.code, due_date=so.due_date, created_at=so.created_at,
                    total=sum((ln.quantity * ln.unit_price for ln in so.lines), Decimal(0)),
                    currency=currencies.of_document(so), notes=so.notes,
                    reference=so.reference, lines=lines)


tools = Toolset("purchasing")
D = TypeVar("D", PurchaseOrder, SalesOrder)

PoStatus = Literal["draft", "open", "partially_received", "received", "closed", "cancelled"]
SoStatus = Literal["open", "partially_fulfilled", "fulfilled", "closed", "cancelled"]


class OrderLineIn(Request):
    sku: Key
    quantity: Quantity
    unit_price: Money | None = None  # default: the item's (a purchase unit's: its break)

    def spec(self) -> orders.LineSpec:
        return orders.LineSpec(self.sku, self.quantity, self.unit_price)


class PurchaseLineIn(OrderLineIn):
    expected_date: Day | None = Field(None, description="default: the order's")
    unit: Uom | None = None

    def spec(self) -> orders.LineSpec:
        return orders.LineSpec(self.sku, self.quantity, self.unit_price,
                               expected_date=self.expected_date, unit=self.unit)


class MoveLineIn(TrackedLine):
    sku: Key
    quantity: Quantity

    def spec(self) -> orders.LineSpec:
        return orders.LineSpec(self.sku, self.quantity, None, self.lot_specs(),
                               self.serial_list(), self.allow_expired)


Lines = Field(min_length=1, max_length=1000)


class OrderPage(Page):
    orders: list[OrderOut]


class ByNumber(NumberOrId, Request):
    pass


class ByNumberWrite(NumberOrId, WriteRequest):
    pass


def _page(rows: Sequence[D], limit: int, out: Callable[[D], OrderOut]) -> OrderPage:
    page, next_cursor = paged(rows, limit, lambda r: str(r.id))
    return OrderPage(orders=[out(r) for r in page], next_cursor=next_cursor)


def _po(op: Op, req: NumberOrId) -> str:
    return number_of(op, PurchaseOrder, req, "purchase order")


def _so(op: Op, req: NumberOrId) -> str:
    return number_of(op, SalesOrder, req, "sales order")


def _total(doc: OrderOut) -> str:
    lines = f"{len(doc.lines)} line{'s' * (len(doc.lines) != 1)}"
    return f"{lines}, total {money(doc.total, doc.currency)}"


def _remarks(req: ModifyPurchaseOrder | ModifySalesOrder) -> dict[str, str | None]:
    """Notes and reference as the edit gives them: a clear flag is an empty text."""
    return {"notes": "" if req.clear_notes else req.notes,
            "reference": "" if req.clear_reference else req.reference}


# -- purchasing ------------------------------------------------------------------------
class ListPurchaseOrders(Request):
    status: PoStatus | None = None
    supplier: PartnerName | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


@tools.read("list_purchase_orders", everyday=True, title="List purchase orders", response=OrderPage,
            description="Purchase orders, newest first; filter by status or supplier.")
def list_purchase_orders(op: Op, req: ListPurchaseOrders) -> OrderPage:
    stmt = select(PurchaseOrder).order_by(PurchaseOrder.id.desc()).limit(req.limit + 1)
    if req.status:
        stmt = stmt.where(PurchaseOrder.status == req.status)
    if req.supplier:
        stmt = stmt.where(PurchaseOrder.supplier_id == lookup.supplier(op, req.supplier).id)
    if req.cursor:
        stmt = stmt.where(PurchaseOrder.id < int(req.cursor))
    return _page(list(op.session.scalars(stmt).unique()), req.limit, purchase_order_out)


@tools.read("get_purchase_order", everyday=True,
            title="Get purchase order", response=OrderDetailOut,
            description="One purchase order by number or id, with its lines.")
def get_purchase_order(op: Op, req: ByNumber) -> OrderDetailOut:
    po = lookup.purchase_order(op, _po(op, req))
    return OrderDetailOut(**dict(purchase_order_out(po)), pegs=pegs_out(op, po=po.id),
                          landed_costs=landed_costs.totals(op, po.id))


class CreatePurchaseOrder(WriteRequest):
    supplier: PartnerName
    location: Key = Field(description="where it will be received")
    number: Key | None = Field(None, description="default: next PO-number")
    expected_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    status: Literal["draft", "open"] = "open"
    lines: list[PurchaseLineIn] = Lines


@tools.write("create_purchase_order", everyday=True,
             title="Create purchase order", response=OrderOut,
             description="Order items from a supplier, for receipt at a location.",
             destructive=False,
             undo=Undo.using(reverts.created("purchase_order")))
def create_purchase_order(op: Op, req: CreatePurchaseOrder) -> Done[OrderOut]:
    po = orders.create_purchase_order(
        op, req.supplier, req.location, [ln.spec() for ln in req.lines], number=req.number,
        expected_date=req.expected_date, notes=req.notes, status=req.status)
    remark(op, "purchase_order", po, reference=req.reference)
    doc = purchase_order_out(po)
    return Done(f"Create purchase order {po.number} from {req.supplier}: {_total(doc)}", doc)


class ModifyPurchaseOrder(NumberOrId, WriteRequest):
    supplier: PartnerName | None = None
    location: Key | None = None
    expected_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    clear_notes: bool = False
    clear_reference: bool = False
    status: Literal["open"] | None = Field(None, description="open a draft")
    lines: list[PurchaseLineIn] | None = Field(None, min_length=1, max_length=1000,
                                            description="replace the lines")


@tools.write("modify_purchase_order", title="Modify purchase order", response=OrderOut,
             role=Role.admin, description="Change an open purchase order; lines replace all.",
             destructive=True)
def modify_purchase_order(op: Op, req: ModifyPurchaseOrder) -> Done[OrderOut]:
    po = orders.modify_purchase_order(
        op, _po(op, req), supplier=req.supplier, location=req.location,
        expected_date=req.expected_date, notes=None, status=req.status,
        lines=[ln.spec() for ln in req.lines] if req.lines else None)
    remark(op, "purchase_order", po, **_remarks(req))
    return Done(f"Modify purchase order {po.number}", purchase_order_out(po))


@tools.write("delete_purchase_order", title="Cancel purchase order", response=OrderOut,
             role=Role.admin, description="Cancel a purchase order with nothing received yet. "
                                          "It is kept, as cancelled.",
             destructive=True,
             undo=Undo.using(reverts.cancelled("purchase_order")))
def delete_purchase_order(op: Op, req: ByNumberWrite) -> Done[OrderOut]:
    po = orders.cancel_purchase_order(op, _po(op, req))
    return Done(f"Cancel purchase order {po.number}", purchase_order_out(po))


class ReceiveLineIn(IncomingLine, MoveLineIn):
    pass


class ReceivePurchaseOrder(NumberOrId, ExpiryChange, WriteRequest):
    lines: list[ReceiveLineIn] | None = Field(None, min_length=1, max_length=1000,
                                           description="omit to receive all outstanding")
    batch: Key | None = Field(None, description="one lot for every lot-tracked line "
                              "naming none")
    expiry: Day | None = Field(None, description="expiry of lots this creates")


@tools.write("receive_purchase_order", everyday=True,
             title="Receive purchase order", response=OrderOut,
             description="Book goods in from a purchase order, in part or in full, in its "
                         "units, at its prices.",
             destructive=True,
             undo=Undo.using(reverts.po_receipt))
def receive_purchase_order(op: Op, req: ReceivePurchaseOrder) -> Done[OrderOut]:
    specs = [ln.spec() for ln in req.lines] if req.lines else None
    po = orders.receive_purchase_order(op, _po(op, req), specs, req.batch, req.expiry,
                                       req.change_expiry)
    moved = sum(1 for c in op.changes if c.field.endswith(" received"))
    timing = [f"{n} {code}" for code in ("late", "early")
              if (n := sum(1 for w in op.warnings if w.code == code))]
    return Done(f"Receive {moved} line(s) of {po.number}"
                + (f" ({', '.join(timing)})" if timing else "")
                + f": now {said(po.status)}", purchase_order_out(po))


# -- sales -----------------------------------------------------------------------------
class ListSalesOrders(Request):
    status: SoStatus | None = None
    customer: PartnerName | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


@tools.read("list_sales_orders", toolset="sales", everyday=True,
            title="List sales orders", response=OrderPage,
            description="Sales orders, newest first; filter by status or customer.")
def list_sales_orders(op: Op, req: ListSalesOrders) -> OrderPage:
    stmt = select(SalesOrder).order_by(SalesOrder.id.desc()).limit(req.limit + 1)
    if req.status:
        stmt = stmt.where(SalesOrder.status == req.status)
    if req.customer:
        stmt = stmt.where(SalesOrder.customer_id == lookup.customer(op, req.customer).id)
    if req.cursor:
        stmt = stmt.where(SalesOrder.id < int(req.cursor))
    return _page(list(op.session.scalars(stmt).unique()), req.limit, sales_order_out)


@tools.read("get_sales_order", toolset="sales", everyday=True,
            title="Get sales order", response=OrderOut,
            description="One sales order by number or id, with its lines.")
def get_sales_order(op: Op, req: ByNumber) -> OrderOut:
    return sales_order_out(lookup.sales_order(op, _so(op, req)))


class CreateSalesOrder(WriteRequest):
    customer: PartnerName
    location: Key = Field(description="ships from here")
    number: Key | None = Field(None, description="default: next SO-number")
    due_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    lines: list[OrderLineIn] = Lines


@tools.write("create_sales_order", toolset="sales", everyday=True,
             title="Create sales order", response=OrderOut,
             description="Take a customer order; its quantities are committed at the location.",
             destructive=False,
             undo=Undo.using(reverts.created("sales_order")))
def create_sales_order(op: Op, req: CreateSalesOrder) -> Done[OrderOut]:
    so = orders.create_sales_order(op, req.customer, req.location,
                                   [ln.spec() for ln in req.lines], number=req.number,
                                   due_date=req.due_date, notes=req.notes)
    remark(op, "sales_order", so, reference=req.reference)
    doc = sales_order_out(so)
    return Done(f"Create sales order {so.number} for {req.customer}: {_total(doc)}", doc)


class ModifySalesOrder(NumberOrId, WriteRequest):
    customer: PartnerName | None = None
    location: Key | None = None
    due_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    clear_notes: bool = False
    clear_reference: bool = False
    lines: list[OrderLineIn] | None = Field(None, min_length=1, max_length=1000,
                                            description="replace the lines")


@tools.write("modify_sales_order", toolset="sales", title="Modify sales order", response=OrderOut,
             role=Role.admin, description="Change an open sales order; lines replace all.",
             destructive=True)
def modify_sales_order(op: Op, req: ModifySalesOrder) -> Done[OrderOut]:
    so = orders.modify_sales_order(op, _so(op, req), customer=req.customer,
                                   location=req.location, due_date=req.due_date, notes=None,
                                   lines=[ln.spec() for ln in req.lines] if req.lines else None)
    remark(op, "sales_order", so, **_remarks(req))
    return Done(f"Modify sales order {so.number}", sales_order_out(so))


@tools.write("delete_sales_order", toolset="sales", title="Cancel sales order", response=OrderOut,
             role=Role.admin, description="Cancel an open sales order and release its "
                                          "committed stock. It is kept, as cancelled.",
             destructive=True,
             undo=Undo.using(reverts.cancelled("sales_order")))
def delete_sales_order(op: Op, req: ByNumberWrite) -> Done[OrderOut]:
    so = orders.cancel_sales_order(op, _so(op, req))
    return Done(f"Cancel sales order {so.number}", sales_order_out(so))


class FulfillOrder(NumberOrId, WriteRequest):
    lines: list[MoveLineIn] | None = Field(None, min_length=1, max_length=1000,
                                           description="omit to ship all outstanding")


@tools.write("fulfill_order", toolset="sales", everyday=True,
             title="Fulfil sales order", response=OrderOut,
             description="Ship a sales order, in part or in full, from its location.",
             destructive=True,
             undo=Undo.using(reverts.so_shipment),
             subject="the sales order fulfilment")
def fulfill_order(op: Op, req: FulfillOrder) -> Done[OrderOut]:
    specs = [ln.spec() for ln in req.lines] if req.lines else None
    so = orders.fulfill_sales_order(op, _so(op, req), specs)
    moved = sum(1 for c in op.changes if c.field.endswith(" shipped"))
    return Done(f"Ship {moved} line(s) of {so.number}: now {said(so.status)}", sales_order_out(so))
