"""Returns from customers and to suppliers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import Field
from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import reverts
from shopfloor.domain.orders import returns
from shopfloor.domain.purchasing import units as purchase_units
from shopfloor.kernel.errors import NotFound
from shopfloor.kernel.text import money
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import Customer, PurchaseOrder, SalesOrder, StockReturn, Supplier
from shopfloor.tools.fields import (
    Amount,
    Key,
    Limit,
    Out,
    Page,
    Quantity,
    Reference,
    RowCursor,
    Text,
    Uom,
)
from shopfloor.tools.lot_fields import Lots
from shopfloor.tools.pages import newest_first
from shopfloor.tools.refs import NumberOrId, number_of

tools = Toolset("returns")

Reason = Field(min_length=1, max_length=500, pattern=r"^[^\x00]*$",
               description="why, for the audit trail")


class ReturnLineOut(Out):
    sku: str
    quantity: Amount
    unit: str  # the item's: a return moves stock units
    line_quantity: Amount | None = Field(
        None, description="the quantity in line_unit, where its order line has one")
    line_unit: str | None = Field(None, description="the order line's unit (a supplier's box)")
    quantity_text: str = Field(description="as its order says it: 2 box (6 pcs), 1 pc of a "
                                           "box of 3, 6 pcs")
    unit_cost: Amount
    value: Amount = Field(description="quantity x unit_cost, the books' currency")
    disposition: str
    location: str | None
    lot: str | None


class ReturnOut(Out):
    id: int
    number: str
    kind: str
    order_number: str
    partner: str = Field(description="the customer or supplier of its order")
    reason: str
    notes: str | None = None
    reference: str | None = Field(None, description="the partner's number for it (RMA)")
    created_at: datetime
    value: Amount
    currency: str = Field(description="the value's: the books' (the stock's cost)")
    lines: list[ReturnLineOut]


def partners(op: Op, docs: Sequence[StockReturn]) -> dict[tuple[str, str], str]:
    """(kind, order number) -> its order's partner, in one query a kind."""
    out: dict[tuple[str, str], str] = {}
    for kind, order, partner, by in (("supplier", PurchaseOrder, Supplier, "supplier_id"),
                                     ("customer", SalesOrder, Customer, "customer_id")):
        numbers = {d.order_number for d in docs if d.kind == kind}
        if numbers:
            out |= {(kind, n): name for n, name in op.session.execute(
                select(order.number, partner.name).join(
                    partner, getattr(order, by) == partner.id).where(
                    order.number.in_(numbers)))}
    return out


def return_out(op: Op, doc: StockReturn, partner: str | None = None) -> ReturnOut:
    if partner is None:
        partner = partners(op, [doc]).get((doc.kind, doc.order_number), "")
    return ReturnOut(
        id=doc.id, number=doc.number, kind=doc.kind, order_number=doc.order_number,
        partner=partner, reason=doc.reason, notes=doc.notes, reference=doc.reference,
        created_at=doc.created_at, currency=currencies.company(op),
        value=sum((ln.quantity * ln.unit_cost for ln in doc.lines), Decimal(0)),
        lines=[ReturnLineOut(sku=ln.item.sku, quantity=ln.quantity, unit=ln.item.uom,
                             line_quantity=purchase_units.figure(ln.quantity, ln,
                                                                 ln.unit_quantity),
                             line_unit=ln.unit if ln.units_per_unit else None,
                             quantity_text=purchase_units.named(ln.quantity, ln,
                                                                ln.unit_quantity),
                             unit_cost=ln.unit_cost, value=ln.quantity * ln.unit_cost,
                             disposition=ln.disposition,
                             location=ln.location.code if ln.location else None,
                             lot=ln.lot_number) for ln in doc.lines])


class ReturnLine(Lots):
    sku: Key
    quantity: Quantity
    lot: Key | None = Field(None, description="one lot or serial")

    def spec(self, disposition: str) -> returns.ReturnSpec:
        return returns.ReturnSpec(self.sku, self.quantity, disposition, self.lot,
                                  self.lot_specs(), self.serial_list())


class CustomerReturnLine(ReturnLine):
    disposition: Literal["restock", "quarantine", "scrap"] = "restock"


class Remarks(WriteRequest):
    notes: Text | None = None
    reference: Reference | None = None


