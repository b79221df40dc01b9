"""Landed costs: freight, duty or insurance paid to bring a purchase order's goods in,
added to what they cost.

A landed cost is a re-pricing of goods already received, so it goes the way a receipt's
price correction goes (`revaluation.py`): each line's share, spread evenly over the
units that line brought in, follows those goods through the ledger. The part still on
hand raises their average (quantity-0 revaluation rows); the part that already left
(shipped, consumed, returned) is expensed as `landed_cost` variances naming the
documents that took it, never pushed onto other stock. Capitalised plus expensed is each
line's share to the last digit, and the shares sum to the amount.

A revert negates the revaluation rows and answers the variances, exactly; it is refused,
like a price correction's, once re-priced stock has left since (its share left with it,
in that movement's value): those movements are reverted first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.buying import currencies
from shopfloor.domain.buying import landed_costs as allocation
from shopfloor.domain.corrections import revaluation
from shopfloor.domain.corrections.ledger import (
    Original,
    moved_since,
    reverse_moves,
)
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.tables import LandedCost, LandedCostLine, PurchaseOrder, Revert, StockMovement

PO_DOC = "purchase_order"


@dataclass(frozen=True)
class Spec:
    """A landed cost as asked for: on an order (`number`) or one receipt (`operation_id`)."""

    number: str | None
    operation_id: str | None
    amount: Decimal
    currency: str | None
    allocate_by: str
    description: str
    rate_on: date | None = None
    """The day whose exchange rate converts it: a supplier's bill's own date (what the
    payable is booked at, so a charge leaves no exchange difference); else today."""


def _receipt(op: Op, operation_id: str, number: str | None) -> str:
    """The purchase order one receipt was on: a receipt that still counts (not reverted,
    not some other operation)."""
    found = op.session.execute(select(StockMovement.document_number).where(
        StockMovement.operation_id == operation_id, StockMovement.document_type == PO_DOC,
        StockMovement.reason == "receipt", unreverted()).limit(1)).scalar_one_or_none()
    if found is None:
        wrote = op.session.execute(select(StockMovement.id).where(
            StockMovement.operation_id == operation_id).limit(1)).first()
        if wrote is None:
            raise NotFound(f"no receipt with operation_id {operation_id!r}",
                           field="operation_id")
        raise ValidationFailed(f"operation {operation_id} is not a receipt that still counts "
                               "(another kind of write, or reverted)", field="operation_id")
    if number is not None and number != found:
        raise ValidationFailed(f"operation {operation_id} received {found}, not {number}",
                               field="operation_id")
    return str(found)


def _received(op: Op, po: PurchaseOrder, operation_id: str | None
              ) -> dict[int, tuple[Decimal, Decimal]]:
    """Per item: the stock quantity and value (company currency) the order's rows that
    still count brought in (receipts less corrections), or that one receipt's."""
    stmt = (select(StockMovement.item_id, func.sum(StockMovement.quantity),
                   func.sum(StockMovement.value))
            .where(StockMovement.document_type == PO_DOC,
                   StockMovement.document_number == po.number, StockMovement.quantity != 0,
                   unreverted())
            .group_by(StockMovement.item_id))
    if operation_id is not None:
        stmt = stmt.where(StockMovement.operation_id == operation_id)
    return {i: (q, v) for i, q, v in op.session.execute(stmt) if q > 0}


