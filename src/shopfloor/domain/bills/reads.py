"""Bills as read back, and what is still unbilled (goods received not invoiced) by
supplier and order line, as at a date."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.bills import booked
from shopfloor.kernel.errors import NotFound
from shopfloor.store.tables import PurchaseOrder, Revert, SupplierBill


def reverted(op: Op, bills: list[SupplierBill]) -> set[str]:
    ops = [b.operation_id for b in bills if b.operation_id]
    if not ops:
        return set()
    return set(op.session.scalars(select(Revert.reverted_operation_id).where(
        Revert.reverted_operation_id.in_(ops))))


def orders_of(op: Op, bill: SupplierBill) -> dict[int, str]:
    """The order number of each of the bill's order lines."""
    ids = sorted({ln.order_line.order_id for ln in bill.lines})
    return dict(op.session.execute(select(PurchaseOrder.id, PurchaseOrder.number).where(
        PurchaseOrder.id.in_(ids))).all()) if ids else {}


def get(op: Op, number: str) -> SupplierBill:
    found = op.session.scalar(select(SupplierBill).where(SupplierBill.number == number))
    if found is None:
        raise NotFound(f"no supplier bill {number!r}", field="bill")
    return found


def listed(op: Op, supplier: str | None, start: date | None, end: date | None,
           limit: int, after: int | None) -> list[SupplierBill]:
    """Newest first, a page at a time (`after`: the last id of the page before)."""
    stmt = select(SupplierBill).order_by(SupplierBill.id.desc()).limit(limit)
    if supplier is not None:
        stmt = stmt.where(SupplierBill.supplier_id == lookup.supplier(op, supplier).id)
    if start is not None:
        stmt = stmt.where(SupplierBill.bill_date >= start)
    if end is not None:
        stmt = stmt.where(SupplierBill.bill_date <= end)
    if after is not None:
        stmt = stmt.where(SupplierBill.id < after)
    return list(op.session.scalars(stmt).unique())


@dataclass(frozen=True)
class Unbilled:
    supplier: str
    order: str
    sku: str
    currency: str | None
    unit_price: Decimal
    received: Decimal
    returned: Decimal
    billed: Decimal
    unbilled: Decimal
    value: Decimal


def unbilled(op: Op, supplier: str | None, order: str | None, day: date | None,
             everything: bool = False) -> list[Unbilled]:
    """Every order line with goods received and not billed (or billed beyond what stayed,
    owed back), oldest order first; `everything` keeps the settled lines too."""
    stmt = select(PurchaseOrder).order_by(PurchaseOrder.id)
    if supplier is not None:
        stmt = stmt.where(PurchaseOrder.supplier_id == lookup.supplier(op, supplier).id)
    if order is not None:
        stmt = stmt.where(PurchaseOrder.number == lookup.purchase_order(op, order).number)
    out: list[Unbilled] = []
    for po in op.session.scalars(stmt).unique():
        rates = booked.Rates(op, po)
        for line in po.lines:
            if line.received_quantity == 0 and not everything:
                continue
            got, back, done, worth = booked.unbilled(op, po, line, day, rates)
            left = got - back - done
            if left == 0 and not everything:
                continue
            out.append(Unbilled(po.supplier.name, po.number, line.item.sku, po.currency,
                                line.unit_price, got, back, done, left, worth))
    return out

