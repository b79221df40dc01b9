"""A sales order's pick list: what shipping it now would take, lot by lot.

The lots come in the order shipping takes them (`LotBook.fefo`, the ledger's own
first-expiring-first-out), so the paper in the picker's hand and the stock the shipment
books are the same lots. Nothing is moved or locked: it is a reading of the moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock.lot_ledger import LotBook, tracked
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import SalesOrder


@dataclass(frozen=True)
class Pick:
    lot: str | None  # None: untracked stock, or stock that predates tracking
    expiry: date | None
    quantity: Decimal


@dataclass
class PickLine:
    sku: str
    name: str
    uom: str
    quantity: Decimal  # still to ship
    picks: list[Pick] = field(default_factory=list)
    short: Decimal = ZERO  # what the lots picking may take do not cover


def pick_list(op: Op, number: str) -> tuple[SalesOrder, list[PickLine]]:
    so = lookup.sales_order(op, number)
    book = LotBook(op)
    book.want([ln.item_id for ln in so.lines if tracked(ln.item)], so.location_id)
    out: list[PickLine] = []
    for ln in so.lines:
        left = ln.quantity - ln.fulfilled_quantity
        if left <= 0:
            continue
        line = PickLine(ln.item.sku, ln.item.name, ln.item.uom, left)
        out.append(line)
        if not tracked(ln.item):
            line.picks.append(Pick(None, None, left))
            continue
        for slot in book.fefo(ln.item_id, so.location_id):
            if left <= 0:
                break
            take = min(left, slot.on_hand - _taken(out, ln.item.sku, slot.lot_number))
            if take > 0:
                line.picks.append(Pick(slot.lot_number, slot.expiry, take))
                left -= take
        line.short = left
    return so, out


def _taken(lines: list[PickLine], sku: str, lot: str) -> Decimal:
    """What earlier lines of the same item already took from a lot."""
    return sum((p.quantity for ln in lines if ln.sku == sku for p in ln.picks
                if p.lot == lot), ZERO)
