"""Returns: goods coming back from a customer, goods going back to a supplier.

A customer return is valued at the cost the goods left with (the shipments' own ledger
rows), not today's average: what comes back is what went out, with the share of any
re-pricing its shipment took since it left (a price corrected, a landed cost: expensed
against the sales order, it comes back off that expense, a `share_returned` variance).
Each line has a disposition: `restock` (back on the shelf of the order's location),
`quarantine` (to a held location, out of the way of picking) or `scrap` (recorded, never
back in stock: its share stays expensed). A supplier return leaves at the cost it was
received at, and what stays is re-averaged without it. Orders count what came back
(`returned_quantity`), never more than moved. A line names its lots and serials as a
movement line does, only ones its order moved (see return_lots); the document keeps one
line per lot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.orders import return_lots
from shopfloor.domain.purchasing import units as purchase_units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.domain.stock.standing import SHARE_BACK, SHARES, revalued, unreverted
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import (
    Item,
    Location,
    Revert,
    StockMovement,
    StockReturn,
    StockReturnLine,
    Variance,
)


@dataclass(frozen=True)
class ReturnSpec:
    sku: str
    quantity: Decimal
    disposition: str = "restock"
    lot: str | None = None
    lots: tuple[lots.LotIn, ...] = ()
    serials: tuple[str, ...] = ()
    unit: str | None = None  # a supplier return line's unit (None: the stock unit)
    in_unit: Decimal | None = None  # its quantity in its order line's unit, where it has one


def moved_cost(op: Op, document_type: str, number: str, item_id: int, reason: str) -> Decimal:
    """The unit cost a document's rows moved an item at, weighted by quantity, leaving out
    rows of reverted operations: what a shipment left with, what a receipt came in at."""
    reverted = select(Revert.reverted_operation_id)
    rows = op.session.execute(
        select(StockMovement.quantity, StockMovement.unit_cost)
        .where(StockMovement.document_type == document_type,
               StockMovement.document_number == number, StockMovement.item_id == item_id,
               StockMovement.reason == reason,
               StockMovement.operation_id.is_(None)
               | ~StockMovement.operation_id.in_(reverted))).all()
    qty = sum((q for q, _ in rows), ZERO)
    if qty == 0:
        return ZERO
    # a receipt's or a completion's goods re-priced since carry the new price
    return cost(sum((q * c for q, c in rows), ZERO) / qty
                + revalued(op.session, document_type, number, item_id))


def shipped_share(op: Op, number: str, item_id: int) -> tuple[Decimal, Decimal]:
    """What each unit a sales order shipped and no return brought back into stock took of
    the re-pricings made since it left (price corrections, landed costs, expensed against
    the order): the share a unit coming back brings with it. A re-pricing made after a
    return splits over what stayed shipped (the re-pricing walk gives the return's share
    back), so the shares left over the units still out is each one's: (shares, units)."""
    shares = op.session.scalar(select(func.sum(Variance.amount)).where(
        Variance.document_type == "sales_order", Variance.document_number == number,
        Variance.item_id == item_id, Variance.kind.in_((*SHARES, SHARE_BACK))))
    if not shares:
        return ZERO, ZERO
    shipped = op.session.scalar(select(func.sum(StockMovement.quantity)).where(
        StockMovement.document_type == "sales_order", StockMovement.document_number == number,
        StockMovement.item_id == item_id, unreverted())) or ZERO
    back = op.session.scalar(select(func.sum(StockMovement.quantity)).join(
        StockReturn, StockReturn.number == StockMovement.document_number).where(
        StockReturn.order_number == number, StockReturn.kind == "customer",
        StockMovement.document_type == "stock_return", StockMovement.item_id == item_id,
        StockMovement.reason == "customer_return", unreverted())) or ZERO
    out = -Decimal(shipped) - Decimal(back)
    return (Decimal(shares), out) if out > 0 else (ZERO, ZERO)


def share_back(op: Op, item: Item, where: Location, number: str,
               taken: tuple[Decimal, Decimal], quantity: Decimal, unit: Decimal,
               batch_id: int | None, note: str) -> Decimal | None:
    """Units of sales order `number` back in stock at `where` (a return, a shipment
    corrected down) bring back the share of re-pricings they took (`taken`, from
    `shipped_share`): it comes off that expense (a `share_returned` variance) and onto
    their value. The value they come back at, or None when they took no share (they come
    back at `unit`): one rule, so a return and a correction never price it apart."""
    shares, out = taken
    back = cost(shares * quantity / out) if shares else ZERO
    if not back:
        return None
    stock.ledger(op).variance(item, where, -back, SHARE_BACK, "sales_order", number,
                              batch_id, note)
    return cost(quantity * cost(unit)) + back


