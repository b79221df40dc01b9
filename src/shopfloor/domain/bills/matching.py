"""The rules a bill line is matched by, over plain values (no database in their tests).

Quantity: a line bills at most what came in and stayed (received less returned less
billed before); more is refused, not held, since no approval makes goods arrive: the
receipt is entered first. Price: the billed price may differ from the order's by the
supplier's tolerance, a percent of the price or an amount on the line, either one
sufficing (a 2 % tolerance on cheap screws and 5.00 on a whole line of them); beyond it
the bill waits for a buyer's approval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from decimal import Decimal
from typing import NamedTuple

from shopfloor.kernel.numbers import ZERO, cost, fmt


class Tolerance(NamedTuple):
    percent: Decimal = ZERO
    amount: Decimal = ZERO


def within(ordered: Decimal, billed: Decimal, quantity: Decimal, tol: Tolerance) -> bool:
    """Whether a billed price posts itself: equal to the order's, or off by no more than
    `tol.percent` of the order's price, or by no more than `tol.amount` on the line."""
    diff = abs(billed - ordered)
    return diff == 0 or diff * quantity <= tol.amount or diff * 100 <= ordered * tol.percent


def held_because(sku: str, order: str, ordered: Decimal, billed: Decimal, quantity: Decimal,
                 tol: Tolerance, currency: str) -> str:
    """Why a line waits for approval, in the buyer's words."""
    diff = billed - ordered
    pct = f"{fmt(cost(diff * 100 / ordered))} %" if ordered else "any"
    return (f"{sku} on {order} billed at {fmt(billed)} {currency}, ordered at {fmt(ordered)} "
            f"({pct}, {fmt(diff * quantity)} {currency} on the line): beyond the supplier's "
            f"tolerance of {fmt(tol.percent)} % or {fmt(tol.amount)} {currency}; a buyer "
            "approves it")


def billable(received: Decimal, returned: Decimal, billed: Decimal) -> Decimal:
    return received - returned - billed


class Lot(NamedTuple):
    """Goods one receipt brought in: its day (the rate it was booked at) and quantity."""

    day: date
    quantity: Decimal


def taken(lots: Sequence[Lot], skip: Decimal, take: Decimal) -> list[Lot]:
    """The `take` units after the oldest `skip` (returned and billed before): what a bill
    clears, oldest first, each with the day it was booked."""
    out: list[Lot] = []
    for lot in lots:
        qty = lot.quantity
        if skip >= qty:
            skip -= qty
            continue
        qty -= skip
        skip = ZERO
        got = min(qty, take)
        if got > 0:
            out.append(Lot(lot.day, got))
            take -= got
        if take <= 0:
            break
    if take > 0 and lots:  # more than the receipts hold (a correction since): the latest day
        out.append(Lot(lots[-1].day, take))
    return out


def net(rows: Iterable[tuple[date, Decimal]]) -> tuple[list[Lot], Decimal]:
    """Receipts as lots, oldest first, and what was taken back out (corrections down)."""
    lots, out = [], ZERO
    for day, qty in rows:
        if qty > 0:
            lots.append(Lot(day, qty))
        else:
            out -= qty
    return lots, out
