"""A bill's price difference posted on the goods it is the price of: the line's units not
yet billed (the oldest units are billed, returned or taken back first), re-priced through
the re-pricing walk a price correction uses (on hand capitalised, gone expensed), each
receipt at its own day's rate. Units billed before keep the price their bill cleared them
at: re-pricing them would leave GRNI owing on goods no longer in it."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.bills import booked
from shopfloor.domain.corrections import revaluation
from shopfloor.domain.purchasing import units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.tables import PurchaseOrder, PurchaseOrderLine, StockMovement


def shares(rows: list[tuple[int, Decimal]], skip: Decimal) -> dict[int, Decimal]:
    """Per receipt row (id, quantity, oldest first): the part of it still unbilled, after
    the oldest `skip` units; a row taking goods back out re-prices nothing (its units are
    among the skipped)."""
    out: dict[int, Decimal] = {}
    for row_id, qty in rows:
        if qty <= 0:
            out[row_id] = ZERO
            continue
        gone = min(skip, qty)
        skip -= gone
        out[row_id] = (qty - gone) / qty
    return out


def reprice(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, new: Decimal,
            skip: Decimal) -> revaluation.Revalued:
    """The line's unbilled units from its price to `new`; the line's price becomes `new`
    (what its unbilled goods now stand at)."""
    old = line.unit_price
    rows = op.session.execute(
        select(StockMovement.id, StockMovement.created_at, StockMovement.quantity).where(
            StockMovement.document_type == booked.PO_DOC,
            StockMovement.document_number == po.number, StockMovement.item_id ==
            line.item_id, StockMovement.reason.in_(("receipt", "correction")), unreverted())
        .order_by(StockMovement.id)).all()
    rates = booked.Rates(op, po)
    days = {at.date() for _, at, _ in rows} | {op.now.date()}
    diffs = {day: units.unit_cost(line, new, rates.on(day))
             - units.unit_cost(line, old, rates.on(day)) for day in days}
    part = shares([(i, q) for i, _, q in rows], skip)

    def diff_of(m: StockMovement) -> Decimal:
        return diffs[m.created_at.date()] * part.get(m.id, ZERO)

    stock.prefetch(op, [line.item], po.location)
    done = revaluation.revalue(op, line.item, booked.PO_DOC, po.number, ZERO, "unit_price",
                               per_unit=diffs[op.now.date()], diff_of=diff_of)
    op.change("purchase_order", po.number, f"line {line.item.sku} price", old, new)
    op.change("purchase_order", po.number, f"{line.item.sku} re-priced by", None,
              fmt(done.total))
    line.unit_price = new
    return done
