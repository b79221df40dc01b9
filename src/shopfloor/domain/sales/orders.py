"""Sales orders: taking, changing, cancelling and shipping them.

An open sales order commits stock (available = on hand - committed) and ships it at
average cost when fulfilled. Terminal orders (fulfilled, cancelled) never change again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.lines import rules
from shopfloor.domain.lines.columns import copied
from shopfloor.domain.lines.rules import LineMoved, Moved, raised_since
from shopfloor.domain.lines.rules import LineSpec as LineSpec  # what callers spell lines in
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import OPEN_SO, SO
from shopfloor.store.tables import SalesOrder, SalesOrderLine


def _commit_lines(op: Op, so: SalesOrder, sign: int) -> None:
    stock.prefetch(op, [ln.item for ln in so.lines], so.location)
    for ln in so.lines:
        outstanding = ln.quantity - ln.fulfilled_quantity
        if outstanding > 0:
            stock.reserve(op, ln.item, so.location, outstanding * sign)


def _warn_short(op: Op, so: SalesOrder) -> None:
    """Stock in held or expired lots is on hand but cannot ship: it does not count."""
    lot_book = stock.ledger(op).lots
    for i, ln in enumerate(so.lines):
        bal = stock.balance(op, ln.item, so.location)
        held, which = lot_book.held_back(ln.item, so.location.id)
        if bal.on_hand - held - bal.committed < 0:
            have = f"{fmt(bal.on_hand - held)} usable of {fmt(bal.on_hand)} on hand ({which})" \
                if held else f"{fmt(bal.on_hand)} on hand"
            op.warn("short", f"{ln.item.sku}: only {have} for {fmt(bal.committed)} committed "
                    f"at {so.location.code}; this order will wait for stock",
                    fld=f"lines[{i}].quantity")


def create_sales_order(op: Op, customer: str, location: str, lines: Sequence[LineSpec], *,
                       number: str | None, due_date: date | None, notes: str | None
                       ) -> SalesOrder:
    cus = lookup.customer(op, customer)
    loc = lookup.location(op, location)
    items = rules.items(op, lines)
    so = SalesOrder(number=claim_number(op, SalesOrder, number, "SO"), customer=cus,
                    customer_id=cus.id, location=loc, location_id=loc.id, status=SO.open,
                    due_date=due_date, notes=notes, created_at=op.now, currency=cus.currency)
    op.session.add(so)
    for i, (ln, item) in enumerate(zip(lines, items, strict=True)):
        exact(ln.quantity, item, f"lines[{i}].quantity")
        price = item.sales_price if ln.unit_price is None else ln.unit_price
        so.lines.append(SalesOrderLine(item_id=item.id, item=item, position=i,
                                       quantity=ln.quantity, unit_price=price))
        op.change("sales_order", so.number, f"line {item.sku}", None,
                  f"{fmt(ln.quantity)} @ {fmt(price)}")
    op.session.flush()
    op.change("sales_order", so.number, "status", None, SO.open)
    _commit_lines(op, so, +1)
    _warn_short(op, so)
    return so


def modify_sales_order(op: Op, so: SalesOrder, *, customer: str | None, location: str | None,
                       due_date: date | None, notes: str | None,
                       lines: Sequence[LineSpec] | None) -> SalesOrder:
    """Change `so`, found and locked by the caller."""
    number = so.number
    rules.still_open(so, "sales order", OPEN_SO)
    shipped = {ln.item_id: ln.fulfilled_quantity for ln in so.lines}
    if customer is not None and customer != so.customer.name:
        new = lookup.customer(op, customer)
        op.change("sales_order", number, "customer", so.customer.name, new.name)
        so.customer, so.customer_id = new, new.id
    _commit_lines(op, so, -1)
    rules.relocated(op, "sales_order", so, location,
                    "part of this order already shipped from its location"
                    if any(q > 0 for q in shipped.values()) else None)
    rules.edited(op, "sales_order", so, "due_date", due_date)
    rules.edited(op, "sales_order", so, "notes", notes)
    if lines is not None:
        items = rules.items(op, lines)
        old = {ln.item.sku: f"{fmt(ln.quantity)} @ {fmt(ln.unit_price)}" for ln in so.lines}
        kept_lines = {ln.item_id: ln for ln in so.lines}  # shipped and returned kept
        for i, (ln, item) in enumerate(zip(lines, items, strict=True)):
            exact(ln.quantity, item, f"lines[{i}].quantity")
            if ln.quantity < shipped.get(item.id, ZERO):
                raise ValidationFailed(f"{item.sku}: {fmt(shipped[item.id])} already shipped",
                                       field=f"lines[{i}].quantity")
        kept = {item.id for item in items}
        if any(q > 0 and item_id not in kept for item_id, q in shipped.items()):
            raise ValidationFailed("a line that already shipped cannot be removed",
                                   field="lines")
        fresh = [copied(kept_lines.get(item.id), SalesOrderLine, item_id=item.id, item=item,
                        position=i, quantity=ln.quantity,
                        unit_price=item.sales_price if ln.unit_price is None else ln.unit_price)
                 for i, (ln, item) in enumerate(zip(lines, items, strict=True))]
        so.lines.clear()
        op.session.flush()
        for ln, item, line in zip(lines, items, fresh, strict=True):
            so.lines.append(line)
            op.change("sales_order", number, f"line {item.sku}", old.pop(item.sku, None),
                      f"{fmt(ln.quantity)} @ {fmt(line.unit_price)}")
        for sku, was in old.items():
            op.change("sales_order", number, f"line {sku}", was, None)
    _commit_lines(op, so, +1)
    if so.lines and all(ln.fulfilled_quantity >= ln.quantity for ln in so.lines):
        rules.move_status(op, "sales_order", so, SO.fulfilled)
    _warn_short(op, so)
    touch(so)
    return so


def cancel_sales_order(op: Op, so: SalesOrder) -> SalesOrder:
    """Cancel `so`, found and locked by the caller."""
    rules.still_open(so, "sales order", OPEN_SO)
    _commit_lines(op, so, -1)
    rules.move_status(op, "sales_order", so, SO.cancelled)
    return so


def _outstanding(order_lines: Sequence[SalesOrderLine], lines: Sequence[LineSpec] | None,
                 number: str) -> list[tuple[SalesOrderLine, Decimal, str]]:
    """Which lines a shipment moves, and how much: all that is outstanding, or the lines
    asked for, each within what is still outstanding on it."""
    if lines is None:
        return [(ln, ln.quantity - ln.fulfilled_quantity, "lines") for ln in order_lines
                if ln.quantity > ln.fulfilled_quantity]
    todo: list[tuple[SalesOrderLine, Decimal, str]] = []
    for i, spec, line in rules.named_lines(order_lines, lines, number):
        exact(spec.quantity, line.item, f"lines[{i}].quantity")
        outstanding = line.quantity - line.fulfilled_quantity
        if spec.quantity > outstanding:
            raise ValidationFailed(
                f"{spec.sku}: shipping {fmt(spec.quantity)} but only {fmt(outstanding)} "
                "outstanding",
                field=f"lines[{i}].quantity")
        todo.append((line, spec.quantity, f"lines[{i}].quantity"))
    return todo


def fulfill_sales_order(op: Op, so: SalesOrder, lines: Sequence[LineSpec] | None
                        ) -> Moved[SalesOrder]:
    """Ship `so`'s lines. The caller found and locked `so` (one lookup per write)."""
    number, start = so.number, len(op.warnings)
    rules.still_open(so, "sales order", OPEN_SO)
    todo = _outstanding(so.lines, lines, number)
    stock.prefetch(op, [line.item for line, _, _ in todo], so.location)
    specs = rules.by_sku(lines)
    parts = lots.outgoing(op, [rules.lot_line(line.item, qty, fld, specs.get(line.item.sku))
                               for line, qty, fld in todo])
    for (line, qty, _), line_parts in zip(todo, parts, strict=True):
        spec = specs.get(line.item.sku)
        for part in line_parts:
            stock.post(op, Posting(line.item, so.location, -part.quantity, "shipment",
                                   "sales_order", so.number, batch_id=part.batch_id,
                                   allow_expired=spec is not None and spec.allow_expired,
                                   field=part.field))
        stock.reserve(op, line.item, so.location, -qty)
        op.change("sales_order", number, f"line {line.item.sku} shipped",
                  line.fulfilled_quantity, line.fulfilled_quantity + qty)
        line.fulfilled_quantity += qty
    done = all(ln.fulfilled_quantity >= ln.quantity for ln in so.lines)
    rules.move_status(op, "sales_order", so, SO.fulfilled if done else SO.partially_fulfilled)
    touch(so)
    return Moved(so, tuple(LineMoved(line.item.sku, qty) for line, qty, _ in todo),
                 raised_since(op, start))