class CreateCustomerReturn(NumberOrId, Remarks):
    reason: str = Reason
    lines: list[CustomerReturnLine] = Field(min_length=1, max_length=1000)
    quarantine_location: Key | None = Field(None, description="where quarantined lines go")


SUMMARY_LINES = 3  # a summary names this many lines, then counts the rest


def _summary(op: Op, doc: StockReturn, order: str) -> str:
    """Its lines as the order counts them ("1 pc of a box of 3 HINGE-35"); the value is
    the stock's, at the cost the goods are booked at: the books' money."""
    said = [f"{purchase_units.named(ln.quantity, ln, ln.unit_quantity)} {ln.item.sku}"
            for ln in doc.lines]
    more = len(said) - SUMMARY_LINES
    lines = ", ".join(said[:SUMMARY_LINES]) + (f" and {more} more" if more > 0 else "")
    total = sum((ln.quantity * ln.unit_cost for ln in doc.lines), Decimal(0))
    return (f"Return {doc.number} against {order}: {lines}, value "
            f"{money(total, currencies.company(op))}")


@tools.write("create_customer_return", title="Customer return", response=ReturnOut,
             description="Take goods back against a sales order: each line restocked at the "
                         "cost it left with, quarantined, or scrapped.",
             destructive=True,  # restocked at its old cost it can lower the average cost
             undo=Undo.using(reverts.returned("customer")))
def create_customer_return(op: Op, req: CreateCustomerReturn) -> Done[ReturnOut]:
    number = number_of(op, SalesOrder, req, "sales order")
    doc = returns.customer_return(
        op, number, [ln.spec(ln.disposition) for ln in req.lines], req.reason,
        req.quarantine_location)
    remark(op, "return", doc, notes=req.notes, reference=req.reference)
    return Done(_summary(op, doc, number), return_out(op, doc))


class SupplierReturnLine(ReturnLine):
    unit: Uom | None = Field(None, description="the order line's unit or the item's (default)")

    def spec(self, disposition: str) -> returns.ReturnSpec:
        return replace(super().spec(disposition), unit=self.unit)


class CreateSupplierReturn(NumberOrId, Remarks):
    reason: str = Reason
    lines: list[SupplierReturnLine] = Field(min_length=1, max_length=1000)


@tools.write("create_supplier_return", title="Supplier return", response=ReturnOut,
             description="Send received goods back against a purchase order; they leave at "
                         "the cost they were received at.",
             destructive=True,  # lowers stock on hand
             undo=Undo.using(reverts.returned("supplier")))
def create_supplier_return(op: Op, req: CreateSupplierReturn) -> Done[ReturnOut]:
    number = number_of(op, PurchaseOrder, req, "purchase order")
    doc = returns.supplier_return(
        op, number, [ln.spec("return") for ln in req.lines], req.reason)
    remark(op, "return", doc, notes=req.notes, reference=req.reference)
    return Done(_summary(op, doc, number), return_out(op, doc))


class ReturnPage(Page):
    returns: list[ReturnOut]


class ListReturns(Request):
    order: Key | None = Field(None, description="only returns against this order number")
    limit: Limit = 50
    cursor: RowCursor | None = None


@tools.read("list_returns", title="List returns", response=ReturnPage,
            description="Customer and supplier returns, newest first, with their notes; "
                        "filter by the order they were made against.")
def list_returns(op: Op, req: ListReturns) -> ReturnPage:
    page, next_cursor = newest_first(
        op, StockReturn, req.limit, req.cursor,
        StockReturn.order_number == req.order if req.order else None)
    names = partners(op, page)
    return ReturnPage(returns=[return_out(op, r, names.get((r.kind, r.order_number), ""))
                               for r in page], next_cursor=next_cursor)


class GetReturn(Request):
    number: Key = Field(description="the return's number, e.g. RET-00001")


@tools.read("get_return", title="Get return", response=ReturnOut,
            description="One return by number: its lines, value, reason, notes and the "
                        "partner's reference.")
def get_return(op: Op, req: GetReturn) -> ReturnOut:
    found = op.session.scalars(select(StockReturn).where(StockReturn.number == req.number)
                               ).first()
    if found is None:
        raise NotFound(f"no return {req.number}", field="number")
    return return_out(op, found)
