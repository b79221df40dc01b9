"""Supplier bills matched three ways (issue 31): entered against the orders' lines, their
price differences posted within the supplier's tolerance and held for a buyer beyond it,
and what is still received and not billed."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.bills import posting, reads, reverting
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import SupplierBill
from shopfloor.tools.fields import (
    Amount,
    Cursor,
    Day,
    Key,
    Limit,
    Money,
    Name,
    Out,
    Page,
    PartnerName,
    Quantity,
    ResultDay,
    after_id,
    paged,
)

tools = Toolset("bills")


class BillLineIn(Request):
    order: Key
    sku: Key
    quantity: Quantity = Field(description="in the line's unit")
    unit_price: Money = Field(description="per the line's unit")


class ChargeIn(Request):
    order: Key
    description: Name
    amount: Quantity
    allocate_by: Literal["value", "quantity", "weight"] = "value"


class CreateSupplierBill(WriteRequest):
    supplier: PartnerName
    number: Key = Field(description="the supplier's bill number")
    date: Day
    due_date: Day | None = None
    currency: str | None = Field(None, description="default: the supplier's")
    lines: list[BillLineIn] = Field(default_factory=list, max_length=500)
    charges: list[ChargeIn] = Field(default_factory=list, max_length=50,
                                    description="landed on the order")


class BillLineOut(Out):
    order: str
    sku: str
    quantity: Amount
    unit_price: Amount
    ordered_price: Amount
    stock_quantity: Amount
    grni: Amount
    repriced: Amount
    capitalised: Amount


class ChargeOut(Out):
    order: str
    description: str
    amount: Amount
    allocate_by: str
    landed_cost: str | None
    company_amount: Amount


class BillHead(Out):
    bill: str
    supplier: str
    number: str
    date: ResultDay
    due_date: ResultDay | None
    currency: str


def _head(b: SupplierBill) -> dict[str, Any]:
    """A bill's heading, the same in its list and in the bill itself."""
    return {"bill": b.number, "supplier": b.supplier.name, "number": b.supplier_number,
            "date": b.bill_date, "due_date": b.due_date, "currency": b.currency}


class BillOut(BillHead):
    rate: Amount
    amount: Amount
    company_amount: Amount
    grni: Amount
    exchange: Amount
    reverted: bool
    created_at: datetime
    lines: list[BillLineOut]
    charges: list[ChargeOut]


def bill_out(op: Op, b: SupplierBill, reverted: bool = False) -> BillOut:
    orders = reads.orders_of(op, b)
    return BillOut(
        **_head(b), rate=b.rate, amount=b.amount, company_amount=b.company_amount,
        grni=b.grni, exchange=b.exchange, reverted=reverted, created_at=b.created_at,
        lines=[BillLineOut(order=orders.get(ln.order_line.order_id, ""), sku=ln.order_line.item.sku,
                           quantity=ln.quantity, unit_price=ln.unit_price,
                           ordered_price=ln.ordered_price, stock_quantity=ln.stock_quantity,
                           grni=ln.grni, repriced=ln.repriced, capitalised=ln.capitalised)
               for ln in b.lines],
        charges=[ChargeOut(order=c.order_number, description=c.description, amount=c.amount,
                           allocate_by=c.allocate_by, landed_cost=c.landed_cost,
                           company_amount=c.company_amount) for c in b.charges])


@tools.write("create_supplier_bill", title="Create supplier bill", response=BillOut,
             description="Enter a supplier's bill against PO lines: clears GRNI into "
                         "payables; a price off the order within the supplier's tolerance "
                         "re-prices the receipts, beyond it waits for a buyer's approval.",
             destructive=False, holds=True, undo=Undo.using(reverting.revert))
def create_supplier_bill(op: Op, req: CreateSupplierBill) -> Done[BillOut]:
    bill = posting.create(op, posting.Spec(
        req.supplier, req.number, req.date, req.due_date, req.currency,
        tuple(posting.LineSpec(ln.order, ln.sku, ln.quantity, ln.unit_price)
              for ln in req.lines),
        tuple(posting.ChargeSpec(c.order, c.description, c.amount, c.allocate_by)
              for c in req.charges)))
    held = " (held for approval)" if any(w.code == posting.HELD for w in op.warnings) else ""
    return Done(f"Enter {req.supplier}'s bill {req.number} as {bill.number}: "
                f"{fmt(bill.amount)} {bill.currency}{held}", bill_out(op, bill))


class BillRef(Request):
    bill: Key = Field(description="e.g. BILL-00001")


@tools.read("get_supplier_bill", role=Role.operator, title="Get supplier bill", response=BillOut,
            description="One supplier bill: its lines matched to the orders, what it "
                        "cleared and posted.")
def get_supplier_bill(op: Op, req: BillRef) -> BillOut:
    bill = reads.get(op, req.bill)
    return bill_out(op, bill, bool(reads.reverted(op, [bill])))


class BillQuery(Request):
    supplier: PartnerName | None = None
    start: Day | None = None
    end: Day | None = None
    limit: Limit = 50
    cursor: Cursor | None = None


class BillRow(BillHead):
    amount: Amount
    company_amount: Amount
    reverted: bool


class BillsOut(Page):
    bills: list[BillRow]


@tools.read("list_supplier_bills", role=Role.operator, title="List supplier bills",
            response=BillsOut,
            description="Supplier bills, newest first, by supplier and bill date.")
def list_supplier_bills(op: Op, req: BillQuery) -> BillsOut:
    after = after_id(req.cursor, "list_supplier_bills")
    found = reads.listed(op, req.supplier, req.start, req.end, req.limit + 1, after)
    page, next_cursor = paged(found, req.limit, lambda b: str(b.id))
    undone = reads.reverted(op, page)
    return BillsOut(
        bills=[BillRow(**_head(b), amount=b.amount, company_amount=b.company_amount,
                       reverted=b.operation_id in undone) for b in page],
        next_cursor=next_cursor)


class UnbilledQuery(Request):
    supplier: PartnerName | None = None
    order: Key | None = None
    date: Day | None = Field(None, description="as at its end")


class UnbilledRow(Out):
    supplier: str
    order: str
    sku: str
    currency: str | None
    unit_price: Amount
    received: Amount
    returned: Amount
    billed: Amount
    unbilled: Amount
    value: Amount


class UnbilledOut(Out):
    rows: list[UnbilledRow]
    value: Amount


@tools.read("list_unbilled_receipts", role=Role.operator, title="Unbilled receipts",
            response=UnbilledOut,
            description="Goods received not invoiced per order line (stock units): "
                        "received - returned - billed, at booked value, as at a date.")
def list_unbilled_receipts(op: Op, req: UnbilledQuery) -> UnbilledOut:
    rows = [UnbilledRow(**r.__dict__) for r in reads.unbilled(op, req.supplier, req.order,
                                                               req.date)]
    return UnbilledOut(rows=rows, value=sum((r.value for r in rows), Decimal(0)))
