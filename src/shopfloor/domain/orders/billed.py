"""How much of a purchase line suppliers' bills that still count have billed (stock
units): what a receipt's revert or a received quantity corrected down may not go below,
since those goods are owed for (revert the bill first)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import ColumnElement, func, select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import Revert, SupplierBill, SupplierBillLine


def counted() -> ColumnElement[bool]:
    """Bills that still count: not reverted."""
    return SupplierBill.operation_id.is_(None) | ~SupplierBill.operation_id.in_(
        select(Revert.reverted_operation_id))


def billed(op: Op, line_ids: list[int], day: date | None = None) -> dict[int, Decimal]:
    """Per order line: the stock quantity billed (by bills dated by `day`)."""
    if not line_ids:
        return {}
    stmt = (select(SupplierBillLine.order_line_id, func.sum(SupplierBillLine.stock_quantity))
            .join(SupplierBill, SupplierBill.id == SupplierBillLine.bill_id)
            .where(SupplierBillLine.order_line_id.in_(line_ids), counted())
            .group_by(SupplierBillLine.order_line_id))
    if day is not None:
        stmt = stmt.where(SupplierBill.bill_date <= day)
    return {i: q for i, q in op.session.execute(stmt)}


def of(op: Op, line_id: int) -> Decimal:
    return billed(op, [line_id]).get(line_id, ZERO)