def _plain(quantity: Decimal, _line: Any) -> str:
    return fmt(quantity)


def _lines(specs: Sequence[ReturnSpec], order_lines: Sequence[Any], number: str, done: str,
           verb: str, say: Callable[[Decimal, Any], str] = _plain, in_stock: bool = False
           ) -> list[tuple[Any, ReturnSpec, str]]:
    by_sku = {ln.item.sku: ln for ln in order_lines}
    seen: set[str] = set()
    out = []
    for i, spec in enumerate(specs):
        line = by_sku.get(spec.sku)
        if line is None:
            raise ValidationFailed(f"{spec.sku} is not on {number}", field=f"lines[{i}].sku")
        if spec.sku in seen:
            raise ValidationFailed(f"{spec.sku} appears twice; use one line per item",
                                   field=f"lines[{i}].sku")
        seen.add(spec.sku)
        left = getattr(line, done) - line.returned_quantity
        if spec.quantity > left and not (in_stock and spec.in_unit is not None):
            raise ValidationFailed(
                f"{spec.sku}: returning {say(spec.quantity, line)} but only "
                f"{say(left, line)} {verb} and not yet returned", field=f"lines[{i}].quantity")
        out.append((line, spec, f"lines[{i}]"))
    return out


def _document(op: Op, kind: str, number: str, reason: str) -> StockReturn:
    doc = StockReturn(number=claim_number(op, StockReturn, None, "RET"), kind=kind,
                      order_number=number, reason=reason, created_at=op.now)
    op.session.add(doc)
    op.change("return", doc.number, "order", None, number)
    return doc


def _returned(op: Op, kind: str, number: str, line: Any, qty: Decimal,
              in_unit: Decimal | None = None) -> None:
    if kind == "purchase_order":  # in the line's unit, the stock figure beside it
        purchase_units.count(op, number, line, "returned", qty, in_unit)
        return
    op.change(kind, number, f"line {line.item.sku} returned", line.returned_quantity,
              line.returned_quantity + qty)
    line.returned_quantity += qty


def customer_return(op: Op, number: str, specs: Sequence[ReturnSpec], reason: str,
                    quarantine: str | None) -> StockReturn:
    so = lookup.sales_order(op, number, lock=True)
    todo = _lines(specs, so.lines, number, "fulfilled_quantity", "shipped")
    held: Location | None = None
    if any(spec.disposition == "quarantine" for _, spec, _ in todo):
        if quarantine is None:
            raise ValidationFailed("a quarantine line needs quarantine_location",
                                   field="quarantine_location")
        held = lookup.location(op, quarantine, fld="quarantine_location")
        if held.id == so.location_id:
            raise ValidationFailed("quarantine_location must differ from the order's "
                                   "location, or the goods could be picked again",
                                   field="quarantine_location")
        stock.prefetch(op, [line.item for line, _, _ in todo], held)
    stock.prefetch(op, [line.item for line, _, _ in todo], so.location)
    parts = return_lots.resolve(op, "customer", "sales_order", number, todo)
    doc = _document(op, "customer", number, reason)
    for (line, spec, fld), row in zip(todo, parts, strict=True):
        unit = moved_cost(op, "sales_order", number, line.item_id, "shipment")
        where = {"restock": so.location, "quarantine": held, "scrap": None}[spec.disposition]
        taken = shipped_share(op, number, line.item_id) if where is not None \
            else (ZERO, ZERO)
        for part, lot in row:
            value = None
            if where is not None:
                value = share_back(op, line.item, where, number, taken, part.quantity, unit,
                                   part.batch_id,
                                   f"share of re-pricings back with return {doc.number}")
                stock.post(op, Posting(line.item, where, part.quantity, "customer_return",
                                       "stock_return", doc.number, unit_cost=unit,
                                       batch_id=part.batch_id, field=f"{fld}.quantity",
                                       value=value))
            doc.lines.append(StockReturnLine(
                item_id=line.item_id, item=line.item, position=len(doc.lines),
                quantity=part.quantity, disposition=spec.disposition, lot_number=lot,
                unit_cost=unit if value is None else cost(value / part.quantity),
                location_id=where.id if where else None, location=where))
        if where is None:
            op.change("return", doc.number, f"line {line.item.sku} scrapped", None,
                      f"{fmt(spec.quantity)} @ {fmt(unit)}")
        _returned(op, "sales_order", number, line, spec.quantity)
    touch(so)
    op.session.flush()
    return doc


