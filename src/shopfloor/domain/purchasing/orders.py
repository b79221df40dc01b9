"""Purchase and sales orders: lines, statuses, receipts and shipments.

A purchase order moves stock in at its line price when received; an open sales order
commits stock (available = on hand - committed) and ships it at average cost when
fulfilled. Terminal orders (received, fulfilled, cancelled) never change again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, NamedTuple, TypeVar

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.orders import purchase_units as units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import OPEN_PO, OPEN_SO, PO, SO, said
from shopfloor.store.tables import (
    Item,
    PurchaseOrder,
    PurchaseOrderLine,
    SalesOrder,
    SalesOrderLine,
)


class LineSpec(NamedTuple):
    sku: str
    quantity: Decimal
    unit_price: Decimal | None = None
    lots: tuple[lots.LotIn, ...] = ()
    serials: tuple[str, ...] = ()
    allow_expired: bool = False
    expected_date: date | None = None  # a purchase line's own date (None: the order's)
    unit: str | None = None  # a purchase line's supplier unit (None: the stock unit)


def _items(op: Op, lines: Sequence[LineSpec]) -> list[Item]:
    seen: set[str] = set()
    items = []
    for i, ln in enumerate(lines):
        if ln.sku in seen:
            raise ValidationFailed(f"{ln.sku} appears twice; use one line per item",
                                   field=f"lines[{i}].sku")
        seen.add(ln.sku)
        items.append(lookup.item(op, ln.sku, fld=f"lines[{i}].sku"))
    return items


def _status(op: Op, kind: str, doc: PurchaseOrder | SalesOrder, status: str) -> None:
    op.change(kind, doc.number, "status", doc.status, status)
    doc.status = status


def _open(doc: PurchaseOrder | SalesOrder, kind: str, open_states: tuple[str, ...]) -> None:
    if doc.status not in open_states:
        raise Conflict(f"{kind} {doc.number} is {said(doc.status)} and can no longer change",
                       field="number")


# -- purchasing ----------------------------------------------------------------------
def _line_text(quantity: Decimal, price: Decimal, expected: date | None,
               unit: str | None = None) -> str:
    return units.text(quantity, price, unit) + (f" by {expected.isoformat()}" if expected
                                                else "")


def create_purchase_order(op: Op, supplier: str, location: str, lines: Sequence[LineSpec], *,
                          number: str | None, expected_date: date | None, notes: str | None,
                          status: str) -> PurchaseOrder:
    sup = lookup.supplier(op, supplier)
    loc = lookup.location(op, location)
    items = _items(op, lines)
    po = PurchaseOrder(number=claim_number(op, PurchaseOrder, number, "PO"), supplier=sup,
                       supplier_id=sup.id, location=loc, location_id=loc.id, status=status,
                       expected_date=expected_date, notes=notes, created_at=op.now,
                       currency=sup.currency)
    op.session.add(po)
    for i, (ln, item) in enumerate(zip(lines, items, strict=True)):
        t = units.terms(op, sup, item, ln, i)
        po.lines.append(PurchaseOrderLine(item_id=item.id, item=item, position=i,
                                          quantity=t.quantity, unit_price=t.price,
                                          unit=t.unit, units_per_unit=t.per,
                                          **_in_unit(t, ZERO, ZERO),
                                          expected_date=ln.expected_date))
        op.change("purchase_order", po.number, f"line {item.sku}", None,
                  _line_text(ln.quantity, t.price, ln.expected_date, t.unit))
    op.session.flush()
    op.change("purchase_order", po.number, "status", None, status)
    return po


def modify_purchase_order(op: Op, number: str, *, supplier: str | None, location: str | None,
                          expected_date: date | None, notes: str | None,
                          lines: Sequence[LineSpec] | None, status: str | None
                          ) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, lock=True)
    _open(po, "purchase order", OPEN_PO)
    received = any(ln.received_quantity > 0 for ln in po.lines)
    if supplier is not None and supplier != po.supplier.name:
        new = lookup.supplier(op, supplier)
        if (new.currency != po.currency and received) or (lines is None and any(
                ln.unit for ln in po.lines)):
            raise Conflict(f"{number} is in {po.supplier.name}'s terms (received, or in its "
                           "units); give the lines in the new supplier's", field="supplier")
        op.change("purchase_order", number, "supplier", po.supplier.name, new.name)
        po.supplier, po.supplier_id, po.currency = new, new.id, new.currency
    if location is not None and location != po.location.code:
        if received:
            raise Conflict("stock was already received at the old location", field="location")
        loc = lookup.location(op, location)
        op.change("purchase_order", number, "location", po.location.code, loc.code)
        po.location, po.location_id = loc, loc.id
    if expected_date is not None and expected_date != po.expected_date:
        op.change("purchase_order", number, "expected_date", po.expected_date, expected_date)
        po.expected_date = expected_date
    if notes is not None and notes != po.notes:
        op.change("purchase_order", number, "notes", po.notes, notes)
        po.notes = notes
    if lines is not None:
        items = _items(op, lines)
        kept = {ln.item_id: ln for ln in po.lines}
        in_unit = {ln.item_id: _unit_done(ln) for ln in po.lines}
        got = {ln.item_id: ln.received_quantity for ln in po.lines}
        sent_back = {ln.item_id: ln.returned_quantity for ln in po.lines}
        old = {ln.item.sku: _line_text(units.shown(ln)[0], ln.unit_price,
                                       ln.expected_date, ln.unit) for ln in po.lines}
        wanted = [units.terms(op, po.supplier, item, ln, i)
                  for i, (ln, item) in enumerate(zip(lines, items, strict=True))]
        for i, (t, item) in enumerate(zip(wanted, items, strict=True)):
            _keeps_received(t, kept.get(item.id), i)
        dropped = [sku for sku, q in ((ln.item.sku, ln.received_quantity) for ln in po.lines)
                   if q > 0 and sku not in {x.sku for x in lines}]
        if dropped:
            raise ValidationFailed(f"{dropped[0]} was already received; keep its line",
                                   field="lines")
        po.lines.clear()
        op.session.flush()
        for i, (ln, t, item) in enumerate(zip(lines, wanted, items, strict=True)):
            po.lines.append(PurchaseOrderLine(item_id=item.id, item=item, position=i,
                                              quantity=t.quantity, unit_price=t.price,
                                              unit=t.unit, units_per_unit=t.per,
                                              **_in_unit(t, *in_unit.get(item.id, (ZERO, ZERO))),
                                              received_quantity=got.get(item.id, ZERO),
                                              returned_quantity=sent_back.get(item.id, ZERO),
                                              expected_date=ln.expected_date))
            op.change("purchase_order", number, f"line {item.sku}", old.pop(item.sku, None),
                      _line_text(ln.quantity, t.price, ln.expected_date, t.unit))
        for sku, was in old.items():
            op.change("purchase_order", number, f"line {sku}", was, None)
    if status is not None and status != po.status:
        if po.status != PO.draft or status != PO.open:
            raise Conflict(f"cannot change status {said(po.status)} -> {said(status)}; only "
                           "draft -> open", field="status")
        _status(op, "purchase_order", po, status)
    if po.lines and all(ln.received_quantity >= ln.quantity for ln in po.lines) and received:
        _status(op, "purchase_order", po, PO.received)
    touch(po)
    return po


def _in_unit(t: units.Terms, received: Decimal, returned: Decimal) -> dict[str, Any]:
    """A new line's figures in its own unit (none for a line in stock units)."""
    if t.in_unit is None:
        return {"unit_quantity": None, "unit_received": None, "unit_returned": None}
    return {"unit_quantity": t.in_unit, "unit_received": received, "unit_returned": returned}


