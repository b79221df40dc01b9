"""A bill undone: its price corrections' and landed charges' rows negated (refused, as a
price correction's revert is, once re-priced goods have left since), the order lines'
prices put back, and its own entry negated, dated now."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.bills.posting import DOC, write
from shopfloor.domain.corrections.ledger import Original, moved_since, reverse_moves
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import NotFound
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import JournalEntry, JournalLine, PurchaseOrder, SupplierBill


def revert(op: Op, o: Original) -> None:
    bill = op.session.scalar(select(SupplierBill).where(
        SupplierBill.operation_id == o.operation_id))
    if bill is None:
        raise NotFound(f"operation {o.operation_id} entered no bill", field="operation_id")
    o.blockers.extend(moved_since(o, "revert those first"))
    for ln in bill.lines:
        line = ln.order_line
        if ln.unit_price == ln.ordered_price:
            continue
        if line.unit_price != ln.unit_price:
            o.blockers.append(f"{line.item.sku} on its order was re-priced again since, to "
                              f"{fmt(line.unit_price)}; revert that first")
            continue
        po = op.session.get(PurchaseOrder, line.order_id)
        op.change("purchase_order", po.number if po else str(line.order_id),
                  f"line {line.item.sku} price", ln.unit_price, ln.ordered_price)
        line.unit_price = ln.ordered_price
        if po is not None:
            touch(po)
    reverse_moves(op, o)  # its variances are answered by every revert
    if o.blockers:
        return
    write(op, op.now, bill, _negated(op, bill.number, o.operation_id), o.operation_id)
    op.change(DOC, bill.number, "reverted", None, "yes")


def _negated(op: Op, number: str, operation_id: str) -> list[tuple[str, Decimal]]:
    rows = op.session.execute(
        select(JournalLine.role, JournalLine.debit, JournalLine.credit)
        .join(JournalEntry, JournalEntry.id == JournalLine.entry_id)
        .where(JournalEntry.document_number == number, JournalEntry.document_type == DOC,
               JournalEntry.operation_id == operation_id)
        .order_by(JournalLine.id)).all()
    return [(role, credit - debit) for role, debit, credit in rows]