def supplier_return(op: Op, number: str, specs: Sequence[ReturnSpec], reason: str
                    ) -> StockReturn:
    po = lookup.purchase_order(op, number, lock=True)
    specs = purchase_units.returned_in_stock_units(po, specs)
    todo = _lines(specs, po.lines, number, "received_quantity", "received",
                  purchase_units.said, in_stock=True)
    stock.prefetch(op, [line.item for line, _, _ in todo], po.location)
    parts = return_lots.resolve(op, "supplier", "purchase_order", number, todo)
    doc = _document(op, "supplier", number, reason)
    for (line, spec, fld), row in zip(todo, parts, strict=True):
        unit = moved_cost(op, "purchase_order", number, line.item_id, "receipt")
        made: list[StockReturnLine] = []
        for part, lot in row:
            stock.post(op, Posting(line.item, po.location, -part.quantity, "supplier_return",
                                   "stock_return", doc.number, exit_cost=unit,
                                   batch_id=part.batch_id, field=f"{fld}.quantity"))
            made.append(StockReturnLine(
                item_id=line.item_id, item=line.item, position=len(doc.lines) + len(made),
                quantity=part.quantity, unit_cost=unit, disposition="return",
                lot_number=lot, location_id=po.location_id, location=po.location))
        before = line.unit_returned
        _returned(op, "purchase_order", number, line, spec.quantity, spec.in_unit)
        doc.lines.extend(_in_line_unit(made, line, before))
    touch(po)
    op.session.flush()
    return doc


def _in_line_unit(made: list[StockReturnLine], line: Any, before: Decimal | None
                  ) -> list[StockReturnLine]:
    """Return lines of an order line in a supplier's unit carry it, its pack and their
    figure in it: all the order counted returned where one line took it all, else each
    lot's share converted back (what its pieces stand for)."""
    if not line.unit or not line.units_per_unit or line.unit_returned is None:
        return made
    for rl in made:
        rl.unit, rl.units_per_unit = line.unit, line.units_per_unit
        rl.unit_quantity = line.unit_returned - (before or ZERO) if len(made) == 1 else \
            purchase_units.figure(rl.quantity, rl)
    return made


def undo(op: Op, kind: str, return_number: str,
         logged: Sequence[dict[str, Any]] = ()) -> tuple[list[str], StockReturn]:
    """A return reverted: the order counts it as not returned (in a purchase line's unit,
    as the return's `logged` changes said it). Its ledger rows are reversed by the revert
    itself."""
    doc = op.session.scalars(select(StockReturn).where(
        StockReturn.number == return_number)).one()
    if kind == "customer":
        order: Any = lookup.sales_order(op, doc.order_number, lock=True)
        entity = "sales_order"
    else:
        order, entity = lookup.purchase_order(op, doc.order_number, lock=True), "purchase_order"
    by_item = {ln.item_id: ln for ln in order.lines}
    blockers = []
    undone: set[int] = set()
    for rl in doc.lines:
        line = by_item[rl.item_id]
        if line.returned_quantity < rl.quantity:
            blockers.append(f"{doc.order_number} line {line.item.sku} counts less returned "
                            "than this return")
            continue
        if kind != "customer":
            before, unit_before = line.returned_quantity, line.unit_returned
            if line.item_id not in undone:  # once per order line, however many lots
                purchase_units.undo(line, "returned", logged, doc.order_number)
                undone.add(line.item_id)
            line.returned_quantity -= rl.quantity
            op.change(entity, doc.order_number, f"line {line.item.sku} returned",
                      purchase_units.said(before, line, unit_before),
                      purchase_units.said(line.returned_quantity, line, line.unit_returned))
            continue
        _returned(op, entity, doc.order_number, line, -rl.quantity)
    touch(order)
    if not blockers:
        op.change("return", doc.number, "reverted", None, "yes")
    return blockers, doc