def _unit_done(line: PurchaseOrderLine) -> tuple[Decimal, Decimal]:
    """What a replaced line had received and returned, in its unit."""
    _, got, back = units.shown(line)
    return got, back


def _keeps_received(t: units.Terms, line: PurchaseOrderLine | None, i: int) -> None:
    """A replaced line may not order less than it received, compared in its unit; nor
    change the unit of what it received (its figures would no longer mean one thing)."""
    if line is None or line.received_quantity == 0:
        return
    if (t.unit, t.per) != (line.unit, line.units_per_unit):
        raise ValidationFailed(f"{line.item.sku}: {units.said(line.received_quantity, line)} "
                               "already received in its unit; keep it", field=f"lines[{i}].unit")
    _, got, _ = units.shown(line)
    ordered = t.quantity if t.in_unit is None else t.in_unit
    if ordered < got:
        raise ValidationFailed(f"{line.item.sku}: {units.said(line.received_quantity, line, got)}"
                               " already received", field=f"lines[{i}].quantity")


def cancel_purchase_order(op: Op, number: str) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, lock=True)
    _open(po, "purchase order", OPEN_PO)
    if any(ln.received_quantity > 0 for ln in po.lines):
        raise Conflict(f"{number} is partly received; modify its lines down instead",
                       field="number")
    _status(op, "purchase_order", po, PO.cancelled)
    return po


