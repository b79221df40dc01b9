"""Which supplier a planned purchase goes to, and how much of its unit to order.

The preferred supplier if it delivers in time; else the cheapest that does, "cheapest"
being the lowest total price of an order that covers the need with the supplier's
minimum, multiple and price breaks applied (ordering up to the next break counts when it
costs less in total); else the fastest, flagged late. Totals in different currencies are
compared in the company's, at the rate valid on the plan date; an offer in a currency
with no rate is compared last. No database: MRP calls this once per planned purchase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache

from shopfloor.kernel.numbers import fmt


@dataclass(frozen=True, slots=True)
class Offer:
    supplier: str
    currency: str
    unit: str
    per: Decimal             # stock units in one purchase unit
    minimum: Decimal         # purchase units
    multiple: Decimal | None  # purchase units
    lead: int                # days
    breaks: tuple[tuple[Decimal, Decimal], ...]  # (min_quantity, unit_price), ascending
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class Choice:
    offer: Offer
    units: Decimal       # purchase units ordered
    unit_price: Decimal  # per purchase unit, in the offer's currency
    late: bool
    why: str

    @property
    def stock_quantity(self) -> Decimal:
        return self.units * self.offer.per

    @property
    def total(self) -> Decimal:
        return self.units * self.unit_price


def price_at(offer: Offer, units: Decimal) -> Decimal:
    """The price per purchase unit of an order of `units`: the last break it reaches (the
    first break's price below it)."""
    price = offer.breaks[0][1]
    for least, p in offer.breaks:
        if units < least:
            break
        price = p
    return price


def _up(quantity: Decimal, multiple: Decimal | None) -> Decimal:
    step = multiple or Decimal(1)  # a purchase unit is bought whole unless a multiple says
    return (quantity / step).to_integral_value(rounding=ROUND_CEILING) * step


def order_for(offer: Offer, need: Decimal) -> tuple[Decimal, Decimal]:
    """(purchase units, price per unit) of the cheapest order covering `need` stock units."""
    base = _up(max(need / offer.per, offer.minimum), offer.multiple)
    best = (base, price_at(offer, base))
    for least, _ in offer.breaks:
        if least > base:
            units = _up(least, offer.multiple)
            price = price_at(offer, units)
            if units * price < best[0] * best[1]:
                best = (units, price)
    return best


_fmt = lru_cache(maxsize=65536)(fmt)  # a plan says few distinct figures, many times


def _said(offer: Offer, units: Decimal, price: Decimal) -> str:
    return (f"{offer.supplier}: {_fmt(units)} {offer.unit} at {_fmt(price)} = "
            f"{_fmt(units * price)} {offer.currency}")


def choose(offers: Sequence[Offer], need: Decimal, need_date: date, today: date,
           rates: Mapping[str, Decimal]) -> Choice | None:
    if not offers:
        return None
    in_time = [o for o in offers if today + timedelta(days=o.lead) <= need_date]
    for o in in_time:
        if o.preferred:
            units, price = order_for(o, need)
            return Choice(o, units, price, False,
                          f"preferred, in time ({o.lead} days): {_said(o, units, price)}")
    priced = [(o, *order_for(o, need)) for o in (in_time or offers)]

    def in_company(row: tuple[Offer, Decimal, Decimal]) -> tuple[int, Decimal, Decimal, int, str]:
        o, units, price = row
        rate = rates.get(o.currency)
        total = units * price * rate if rate is not None else units * price
        return (rate is None, total, units, o.lead, o.supplier)

    if in_time:
        priced.sort(key=in_company)
        o, units, price = priced[0]
        runner_up = f" (against {_said(*priced[1])})" if len(priced) > 1 else ""
        return Choice(o, units, price, False,
                      f"cheapest in time: {_said(o, units, price)}{runner_up}")
    priced.sort(key=lambda row: (row[0].lead, *in_company(row)))
    o, units, price = priced[0]
    return Choice(o, units, price, True, f"none in time; fastest ({o.lead} days), late: "
                  f"{_said(o, units, price)}")


class Buyer:
    """`choose` over one item's offers, as planning asks it (see netting.Buy)."""

    __slots__ = ("fastest", "offers", "rates", "today")

    def __init__(self, offers: Sequence[Offer], today: date,
                 rates: Mapping[str, Decimal]) -> None:
        self.offers, self.today, self.rates = offers, today, rates
        self.fastest = min(o.lead for o in offers)

    def __call__(self, need: Decimal, need_date: date) -> Choice:
        found = choose(self.offers, need, need_date, self.today, self.rates)
        assert found is not None  # never built without offers
        return found
