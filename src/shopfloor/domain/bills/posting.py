"""A supplier's bill entered: matched to its orders' lines, its price differences posted
as price corrections of the receipts' units not billed yet (`repricing`), its charges
landed on the goods, and goods received not invoiced cleared into accounts payable.

The bill's own entry is Dr GRNI (the receipts' booked value of what it bills) and Dr
Landed costs clearing (its charges as landed), Cr Accounts payable (the bill at its own
date's rate), the rest to Exchange differences: a bill in dollars at another rate than
the receipt's settles the difference there, never in the stock's value. Its charges
land at the bill's own rate (not today's): a charge is payable at exactly what it added to
the goods, so it leaves no exchange difference of its own. Its price
corrections post first (the re-pricing walk's own entries, against GRNI), so GRNI is
cleared at the corrected value. A revert negates all of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.accounting import entries
from shopfloor.domain.accounting.chart import chart
from shopfloor.domain.base import lookup, period_lock
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.bills import booked, matching, repricing
from shopfloor.domain.buying import currencies
from shopfloor.domain.corrections import landed_costs
from shopfloor.domain.purchasing import units
from shopfloor.kernel.errors import Conflict, ShopfloorError, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import (
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
    SupplierBill,
    SupplierBillCharge,
    SupplierBillLine,
)

DOC = "supplier_bill"
HELD = "held_for_approval"
"""The preview warning that sends the apply to a buyer as a proposal."""
CHARGE_FIELDS = {"number": "order"}


@dataclass(frozen=True)
class LineSpec:
    order: str
    sku: str
    quantity: Decimal
    unit_price: Decimal


@dataclass(frozen=True)
class ChargeSpec:
    order: str
    description: str
    amount: Decimal
    allocate_by: str = "value"


@dataclass(frozen=True)
class Spec:
    supplier: str
    number: str
    bill_date: date
    due_date: date | None
    currency: str | None
    lines: tuple[LineSpec, ...]
    charges: tuple[ChargeSpec, ...] = ()


def posted_at(op: Op, day: date) -> datetime:
    """A bill is booked on its own date (today's: now, so it follows today's receipts)."""
    return op.now if day == op.now.date() else datetime.combine(day, time(), UTC)


def _repeated(op: Op, supplier: Supplier, number: str) -> None:
    found = op.session.scalar(select(SupplierBill.number).where(
        SupplierBill.supplier_id == supplier.id, SupplierBill.supplier_number == number,
        booked.counted_bills()))
    if found is not None:
        raise Conflict(f"{supplier.name}'s bill {number} is entered already, as {found}",
                       field="number", details={"bill": found})


def _order(op: Op, supplier: Supplier, currency: str, number: str, fld: str
           ) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, fld=fld, lock=True)
    if po.supplier_id != supplier.id:
        raise ValidationFailed(f"{number} is {po.supplier.name}'s order, not "
                               f"{supplier.name}'s", field=fld)
    if currencies.of_document(po) != currency:
        raise ValidationFailed(f"{number} is in {currencies.of_document(po)}; this bill is in "
                               f"{currency}: bill it on its own", field=fld)
    return po


def _stock_quantity(line: PurchaseOrderLine, quantity: Decimal) -> Decimal:
    """Part of a line in a supplier's unit in stock units (rounded as a receipt is)."""
    per = line.units_per_unit
    return units.converted(quantity, per, line.item) if per else quantity