OrderLine = TypeVar("OrderLine", PurchaseOrderLine, SalesOrderLine)


def _outstanding(order_lines: Sequence[OrderLine], done: str, lines: Sequence[LineSpec] | None,
                 number: str, verb: str,
                 say: Callable[[Decimal, OrderLine], str] = lambda q, _: fmt(q)
                 ) -> list[tuple[OrderLine, Decimal, str]]:
    """Which lines a receipt or shipment moves, and how much: all that is outstanding, or
    the lines asked for, each within what is still outstanding on it."""
    if lines is None:
        return [(ln, ln.quantity - getattr(ln, done), "lines") for ln in order_lines
                if ln.quantity > getattr(ln, done)]
    by_sku = {ln.item.sku: ln for ln in order_lines}
    todo: list[tuple[OrderLine, Decimal, str]] = []
    seen: set[str] = set()
    for i, spec in enumerate(lines):
        line = by_sku.get(spec.sku)
        if line is None:
            raise ValidationFailed(f"{spec.sku} is not on {number}", field=f"lines[{i}].sku")
        if spec.sku in seen:
            raise ValidationFailed(f"{spec.sku} appears twice", field=f"lines[{i}].sku")
        seen.add(spec.sku)
        exact(spec.quantity, line.item, f"lines[{i}].quantity")
        outstanding = line.quantity - getattr(line, done)
        if spec.quantity > outstanding:
            raise ValidationFailed(
                f"{spec.sku}: {verb} {say(spec.quantity, line)} but only "
                f"{say(outstanding, line)} outstanding",
                field=f"lines[{i}].quantity")
        todo.append((line, spec.quantity, f"lines[{i}].quantity"))
    return todo


def receive_purchase_order(op: Op, number: str, lines: Sequence[LineSpec] | None,
                           lot: str | None, expiry: date | None,
                           change_expiry: bool = False) -> PurchaseOrder:
    po = lookup.purchase_order(op, number, lock=True)
    if po.status == PO.draft:
        raise Conflict(f"{number} is a draft; open it before receiving", field="number")
    _open(po, "purchase order", OPEN_PO)
    todo = units.to_receive(po, lines)
    if lines is None and not todo:
        raise Conflict(f"{number} has nothing outstanding", field="number")
    unit_cost = units.stock_cost(op, po)
    stock.prefetch(op, [r.line.item for r in todo], po.location)
    specs = _specs(lines)
    parts = lots.incoming(op, [_lot_line(r.line.item, r.quantity, r.field,
                                         specs.get(r.line.item.sku), lot, expiry, change_expiry)
                               for r in todo])
    for (line, qty, in_unit, fld), line_parts in zip(todo, parts, strict=True):
        for part in line_parts:
            stock.post(op, Posting(line.item, po.location, part.quantity, "receipt",
                                   "purchase_order", po.number, unit_cost=unit_cost[line.id],
                                   batch_id=part.batch_id, field=part.field))
        units.count(op, number, line, "received", qty, in_unit)
        said_cost = units.cost_said(op, po, line, unit_cost[line.id])
        if said_cost is not None:
            op.change("purchase_order", number, f"line {line.item.sku} stock cost", None,
                      said_cost)
        _arrival(op, po, line, fld)
    done = all(ln.received_quantity >= ln.quantity for ln in po.lines)
    _status(op, "purchase_order", po, PO.received if done else PO.partially_received)
    touch(po)
    return po


def _arrival(op: Op, po: PurchaseOrder, line: PurchaseOrderLine, fld: str) -> None:
    """A line received before or after its own expected date (the order's date only when
    the line has none) says so: planning counted on that date."""
    expected = line.expected_date or po.expected_date
    if expected is None:
        return
    days = (op.now.date() - expected).days
    if days == 0:
        return
    whose = "its line's date" if line.expected_date else "the order's date"
    late = days > 0
    op.warn("late" if late else "early",
            f"{line.item.sku} received {abs(days)} day{'s' if abs(days) != 1 else ''} "
            f"{'late' if late else 'early'} (expected {expected.isoformat()}, {whose})",
            fld=fld.removesuffix(".quantity"))


def _specs(lines: Sequence[LineSpec] | None) -> dict[str, LineSpec]:
    """The lines a caller named, by SKU (the first, where one is named twice): looked up
    once per order line, not searched (a 200-line receipt searched 40,000 times)."""
    found: dict[str, LineSpec] = {}
    for spec in lines or ():
        found.setdefault(spec.sku, spec)
    return found


