"""Purchase orders: placing, changing, cancelling and receiving them.

A purchase order moves stock in at its line price (in the supplier's terms, units.py)
when received. Terminal orders (received, cancelled) never change again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.lines import rules
from shopfloor.domain.lines.columns import copied
from shopfloor.domain.lines.rules import LineMoved, Moved, raised_since
from shopfloor.domain.lines.rules import LineSpec as LineSpec  # what callers spell lines in
from shopfloor.domain.purchasing import units
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import OPEN_PO, PO, said
from shopfloor.store.tables import PurchaseOrder, PurchaseOrderLine


def _line_text(quantity: Decimal, price: Decimal, expected: date | None,
               unit: str | None = None) -> str:
    return units.text(quantity, price, unit) + (f" by {expected.isoformat()}" if expected
                                                else "")


def create_purchase_order(op: Op, supplier: str, location: str, lines: Sequence[LineSpec], *,
                          number: str | None, expected_date: date | None, notes: str | None,
                          status: str) -> PurchaseOrder:
    sup = lookup.supplier(op, supplier)
    loc = lookup.location(op, location)
    items = rules.items(op, lines)
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


def modify_purchase_order(op: Op, po: PurchaseOrder, *, supplier: str | None,
                          location: str | None, expected_date: date | None, notes: str | None,
                          lines: Sequence[LineSpec] | None, status: str | None
                          ) -> PurchaseOrder:
    """Change `po`, found and locked by the caller."""
    number = po.number
    rules.still_open(po, "purchase order", OPEN_PO)
    received = any(ln.received_quantity > 0 for ln in po.lines)
    if supplier is not None and supplier != po.supplier.name:
        new = lookup.supplier(op, supplier)
        if (new.currency != po.currency and received) or (lines is None and any(
                ln.unit for ln in po.lines)):
            raise Conflict(f"{number} is in {po.supplier.name}'s terms (received, or in its "
                           "units); give the lines in the new supplier's", field="supplier")
        op.change("purchase_order", number, "supplier", po.supplier.name, new.name)
        po.supplier, po.supplier_id, po.currency = new, new.id, new.currency
    rules.relocated(op, "purchase_order", po, location,
                    "stock was already received at the old location" if received else None)
    rules.edited(op, "purchase_order", po, "expected_date", expected_date)
    rules.edited(op, "purchase_order", po, "notes", notes)
    if lines is not None:
        items = rules.items(op, lines)
        kept = {ln.item_id: ln for ln in po.lines}
        in_unit = {ln.item_id: _unit_done(ln) for ln in po.lines}
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
        fresh = [copied(kept.get(item.id), PurchaseOrderLine, item_id=item.id, item=item,
                        position=i, quantity=t.quantity, unit_price=t.price, unit=t.unit,
                        units_per_unit=t.per, expected_date=ln.expected_date,
                        **_in_unit(t, *in_unit.get(item.id, (ZERO, ZERO))))
                 for i, (ln, t, item) in enumerate(zip(lines, wanted, items, strict=True))]
        po.lines.clear()
        op.session.flush()
        for ln, t, item, line in zip(lines, wanted, items, fresh, strict=True):
            po.lines.append(line)
            op.change("purchase_order", number, f"line {item.sku}", old.pop(item.sku, None),
                      _line_text(ln.quantity, t.price, ln.expected_date, t.unit))
        for sku, was in old.items():
            op.change("purchase_order", number, f"line {sku}", was, None)
    if status is not None and status != po.status:
        if po.status != PO.draft or status != PO.open:
            raise Conflict(f"cannot change status {said(po.status)} -> {said(status)}; only "
                           "draft -> open", field="status")
        rules.move_status(op, "purchase_order", po, status)
    if po.lines and all(ln.received_quantity >= ln.quantity for ln in po.lines) and received:
        rules.move_status(op, "purchase_order", po, PO.received)
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


def cancel_purchase_order(op: Op, po: PurchaseOrder) -> PurchaseOrder:
    """Cancel `po`, found and locked by the caller."""
    number = po.number
    rules.still_open(po, "purchase order", OPEN_PO)
    if any(ln.received_quantity > 0 for ln in po.lines):
        raise Conflict(f"{number} is partly received; modify its lines down instead",
                       field="number")
    rules.move_status(op, "purchase_order", po, PO.cancelled)
    return po


def receive_purchase_order(op: Op, po: PurchaseOrder, lines: Sequence[LineSpec] | None,
                           lot: str | None, expiry: date | None,
                           change_expiry: bool = False) -> Moved[PurchaseOrder]:
    """Book `po`'s lines in. The caller found and locked `po` (one lookup per write)."""
    number, start = po.number, len(op.warnings)
    if po.status == PO.draft:
        raise Conflict(f"{number} is a draft; open it before receiving", field="number")
    rules.still_open(po, "purchase order", OPEN_PO)
    todo = units.to_receive(po, lines)
    if lines is None and not todo:
        raise Conflict(f"{number} has nothing outstanding", field="number")
    unit_cost = units.stock_cost(op, po)
    stock.prefetch(op, [r.line.item for r in todo], po.location)
    specs = rules.by_sku(lines)
    parts = lots.incoming(op, [rules.lot_line(r.line.item, r.quantity, r.field,
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
    rules.move_status(op, "purchase_order", po, PO.received if done else PO.partially_received)
    touch(po)
    return Moved(po, tuple(LineMoved(r.line.item.sku, r.quantity) for r in todo),
                 raised_since(op, start))


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