def create(op: Op, spec: Spec) -> SupplierBill:
    if not spec.lines and not spec.charges:
        raise ValidationFailed("a bill has lines or charges", field="lines")
    if spec.due_date is not None and spec.due_date < spec.bill_date:
        raise ValidationFailed("the due date is before the bill's date", field="due_date")
    period_lock.refuse_dated(op, spec.bill_date, "date")
    supplier = lookup.supplier(op, spec.supplier)
    op.session.scalar(op.lock(select(Supplier.id).where(Supplier.id == supplier.id)))
    _repeated(op, supplier, spec.number)
    currency = currencies.code(spec.currency) if spec.currency else \
        currencies.of(op, supplier.currency)
    rate = currencies.rate_on(op, currency, spec.bill_date, "date")
    tol = matching.Tolerance(supplier.bill_tolerance_percent, supplier.bill_tolerance_amount)
    bill = SupplierBill(number=claim_number(op, SupplierBill, None, "BILL"),
                        supplier_id=supplier.id, supplier=supplier,
                        supplier_number=spec.number, bill_date=spec.bill_date,
                        due_date=spec.due_date, currency=currency, rate=rate, amount=ZERO,
                        company_amount=ZERO, grni=ZERO, exchange=ZERO,
                        operation_id=op.operation_id, created_at=op.now)
    seen: set[tuple[str, str]] = set()
    matched = []
    for i, s in enumerate(spec.lines):
        fld = f"lines[{i}]"
        po = _order(op, supplier, currency, s.order, f"{fld}.order")
        line = next((ln for ln in po.lines if ln.item.sku == s.sku), None)
        if line is None:
            raise ValidationFailed(f"{s.sku} is not on {s.order}", field=f"{fld}.sku")
        if (s.order, s.sku) in seen:
            raise ValidationFailed(f"{s.sku} on {s.order} is billed twice on this bill",
                                   field=f"{fld}.sku")
        seen.add((s.order, s.sku))
        _, got, back = units.shown(line)
        before = booked.billed_in_unit(op, line.id)
        left = matching.billable(got, back, before)
        if s.quantity > left:
            raise Conflict(f"{s.sku} on {s.order}: billing {fmt(s.quantity)}, but "
                           f"{fmt(got)} came in, {fmt(back)} went back and {fmt(before)} "
                           f"is billed already: {fmt(max(left, ZERO))} to bill; receive "
                           "the rest first", field=f"{fld}.quantity")
        if s.quantity == left:  # all of what is left: exactly its stock figure
            stock_qty = line.received_quantity - line.returned_quantity - booked.billed(
                op, [line.id]).get(line.id, ZERO)
        else:
            stock_qty = _stock_quantity(line, s.quantity)
        ordered = line.unit_price
        if not matching.within(ordered, s.unit_price, s.quantity, tol):
            op.warn(HELD, matching.held_because(s.sku, s.order, ordered, s.unit_price,
                                                s.quantity, tol, currency),
                    fld=f"{fld}.unit_price")
        matched.append((po, line, s, stock_qty, ordered))
    skips, done = [], []
    for po, line, s, _, ordered in matched:
        _, taken_back = booked.received(op, po, line)
        skips.append(taken_back + line.returned_quantity + booked.billed(op, [line.id]).get(
            line.id, ZERO))
        done.append(repricing.reprice(op, po, line, s.unit_price, skips[-1])
                    if s.unit_price != ordered else None)
    op.flush()  # their entries post now, against GRNI, before any charge lands
    payable = ZERO
    for i, (po, line, s, stock_qty, ordered) in enumerate(matched):
        lots, _ = booked.received(op, po, line)
        cleared = booked.value(booked.Rates(op, po), line,
                               matching.taken(lots, skips[i], stock_qty))
        moved = done[i]
        bill.lines.append(SupplierBillLine(
            position=i, order_line_id=line.id, order_line=line, quantity=s.quantity,
            stock_quantity=stock_qty, unit_price=s.unit_price, ordered_price=ordered,
            grni=cleared, repriced=moved.total if moved else ZERO,
            capitalised=moved.capitalised if moved else ZERO))
        payable += s.quantity * s.unit_price
        bill.grni += cleared
        op.change(DOC, bill.number, f"{s.order} {s.sku} billed",
                  None, f"{fmt(s.quantity)} @ {fmt(s.unit_price)} {currency}")
    clearing = ZERO
    for i, c in enumerate(spec.charges):
        po = _order(op, supplier, currency, c.order, f"charges[{i}].order")
        try:
            doc = landed_costs.add(op, landed_costs.Spec(
                c.order, None, c.amount, currency, c.allocate_by, c.description,
                spec.bill_date))
        except ShopfloorError as exc:  # named as this bill's request names it
            exc.field = f"charges[{i}].{CHARGE_FIELDS.get(exc.field or '', exc.field)}"
            raise
        bill.charges.append(SupplierBillCharge(
            position=i, description=c.description, amount=c.amount, order_number=po.number,
            allocate_by=c.allocate_by, landed_cost=doc.number,
            company_amount=doc.company_amount))
        payable += c.amount
        clearing += doc.company_amount
    bill.amount = payable
    bill.company_amount = cost(payable * rate)
    bill.exchange = bill.company_amount - bill.grni - clearing
    op.session.add(bill)
    op.session.flush()
    company = currencies.company(op)
    op.change(DOC, bill.number, "GRNI cleared", None, fmt(bill.grni), currency=company)
    op.change(DOC, bill.number, "payable", None, fmt(bill.company_amount), currency=company)
    if bill.exchange:
        op.change(DOC, bill.number, "exchange difference", None, fmt(bill.exchange),
                  currency=company)
    _post(op, bill, clearing)
    return bill


def _lines(op: Op, bill: SupplierBill, clearing: Decimal) -> list[tuple[str, Decimal]]:
    """(role, signed amount: debit positive) of the bill's own entry."""
    return [(role, amount) for role, amount in (
        ("grni", bill.grni), ("landed_costs", clearing), ("exchange", bill.exchange),
        ("payable", -bill.company_amount)) if amount]


def _post(op: Op, bill: SupplierBill, clearing: Decimal) -> None:
    if op.preview or op.operation_id is None:
        return
    write(op, posted_at(op, bill.bill_date), bill, _lines(op, bill, clearing), None)


def write(op: Op, at: datetime, bill: SupplierBill, lines: list[tuple[str, Decimal]],
          reverses: str | None) -> None:
    """One entry naming the bill; the payable's memo names the supplier."""
    c = chart(op)
    memo = f"{'Revert: ' if reverses else ''}Bill {bill.supplier_number} from " \
           f"{bill.supplier.name}"
    d = entries.Draft(at, DOC, bill.number, memo, reverses)
    for role, amount in lines:
        d.add(role, c.account(role).code, amount)
    entries.write(op, [d])