def _lot_line(item: Item, qty: Decimal, fld: str, spec: LineSpec | None,
              lot: str | None = None, expiry: date | None = None,
              change_expiry: bool = False) -> lots.Line:
    """A moved line's lots: its own, else the document's one lot (a tracked item only)."""
    named = spec.lots if spec else ()
    if not named and lot is not None and lots.tracked(item) and not item.serial_tracked:
        named = (lots.LotIn(lot, None, expiry, change_expiry, "expiry"),)
    return lots.Line(item, qty, fld.removesuffix(".quantity"), named,
                     spec.serials if spec else (), expiry)


# -- sales -----------------------------------------------------------------------------
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
    items = _items(op, lines)
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


def modify_sales_order(op: Op, number: str, *, customer: str | None, location: str | None,
                       due_date: date | None, notes: str | None,
                       lines: Sequence[LineSpec] | None) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    _open(so, "sales order", OPEN_SO)
    shipped = {ln.item_id: ln.fulfilled_quantity for ln in so.lines}
    if customer is not None and customer != so.customer.name:
        new = lookup.customer(op, customer)
        op.change("sales_order", number, "customer", so.customer.name, new.name)
        so.customer, so.customer_id = new, new.id
    _commit_lines(op, so, -1)
    if location is not None and location != so.location.code:
        if any(q > 0 for q in shipped.values()):
            raise Conflict("part of this order already shipped from its location",
                           field="location")
        loc = lookup.location(op, location)
        op.change("sales_order", number, "location", so.location.code, loc.code)
        so.location, so.location_id = loc, loc.id
    if due_date is not None and due_date != so.due_date:
        op.change("sales_order", number, "due_date", so.due_date, due_date)
        so.due_date = due_date
    if notes is not None and notes != so.notes:
        op.change("sales_order", number, "notes", so.notes, notes)
        so.notes = notes
    if lines is not None:
        items = _items(op, lines)
        old = {ln.item.sku: f"{fmt(ln.quantity)} @ {fmt(ln.unit_price)}" for ln in so.lines}
        back = {ln.item_id: ln.returned_quantity for ln in so.lines}  # kept, as shipped is
        for i, (ln, item) in enumerate(zip(lines, items, strict=True)):
            exact(ln.quantity, item, f"lines[{i}].quantity")
            if ln.quantity < shipped.get(item.id, ZERO):
                raise ValidationFailed(f"{item.sku}: {fmt(shipped[item.id])} already shipped",
                                       field=f"lines[{i}].quantity")
        kept = {item.id for item in items}
        if any(q > 0 and item_id not in kept for item_id, q in shipped.items()):
            raise ValidationFailed("a line that already shipped cannot be removed",
                                   field="lines")
        so.lines.clear()
        op.session.flush()
        for i, (ln, item) in enumerate(zip(lines, items, strict=True)):
            price = item.sales_price if ln.unit_price is None else ln.unit_price
            so.lines.append(SalesOrderLine(item_id=item.id, item=item, position=i,
                                           quantity=ln.quantity, unit_price=price,
                                           fulfilled_quantity=shipped.get(item.id, ZERO),
                                           returned_quantity=back.get(item.id, ZERO)))
            op.change("sales_order", number, f"line {item.sku}", old.pop(item.sku, None),
                      f"{fmt(ln.quantity)} @ {fmt(price)}")
        for sku, was in old.items():
            op.change("sales_order", number, f"line {sku}", was, None)
    _commit_lines(op, so, +1)
    if so.lines and all(ln.fulfilled_quantity >= ln.quantity for ln in so.lines):
        _status(op, "sales_order", so, SO.fulfilled)
    _warn_short(op, so)
    touch(so)
    return so


def cancel_sales_order(op: Op, number: str) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    _open(so, "sales order", OPEN_SO)
    _commit_lines(op, so, -1)
    _status(op, "sales_order", so, SO.cancelled)
    return so


def fulfill_sales_order(op: Op, number: str, lines: Sequence[LineSpec] | None) -> SalesOrder:
    so = lookup.sales_order(op, number, lock=True)
    _open(so, "sales order", OPEN_SO)
    todo = _outstanding(so.lines, "fulfilled_quantity", lines, number, "shipping")
    stock.prefetch(op, [line.item for line, _, _ in todo], so.location)
    specs = _specs(lines)
    parts = lots.outgoing(op, [_lot_line(line.item, qty, fld, specs.get(line.item.sku))
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
    _status(op, "sales_order", so, SO.fulfilled if done else SO.partially_fulfilled)
    touch(so)
    return so
