"""Supplier bills (issue 31): what a supplier asks to be paid for, matched to what was
ordered and received.

A bill is kept as the supplier wrote it (their number, date, currency, quantities and
prices in the order's unit) beside what it posted in the company's currency: the goods
received not invoiced it cleared, the payable it raised, and the price difference it
re-priced the receipts by. A bill is never edited; a revert undoes it (`reverts`).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shopfloor.store.tables.core import Base, lines_of
from shopfloor.store.tables.partners import Supplier
from shopfloor.store.tables.purchasing import PurchaseOrderLine

__all__ = ["SupplierBill", "SupplierBillCharge", "SupplierBillLine"]


class SupplierBill(Base):
    """`supplier_number` is the supplier's own bill number: one per supplier among the
    bills that still count (the domain refuses a repeat; a reverted bill may be entered
    again). `rate` is company currency per unit of `currency` on `bill_date`."""

    __tablename__ = "supplier_bills"
    __table_args__ = (Index("ix_supplier_bills_supplier", "supplier_id", "supplier_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(64), unique=True)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("suppliers.id"))
    supplier_number: Mapped[str] = mapped_column(String(64))
    bill_date: Mapped[date] = mapped_column(Date)
    due_date: Mapped[date | None] = mapped_column(Date)
    currency: Mapped[str] = mapped_column(String(3))
    rate: Mapped[Decimal]
    amount: Mapped[Decimal]
    company_amount: Mapped[Decimal]
    grni: Mapped[Decimal]
    exchange: Mapped[Decimal]
    operation_id: Mapped[str | None] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime]

    supplier: Mapped[Supplier] = relationship(lazy="joined")
    lines: Mapped[list[SupplierBillLine]] = lines_of("SupplierBillLine", lazy="selectin")
    charges: Mapped[list[SupplierBillCharge]] = lines_of("SupplierBillCharge", lazy="selectin")


class SupplierBillLine(Base):
    """`quantity` and `unit_price` in the order line's unit and currency; `stock_quantity`
    the same in stock units; `grni` what it cleared at the receipts' booked value;
    `repriced` the price difference it posted (capitalised plus expensed)."""

    __tablename__ = "supplier_bill_lines"
    id: Mapped[int] = mapped_column(primary_key=True)
    bill_id: Mapped[int] = mapped_column(ForeignKey("supplier_bills.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    order_line_id: Mapped[int] = mapped_column(ForeignKey("purchase_order_lines.id"),
                                               index=True)
    quantity: Mapped[Decimal]
    stock_quantity: Mapped[Decimal]
    unit_price: Mapped[Decimal]
    ordered_price: Mapped[Decimal]
    grni: Mapped[Decimal]
    repriced: Mapped[Decimal]
    capitalised: Mapped[Decimal]

    order_line: Mapped[PurchaseOrderLine] = relationship(lazy="joined")


class SupplierBillCharge(Base):
    """Freight or another charge on the bill, landed on an order's goods
    (`landed_cost` names the landed cost it made)."""

    __tablename__ = "supplier_bill_charges"
    id: Mapped[int] = mapped_column(primary_key=True)
    bill_id: Mapped[int] = mapped_column(ForeignKey("supplier_bills.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(Text)
    amount: Mapped[Decimal]
    order_number: Mapped[str] = mapped_column(String(64))
    allocate_by: Mapped[str] = mapped_column(String(16))
    landed_cost: Mapped[str | None] = mapped_column(String(64))
    company_amount: Mapped[Decimal]
