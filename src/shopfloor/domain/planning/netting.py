"""Time-phased netting of one item: its dated needs against its dated supply, by day.

The needs are walked in date order and each draws on supply first in, first out: the
stock on hand, then the orders already placed in the order they arrive, then the orders
this plan adds. That drawing *is* the pegging: every supply ends up with the list of
needs it covers, and an order already placed that a need draws on before it arrives is
one to expedite (the plan does not add a second order for a need something already on
order will cover; it says which order to bring forward).

Safety stock is a need too: the reorder point, wanted by the earliest day an order could
arrive (plan date + lead time). Needs before that day ship from stock first, so the
safety stock is what the next order restores, and a projected balance at or above the
reorder point orders nothing (planning up to it never orders twice).

When a need finds no supply left, one order is planned, due the day of the need and
started its lead time earlier. It covers that need and every later need due by the day
it arrives (needs of one day are one net requirement), or, with a period of supply, every
need in the next N days; then the lot-sizing rules round it. An order that would have to
start before the plan date starts today, is flagged late, and is due when its lead time
allows. The work is O(needs + supplies) per item.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from operator import attrgetter
from typing import Any, Protocol

from shopfloor.domain.planning import lot_sizing
from shopfloor.domain.planning.data import SAFETY, ItemData, Need, Receipt
from shopfloor.kernel.numbers import ZERO

_by_date = attrgetter("date")
_by_arrival = attrgetter("date", "document")
ON_HAND = "on_hand"
SHORTFALL = "negative_stock"
PLANNED = "planned_order"


@dataclass(slots=True)
class Layer:
    """A supply the needs draw on: stock on hand, an order already placed (`receipt`), or
    an order this plan adds (kind PLANNED: `document` is its ref, `date` its due date).
    `pegs` are the needs it covers, with the quantity each took."""

    date: dt.date
    quantity: Decimal
    left: Decimal
    kind: str
    document: str | None
    receipt: Receipt | None = None
    pegs: list[tuple[Need, Decimal]] = field(default_factory=list)
    # a planned order's: the net need it was sized from, its start, the date of the need
    # that triggered it, and whether it starts too late for that need
    net: Decimal = ZERO
    start: dt.date | None = None
    needed_by: dt.date | None = None
    late: bool = False
    choice: Any = None  # a purchase's supplier, when the item has supplier items (buying)


@dataclass(slots=True)
class Netted:
    item: ItemData
    on_hand: Decimal
    needs: list[Need]
    placed: list[Layer]    # orders already placed, in the order they arrive
    planned: list[Layer]   # orders this plan adds, by date


class Buy(Protocol):
    """Which supplier and how much of its unit a purchase of (stock quantity, need date)
    goes to (a buying.choice.Choice); `fastest`: the shortest lead time on offer, which
    is what dates the order (in time if any offer is, else as soon as the fastest)."""

    fastest: int

    def __call__(self, need: Decimal, need_date: date) -> Any: ...


def net(item: ItemData, on_hand: Decimal, receipts: list[Receipt], needs: list[Need],
        today: date, next_ref: Callable[[], str], buy: Buy | None = None) -> Netted:
    lead = timedelta(days=item.lead)
    layers: list[Layer] = []
    if on_hand > 0:
        layers.append(Layer(today, on_hand, on_hand, ON_HAND, None))
    placed = [Layer(r.date, r.quantity, r.quantity, r.kind, r.document, r)
              for r in sorted(receipts, key=_by_arrival)] if receipts else []
    layers += placed
    wanted = list(needs)
    if item.safety > 0:
        earliest = today + lead
        wanted.append(Need(earliest, item.safety, SAFETY, None, earliest))
    if on_hand < 0:  # stock already owed (a location that may go negative): due now
        wanted.append(Need(today, -on_hand, SHORTFALL, None, today))
    # by date; a day's needs in the order they were read (documents by number, then
    # planned parents as planned), safety stock after them: the sort is stable
    wanted.sort(key=_by_date)
    period = timedelta(days=item.period)
    planned: list[Layer] = []
    at, count = 0, len(layers)
    for i, need in enumerate(wanted):
        left = need.quantity
        while left > 0:
            if at == count:
                layer = _plan(item, wanted, i, left, today, lead, period, next_ref(), buy)
                layers.append(layer)
                planned.append(layer)
                count += 1
            else:
                layer = layers[at]
            if left < layer.left:
                layer.left -= left
                layer.pegs.append((need, left))
                break
            take = layer.left
            layer.pegs.append((need, take))
            layer.left = ZERO
            left -= take
            at += 1
    return Netted(item, on_hand, wanted, placed, planned)


def _plan(item: ItemData, wanted: list[Need], i: int, left: Decimal, today: date,
          lead: timedelta, period: timedelta, ref: str, buy: Buy | None = None) -> Layer:
    """A purchase with supplier items takes the chosen supplier's lead time and is
    rounded to its packs, minimum and breaks after the item's own sizing rules."""
    need = wanted[i]
    wanted_on = need.date
    if buy is not None:
        lead = timedelta(days=buy.fastest)
    start = wanted_on - lead
    late = (need.due or wanted_on) - lead < today  # a past-due need is late, whatever the lead
    due = wanted_on
    if start < today:  # starts today, due when its lead time allows
        start = today
        due = today + lead if today + lead > wanted_on else wanted_on
    until = wanted_on + period
    covered = left
    for j in range(i + 1, len(wanted)):
        later = wanted[j]
        if later.date > due and later.date >= until:
            break
        covered += later.quantity
    quantity = lot_sizing.size(covered, item)
    choice = None
    if buy is not None:
        choice = buy(quantity, wanted_on)
        start = max(today, due - timedelta(days=choice.offer.lead))
        quantity = choice.stock_quantity
    return Layer(due, quantity, quantity, PLANNED, ref, None, [], covered, start,
                 need.due or wanted_on, late, choice)