def add(op: Op, req: Spec) -> LandedCost:
    if req.amount <= 0:
        raise ValidationFailed("a landed cost is an amount above zero", field="amount")
    if req.allocate_by not in allocation.BASES:
        raise ValidationFailed(f"allocate by one of {', '.join(allocation.BASES)}",
                               field="allocate_by")
    if req.operation_id is not None:
        number = _receipt(op, req.operation_id, req.number)
    elif req.number is not None:
        number = req.number
    else:
        raise ValidationFailed("give the purchase order's number, or a receipt's "
                               "operation_id", field="number")
    po = lookup.purchase_order(op, number, lock=True)
    received = _received(op, po, req.operation_id)
    whole = _received(op, po, None) if req.operation_id is not None else received
    lines = [ln for ln in po.lines if ln.item_id in received]
    if not lines:
        raise Conflict(f"{number} has received nothing that still counts: a landed cost "
                       "goes onto received goods", field="number")
    currency = currencies.code(req.currency) if req.currency is not None \
        else currencies.of_document(po)
    rate = currencies.rate_on(op, currency, req.rate_on or op.now.date())
    amount = allocation.in_company(req.amount, rate)
    bases = [allocation.base(allocation.Received(ln.item.sku, *received[ln.item_id],
                                                 ln.item.weight), req.allocate_by)
             for ln in lines]
    shares = allocation.allocate(amount, bases)
    # the balances its goods came in to, locked before their history is walked (as a
    # price correction does): a shipment racing in between would take no share of it
    stock.prefetch(op, [ln.item for ln in lines], po.location)
    doc = LandedCost(number=claim_number(op, LandedCost, None, "LC"), order_id=po.id,
                     receipt_operation_id=req.operation_id, amount=req.amount,
                     currency=currency, rate=rate, company_amount=amount,
                     allocate_by=req.allocate_by, description=req.description,
                     operation_id=op.operation_id, created_at=op.now)
    why = revaluation.Why("landed_cost", f"share of landed cost {doc.number} that left "
                                         "with it")
    for i, (ln, base, share) in enumerate(zip(lines, bases, shares, strict=True)):
        qty = received[ln.item_id][0]
        done = revaluation.Revalued(ZERO, ZERO, ZERO)
        if share:
            done = revaluation.revalue(op, ln.item, PO_DOC, number, share / qty, "amount",
                                       why, req.operation_id,
                                       share / whole[ln.item_id][0])
            assert done.total == share, (ln.item.sku, done, share)
        doc.lines.append(LandedCostLine(
            item_id=ln.item_id, item=ln.item, position=i, quantity=qty, base=base,
            share=share, capitalised=done.capitalised, expensed=done.expensed))
        op.change("landed_cost", doc.number, f"line {ln.item.sku} capitalised", None,
                  fmt(done.capitalised))
        op.change("landed_cost", doc.number, f"line {ln.item.sku} expensed", None,
                  fmt(done.expensed))
    op.session.add(doc)
    op.session.flush()
    op.change("landed_cost", doc.number, "purchase_order", None, number)
    return doc


def revert(op: Op, o: Original) -> None:
    """A landed cost undone: its revaluation rows negated and its variances answered, if
    no re-priced stock has left since (it took a share that negating would not give back)."""
    o.blockers.extend(moved_since(o, "revert those first"))
    reverse_moves(op, o)  # its variances are answered by every revert
    if not o.blockers:
        op.change("landed_cost", str(o.result.get("number")), "reverted", None, "yes")


def listed(op: Op, number: str) -> list[tuple[LandedCost, bool]]:
    """A purchase order's landed costs, oldest first, each with whether it was reverted."""
    po = lookup.purchase_order(op, number)
    docs = list(op.session.scalars(select(LandedCost).where(LandedCost.order_id == po.id)
                                   .order_by(LandedCost.id)).unique())
    undone = set(op.session.scalars(select(Revert.reverted_operation_id).where(
        Revert.reverted_operation_id.in_([d.operation_id for d in docs if d.operation_id]))))
    return [(d, d.operation_id in undone) for d in docs]


def totals(op: Op, order_id: int) -> Decimal:
    """What a purchase order's landed costs that still count came to (company currency)."""
    undone = select(Revert.reverted_operation_id)
    found = op.session.execute(select(func.sum(LandedCost.company_amount)).where(
        LandedCost.order_id == order_id,
        LandedCost.operation_id.is_(None) | ~LandedCost.operation_id.in_(undone))).scalar()
    return found if found is not None else ZERO
