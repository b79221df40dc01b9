"""Purchase orders: create, change, cancel, receive, and read."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import Field

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import landed_costs, reverts
from shopfloor.domain.purchasing import orders, units
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import said
from shopfloor.kernel.text import fmt
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import PurchaseOrder
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
    Uom,
)
from shopfloor.tools.lot_fields import ExpiryChange, IncomingLine
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
from shopfloor.tools.views import PegOut, pegs_out


# -- what a purchase order reads as, on every surface. Beside the tools that take it, so
# that a field added to a line is added in one place.
class PurchaseLineOut(LineHead):
    expected_date: date | None = None  # the line's own date, else its order's
    returned_quantity: Amount
    unit: str  # the supplier's unit, else the item's
    pack: str | None = Field(None, description="stock units in one unit, e.g. 3 pcs")


class PurchaseOrderOut(OrderHead):
    lines: list[PurchaseLineOut]


class PurchaseOrderDetailOut(PurchaseOrderOut):
    pegs: list[PegOut] = Field(description="the needs MRP placed it for")
    landed_costs: Amount = Field(description="their total, company currency")


def purchase_order_out(po: PurchaseOrder) -> PurchaseOrderOut:
    """Quantities and prices in each line's unit (the supplier's, where it has one)."""
    lines = [PurchaseLineOut(sku=ln.item.sku, quantity=ordered, unit_price=ln.unit_price,
                             done_quantity=got,
                             expected_date=ln.expected_date or po.expected_date,
                             returned_quantity=back, unit=ln.unit or ln.item.uom,
                             pack=f"{fmt(ln.units_per_unit)} {ln.item.uom}"
                             if ln.unit and ln.units_per_unit else None)
             for ln in po.lines for ordered, got, back in [units.shown(ln)]]
    return PurchaseOrderOut(
        id=po.id, number=po.number, status=po.status, partner=po.supplier.name,
        location=po.location.code, due_date=po.expected_date, created_at=po.created_at,
        total=sum((ln.quantity * ln.unit_price for ln in lines), Decimal(0)),
        currency=currencies.of_document(po), notes=po.notes, reference=po.reference,
        lines=lines)


tools = Toolset("purchasing")

PoStatus = Literal["draft", "open", "partially_received", "received", "closed", "cancelled"]


class PurchaseLineIn(OrderLineIn):
    expected_date: Day | None = Field(None, description="default: the order's")
    unit: Uom | None = None

    def spec(self) -> orders.LineSpec:
        return orders.LineSpec(self.sku, self.quantity, self.unit_price,
                               expected_date=self.expected_date, unit=self.unit)


class PurchaseOrderPage(Page):
    orders: list[PurchaseOrderOut]


PURCHASE = OrderKind(PurchaseOrder, "purchase order", lookup.purchase_order)
locked_po = PURCHASE.locked


class ListPurchaseOrders(Request):
    status: PoStatus | None = None
    supplier: PartnerName | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


@tools.read("list_purchase_orders", everyday=True, title="List purchase orders",
            response=PurchaseOrderPage,
            description="Purchase orders, newest first; filter by status or supplier.")
def list_purchase_orders(op: Op, req: ListPurchaseOrders) -> PurchaseOrderPage:
    supplier = PurchaseOrder.supplier_id == lookup.supplier(op, req.supplier).id \
        if req.supplier else None
    page, next_cursor = listed(op, PurchaseOrder, req, supplier, purchase_order_out)
    return PurchaseOrderPage(orders=page, next_cursor=next_cursor)


@tools.read("get_purchase_order", everyday=True,
            title="Get purchase order", response=PurchaseOrderDetailOut,
            description="One purchase order by number or id, with its lines.")
def get_purchase_order(op: Op, req: ByNumber) -> PurchaseOrderDetailOut:
    po = PURCHASE.found(op, req)
    return PurchaseOrderDetailOut(**dict(purchase_order_out(po)), pegs=pegs_out(op, po=po.id),
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
             title="Create purchase order", response=PurchaseOrderOut,
             description="Order items from a supplier, for receipt at a location.",
             destructive=False,
             undo=Undo.using(reverts.created("purchase_order")))
def create_purchase_order(op: Op, req: CreatePurchaseOrder) -> Done[PurchaseOrderOut]:
    po = orders.create_purchase_order(
        op, req.supplier, req.location, [ln.spec() for ln in req.lines], number=req.number,
        expected_date=req.expected_date, notes=req.notes, status=req.status)
    remark(op, "purchase_order", po, reference=req.reference)
    doc = purchase_order_out(po)
    return Done(f"Create purchase order {po.number} from {req.supplier}: {total_said(doc)}", doc)


class ModifyPurchaseOrder(NumberOrId, WriteRequest):
    supplier: PartnerName | None = None
    location: Key | None = None
    expected_date: Day | None = None
    notes: Text | None = None
    reference: Reference | None = None
    clear_notes: bool = False
    clear_reference: bool = False
    status: Literal["open"] | None = Field(None, description="open a draft")
    lines: list[PurchaseLineIn] | None = some_lines("replace the lines")


@tools.write("modify_purchase_order", title="Modify purchase order", response=PurchaseOrderOut,
             role=Role.admin, description="Change an open purchase order; lines replace all.",
             destructive=True)
def modify_purchase_order(op: Op, req: ModifyPurchaseOrder) -> Done[PurchaseOrderOut]:
    po = orders.modify_purchase_order(
        op, locked_po(op, req), supplier=req.supplier, location=req.location,
        expected_date=req.expected_date, notes=None, status=req.status,
        lines=[ln.spec() for ln in req.lines] if req.lines else None)
    remark(op, "purchase_order", po, **remarks(req))
    return Done(f"Modify purchase order {po.number}", purchase_order_out(po))


@tools.write("delete_purchase_order", title="Cancel purchase order", response=PurchaseOrderOut,
             role=Role.admin, description="Cancel a purchase order with nothing received yet. "
                                          "It is kept, as cancelled.",
             destructive=True,
             undo=Undo.using(reverts.cancelled("purchase_order")))
def delete_purchase_order(op: Op, req: ByNumberWrite) -> Done[PurchaseOrderOut]:
    po = orders.cancel_purchase_order(op, locked_po(op, req))
    return Done(f"Cancel purchase order {po.number}", purchase_order_out(po))


class ReceiveLineIn(IncomingLine, MoveLineIn):
    pass


class ReceivePurchaseOrder(NumberOrId, ExpiryChange, WriteRequest):
    lines: list[ReceiveLineIn] | None = some_lines("omit to receive all outstanding")
    batch: Key | None = Field(None, description="one lot for every lot-tracked line "
                              "naming none")
    expiry: Day | None = Field(None, description="expiry of lots this creates")


@tools.write("receive_purchase_order", everyday=True,
             title="Receive purchase order", response=PurchaseOrderOut,
             description="Book goods in from a purchase order, in part or in full, in its "
                         "units, at its prices.",
             destructive=True,
             undo=Undo.using(reverts.po_receipt))
def receive_purchase_order(op: Op, req: ReceivePurchaseOrder) -> Done[PurchaseOrderOut]:
    specs = [ln.spec() for ln in req.lines] if req.lines else None
    got = orders.receive_purchase_order(op, locked_po(op, req), specs, req.batch, req.expiry,
                                        req.change_expiry)
    po = got.document
    timing = [f"{n} {code}" for code in ("late", "early") if (n := got.warned(code))]
    return Done(f"Receive {len(got.lines)} line(s) of {po.number}"
                + (f" ({', '.join(timing)})" if timing else "")
                + f": now {said(po.status)}", purchase_order_out(po))
