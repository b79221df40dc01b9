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

from shopfloor.domain.numbers import ZERO
from shopfloor.domain.planning import lot_sizing
from shopfloor.domain.planning.data import SAFETY, ItemData, Need, Receipt

_by_date = attrgetter("date")
ON_HAND = "on_hand"
SHORTFALL = "negative_stock"


@dataclass(slots=True)
class PlannedOrder:
    ref: str
    item: ItemData
    make: bool
    quantity: Decimal
    net: Decimal           # the net need it was sized from
    start: date
    due: date
    needed_by: date        # the date of the need that triggered it
    late: bool


@dataclass(slots=True)
class Layer:
    """A supply the needs draw on: stock on hand, an order already placed, or a planned
    order. `pegs` are the needs it covers, with the quantity each took."""

    date: dt.date
    quantity: Decimal
    left: Decimal
    kind: str
    document: str | None
    receipt: Receipt | None = None
    order: PlannedOrder | None = None
    pegs: list[tuple[Need, Decimal]] = field(default_factory=list)


@dataclass(slots=True)
class Netted:
    item: ItemData
    on_hand: Decimal
    needs: list[Need]
    layers: list[Layer]

    @property
    def planned(self) -> list[Layer]:
        return [la for la in self.layers if la.order is not None]

    @property
    def placed(self) -> list[Layer]:
        return [la for la in self.layers if la.receipt is not None]


def net(item: ItemData, on_hand: Decimal, receipts: list[Receipt], needs: list[Need],
        today: date, make: bool, next_ref: Callable[[], str]) -> Netted:
    lead = timedelta(days=item.lead)
    earliest = today + lead
    layers: list[Layer] = []
    if on_hand > 0:
        layers.append(Layer(today, on_hand, on_hand, ON_HAND, None))
    for r in sorted(receipts, key=lambda r: (r.date, r.document)):
        layers.append(Layer(r.date, r.quantity, r.quantity, r.kind, r.document, r))
    wanted = list(needs)
    if item.safety > 0:
        wanted.append(Need(earliest, item.safety, SAFETY, None, earliest))
    if on_hand < 0:  # stock already owed (a location that may go negative): due now
        wanted.append(Need(today, -on_hand, SHORTFALL, None, today))
    # by date; a day's needs in the order they were read (documents by number, then
    # planned parents as planned), safety stock after them: the sort is stable
    wanted.sort(key=_by_date)
    period = timedelta(days=item.period)
    at, count = 0, len(layers)
    for i, need in enumerate(wanted):
        left = need.quantity
        while left > 0:
            if at == count:
                layers.append(_plan(item, make, wanted, i, left, today, lead, period,
                                    next_ref()))
                count += 1
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
    return Netted(item, on_hand, wanted, layers)


def _plan(item: ItemData, make: bool, wanted: list[Need], i: int, left: Decimal,
          today: date, lead: timedelta, period: timedelta, ref: str) -> Layer:
    need = wanted[i]
    wanted_on = need.date
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
    order = PlannedOrder(ref, item, make, quantity, covered, start, due, need.due or need.date,
                         late)
    return Layer(due, quantity, quantity, "planned_order", ref, order=order)


def supply_total(layers: list[Layer], kind_of: Callable[[Layer], bool]) -> Decimal:
    return sum((la.quantity for la in layers if kind_of(la)), ZERO)
