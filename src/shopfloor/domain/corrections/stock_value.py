"""Stock revalued by hand (issue 31): the goods on a balance given a new unit cost or a
new value, as ERPNext revalues a balance in a count and Odoo adds a revaluation.

The change is one ledger row of quantity 0 on the balance (its value moves, its quantity
does not) and a `revaluation` variance of the opposite sign naming the same document: the
value that came into the stock books from outside them (or left them). The journal posts
the pair as one entry, Inventory against the stock revaluation account, so the Inventory
accounts keep equalling the ledger. A lot of a tracked item is revalued on its own: its
units are valued at the balance's average now, and the difference moves the balance (the
average is per item and location; the lot is named on the row). Reverting negates both
rows, unless goods of the balance have left since: they left at the new cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.base.sequences import next_number
from shopfloor.domain.corrections.ledger import Original, moved_since, reverse_moves
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.ledger import Posting
from shopfloor.domain.stock.lot_ledger import tracked
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import Batch

DOCUMENT = "stock_revaluation"
KIND = "revaluation"
PREFIX = "REV"


@dataclass(frozen=True)
class Revaluation:
    number: str
    sku: str
    location: str
    lot: str | None
    quantity: Decimal
    value_before: Decimal
    value_after: Decimal
    change: Decimal


def _lot(op: Op, item: Any, sku: str, lot: str | None) -> int | None:
    if not tracked(item):
        if lot is not None:
            raise ValidationFailed(f"{sku} is not lot-tracked: leave lot out", field="lot")
        return None
    if lot is None:
        raise ValidationFailed(f"{sku} is lot-tracked: name the lot to revalue", field="lot")
    found = op.session.scalar(select(Batch.id).where(Batch.item_id == item.id,
                                                     Batch.lot_number == lot))
    if found is None:
        raise NotFound(f"no lot {lot!r} of {sku}", field="lot")
    return int(found)


def revalue(op: Op, sku: str, location: str, lot: str | None, unit_cost: Decimal | None,
            value: Decimal | None, reason: str) -> Revaluation:
    """`unit_cost` (each unit's new cost) or `value` (what all of them are worth now)."""
    if not reason.strip():
        raise ValidationFailed("say why the stock is revalued", field="reason")
    if (unit_cost is None) == (value is None):
        raise ValidationFailed("give a new unit_cost or a new value (one of them)",
                               field="unit_cost" if unit_cost is None else "value")
    item = lookup.item(op, sku)
    place = lookup.location(op, location)
    batch_id = _lot(op, item, sku, lot)
    bal = stock.balance(op, item, place)
    if batch_id is None:
        quantity, before = bal.on_hand, bal.value
    else:
        quantity = stock.ledger(op).lots.slot(item.id, place.id, batch_id).on_hand
        before = cost(quantity * bal.average_cost)
    where = f"{sku}@{location}" + (f" lot {lot}" if lot else "")
    if quantity <= 0:
        raise ValidationFailed(f"{where} holds {fmt(quantity)}: only stock on hand can be "
                               "revalued", field="lot" if batch_id is not None else "location")
    fld = "unit_cost" if unit_cost is not None else "value"
    after = storable(cost(quantity * unit_cost) if unit_cost is not None else value or ZERO,
                     fld)
    change = after - before
    if change == 0:
        raise ValidationFailed(f"{where} is already valued at {fmt(before)}", field=fld)
    if bal.value + change < 0:
        raise ValidationFailed(f"{where}: the balance holds {fmt(bal.value)}; it cannot lose "
                               f"{fmt(-change)}", field=fld)
    number = next_number(op, PREFIX)
    stock.post(op, Posting(item, place, ZERO, "revaluation", DOCUMENT, number,
                           unit_cost=cost(change / quantity), batch_id=batch_id, field=fld,
                           value=change, pool=True))
    stock.ledger(op).variance(item, place, -change, KIND, DOCUMENT, number, batch_id, reason)
    op.change(DOCUMENT, number, f"{where} value", fmt(before), fmt(after))
    return Revaluation(number, sku, location, lot, quantity, before, after, change)


def undo(op: Op, o: Original) -> None:
    """The row and its variance negated (the revert answers the variance), unless goods
    of the balance have left since: they took the new cost with them."""
    o.blockers.extend(moved_since(o, "revalue it again instead"))
    reverse_moves(op, o)
