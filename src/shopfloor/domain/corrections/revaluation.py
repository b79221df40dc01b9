"""A document's goods re-priced wherever they are now (a receipt's price corrected, a
completion's consumption corrected).

The difference (`unit_diff` on every unit the document brought in) rides with its goods
through the ledger: an outgoing row takes its share (its quantity / the stock there then);
a transfer carries that share to where the goods went; goods that came back (a customer
return, a shipment corrected down) bring their share back; a reverted movement never
happened (its rows and its revert's are left out). At the end the shares still on hand
are quantity-0 revaluation rows on the balances holding them, and the shares that truly
left are variances naming the documents that took them. Together they are the
correction's value, exactly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import select, true

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.standing import unreverted
from shopfloor.kernel.numbers import ZERO, cost
from shopfloor.store.tables import Balance, Location, StockMovement, StockReturn

Taker = tuple[str | None, str | None, int]  # document type, number, location


class _Walk:
    def __init__(self) -> None:
        self.extra: dict[int, Decimal] = defaultdict(lambda: ZERO)  # value riding per place
        self.taken: dict[Taker, list[Decimal]] = {}  # [quantity, share] gone with a document
        self.carried: dict[str | None, list[Decimal]] = {}  # a transfer's share in transit
        self.total = ZERO
        self.home = 0  # where the document's goods came in

    def take(self, m: StockMovement, held: Decimal) -> None:
        loc, qty = m.location_id, -m.quantity
        if held <= 0 or self.extra[loc] == 0:
            return
        share = self.extra[loc] * min(qty, held) / held
        self.extra[loc] -= share
        if m.reason == "transfer_out":
            slot = self.carried.setdefault(m.document_number, [ZERO, ZERO])
        else:
            slot = self.taken.setdefault((m.document_type, m.document_number, loc),
                                         [ZERO, ZERO])
        slot[0] += qty
        slot[1] += share

    def take_own(self, m: StockMovement, unit_diff: Decimal) -> None:
        """The document's own goods going back to their supplier: each returned unit
        takes its own difference, not a share of whatever else is there (a return takes
        out only that receipt's goods)."""
        loc, qty = m.location_id, -m.quantity
        if self.extra[loc] == 0:
            return
        share = qty * unit_diff
        if abs(share) > abs(self.extra[loc]):
            share = self.extra[loc]
        self.extra[loc] -= share
        slot = self.taken.setdefault((m.document_type, m.document_number, loc), [ZERO, ZERO])
        slot[0] += qty
        slot[1] += share

    def give(self, slot: list[Decimal] | None, m: StockMovement) -> None:
        """Goods coming back with the share they took (never more than went)."""
        if slot is None or slot[0] <= 0:
            return
        qty = min(m.quantity, slot[0])
        share = slot[1] * qty / slot[0]
        slot[0] -= qty
        slot[1] -= share
        self.extra[m.location_id] += share


def _returned_orders(op: Op, rows: list[StockMovement]) -> dict[str, str]:
    """Each return's order: a customer return's sales order, a supplier return's
    purchase order."""
    numbers = sorted({str(m.document_number) for m in rows
                      if m.reason in ("customer_return", "supplier_return")})
    if not numbers:
        return {}
    return dict(op.session.execute(select(StockReturn.number, StockReturn.order_number)
                                   .where(StockReturn.number.in_(numbers))).all())


def _own_goods(m: StockMovement, orders: dict[str, str]) -> bool:
    """Another purchase order's goods leaving at that order's own cost (returned to its
    supplier, or its received quantity corrected down): none of them is the re-priced
    document's, so they take none of its difference (what stays keeps all of it)."""
    if m.reason == "supplier_return":
        return str(m.document_number) in orders
    return m.reason == "correction" and m.document_type == "purchase_order"


Diff = Callable[[StockMovement], Decimal]
"""The difference per unit of one of the document's own rows (a receipt in a supplier's
currency is re-priced at its own day's rate)."""


def walk(op: Op, item: Any, document_type: str, number: str, unit_diff: Decimal,
         operation_id: str | None = None, diff_of: Diff | None = None) -> _Walk:
    """`operation_id`: only the goods that operation brought in on the document (one
    receipt of several); the document's other rows are then stock like any other.
    `diff_of`: each of the document's rows' own difference (`unit_diff` is then what a
    unit of the document's goods going back to the supplier takes: their average)."""
    w = _Walk()
    mine = true() if operation_id is None else StockMovement.operation_id == operation_id
    first = op.session.execute(select(StockMovement.id).where(
        StockMovement.item_id == item.id, StockMovement.document_type == document_type,
        StockMovement.document_number == number, StockMovement.quantity > 0, mine,
        unreverted()).order_by(StockMovement.id).limit(1)).scalar_one_or_none()
    if first is None:
        return w
    rows = list(op.session.scalars(select(StockMovement).where(
        StockMovement.item_id == item.id, StockMovement.id >= first, unreverted())
        .order_by(StockMovement.id)).unique())
    held: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for loc, on_hand in op.session.execute(select(Balance.location_id, Balance.on_hand)
                                           .where(Balance.item_id == item.id)):
        held[loc] = on_hand
    for m in rows:
        held[m.location_id] -= m.quantity
    orders = _returned_orders(op, rows)
    for m in rows:
        loc = m.location_id
        if m.document_type == document_type and m.document_number == number and (
                operation_id is None or m.operation_id == operation_id):
            w.home = w.home or loc
            own = unit_diff if diff_of is None else diff_of(m)
            w.extra[loc] += m.quantity * own
            w.total += m.quantity * own
        elif m.quantity < 0 and m.reason == "supplier_return" \
                and orders.get(str(m.document_number)) == number:
            w.take_own(m, unit_diff)
        elif m.quantity < 0 and _own_goods(m, orders):
            pass  # another receipt's goods, leaving at that receipt's own cost
        elif m.quantity < 0:
            w.take(m, held[loc])
        elif m.quantity > 0 and m.reason == "transfer_in":
            w.give(w.carried.get(m.document_number), m)
        elif m.quantity > 0 and m.reason == "customer_return":
            so = orders.get(str(m.document_number))
            w.give(next((s for (t, n, _), s in w.taken.items()
                         if t == "sales_order" and n == so and s[0] > 0), None), m)
        elif m.quantity > 0 and m.document_type == "sales_order":  # a shipment corrected down
            w.give(w.taken.get((m.document_type, m.document_number, loc)), m)
        held[loc] += m.quantity
    return w


class Revalued(NamedTuple):
    """What the document's goods changed by in all: `capitalised` on the balances still
    holding them plus `expensed` with the goods that left."""

    total: Decimal
    capitalised: Decimal
    expensed: Decimal


class Why(NamedTuple):
    """How a re-pricing's shares that left are booked: their variance kind and reason."""

    kind: str = "price_correction"
    reason: str = ""


PRICE = Why()


def revalue(op: Op, item: Any, document_type: str, number: str, unit_diff: Decimal,
            fld: str, why: Why = PRICE, operation_id: str | None = None,
            per_unit: Decimal | None = None, diff_of: Diff | None = None) -> Revalued:
    """Post the correction: revaluation rows where its goods are, variances for the shares
    that left. `operation_id` narrows the goods to what it brought in; `per_unit` is the
    change per unit of the whole document's goods the rows record, when that differs from
    `unit_diff` (what a supplier return later takes back per unit)."""
    w = walk(op, item, document_type, number, unit_diff, operation_id, diff_of)
    total = cost(w.total)
    places = {loc: cost(v) for loc, v in w.extra.items() if cost(v) != 0}
    on_hand = dict(op.session.execute(select(Balance.location_id, Balance.on_hand).where(
        Balance.item_id == item.id, Balance.location_id.in_(sorted(places)))).all()) \
        if places else {}
    gone = {k: cost(s) for k, (_, s) in w.taken.items() if cost(s) != 0}
    for loc in [loc for loc in places if on_hand.get(loc, ZERO) <= 0]:
        # nothing (or less than nothing) left there to carry it: it left the books
        gone[(document_type, number, loc)] = gone.get((document_type, number, loc), ZERO) \
            + places.pop(loc)
    residue = total - sum(places.values(), ZERO) - sum(gone.values(), ZERO)
    if residue:
        if places:
            at = max(places, key=lambda k: abs(places[k]))
            places[at] += residue
        else:
            key = max(gone, key=lambda k: abs(gone[k]), default=(document_type, number, w.home))
            gone[key] = gone.get(key, ZERO) + residue
    locations = {loc.id: loc for loc in op.session.scalars(select(Location).where(
        Location.id.in_(sorted({*places, *(k[2] for k in gone)}))))}
    capitalised = ZERO
    for loc, value in sorted(places.items()):
        held = stock.balance(op, item, locations[loc]).value
        if held + value < 0:  # never more off a balance than it holds: the rest is expensed
            key = (document_type, number, loc)
            gone[key] = gone.get(key, ZERO) + held + value
            value = -held
        stock.revalue(op, item, locations[loc], value, document_type, number,
                      unit_diff if per_unit is None else per_unit, fld)
        capitalised += value
    book = stock.ledger(op)
    reason = why.reason or f"share of {document_type} {number}'s re-pricing that left with it"
    for (dtype, dnum, loc), amount in sorted(gone.items(), key=lambda kv: str(kv[0])):
        book.variance(item, locations[loc], amount, why.kind, dtype, dnum, None, reason)
    return Revalued(total, capitalised, total - capitalised)
