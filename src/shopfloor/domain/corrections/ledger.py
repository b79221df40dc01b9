"""The ledger side of a revert: one reversing row per row the operation wrote, after
checking that nothing later depends on the stock it brought in.

Reversing rows go newest first, at the same item, location and lot (or outside any lot,
as the row was): stock that came in leaves at the cost it came in with (the rest
re-averaged), stock that left comes back at the cost it left with.

What depends on incoming stock: for an untracked item, any later outgoing row at that
balance (it may have left at a cost that included it); for a lot-tracked receipt, a
later outgoing row of that very lot (the lot was shipped, consumed or moved: traced
onward). Stock of other lots leaving since does not block: they are their own goods.

Value: each reversing row moves exactly the negation of the row it reverses (never a
logged average put back), and the variances the operation recorded are answered by
opposite ones. A negation that would leave a balance valued below zero, or with value
and nothing on hand, is refused: the stock has been valued differently since.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.ledger import Posting
from shopfloor.domain.stock.standing import SHARE_BACK, SHARES, unreverted
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.tables import Batch, Item, Location, Revert, StockMovement, Variance


@dataclass
class Original:
    """The operation being reverted, as the log and the ledger hold it."""

    operation_id: str
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    moves: list[StockMovement]
    session: Any
    blockers: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def before(self, entity: str, key: str, fld: str) -> str | None:
        for c in self.result.get("changes", []):
            if (c["entity"], c["key"], c["field"]) == (entity, key, fld):
                return c["before"]  # type: ignore[no-any-return]
        return None

    def changes(self, entity: str) -> list[dict[str, Any]]:
        return [c for c in self.result.get("changes", []) if c["entity"] == entity]

    def moved(self, item_id: int) -> Decimal:
        return sum((m.quantity for m in self.moves if m.item_id == item_id), ZERO)


Reverser = Callable[[Op, Original], None]


def later(session: Any, item_id: int, location_id: int, after_id: int,
          batch_ids: Iterable[int] | None = None) -> list[StockMovement]:
    """Rows at this balance (of these lots, if given) after row `after_id` that count."""
    stmt = select(StockMovement).where(
        StockMovement.item_id == item_id, StockMovement.location_id == location_id,
        StockMovement.id > after_id, unreverted())
    if batch_ids is not None:
        stmt = stmt.where(StockMovement.batch_id.in_(sorted(set(batch_ids))))
    return list(session.scalars(stmt.order_by(StockMovement.id)).unique())


def named(rows: Iterable[StockMovement], lots: dict[int, str] | None = None) -> str:
    """'shipment 4 on sales_order SO-00001 (lot L1)', for each row: what a blocker names."""
    out = []
    for x in rows:
        lot = f" (lot {lots[x.batch_id]})" if lots and x.batch_id in lots else ""
        out.append(f"{x.reason} {fmt(-x.quantity)} on {x.document_type or 'no document'} "
                   f"{x.document_number or ''}".rstrip() + lot)
    return ", ".join(out)


def lot_numbers(session: Any, batch_ids: Iterable[int]) -> dict[int, str]:
    ids = sorted(set(batch_ids))
    if not ids:
        return {}
    return dict(session.execute(select(Batch.id, Batch.lot_number)
                                .where(Batch.id.in_(ids))).all())


def _depends(o: Original, m: StockMovement, net_in: list[StockMovement]) -> str | None:
    """A blocker when stock this operation brought in to m's balance has left since."""
    last = max(x.id for x in o.moves if (x.item_id, x.location_id) == (m.item_id,
                                                                       m.location_id))
    lots = [x.batch_id for x in net_in if x.batch_id is not None]
    if lots and len(lots) == len(net_in):  # a tracked receipt: only its own lots count
        used = [x for x in later(o.session, m.item_id, m.location_id, last, lots)
                if x.quantity < 0]
        if used:
            numbers = lot_numbers(o.session, lots)
            return (f"{m.item.sku} at {m.location.code}: lot "
                    f"{', '.join(sorted(set(numbers.values())))} has been traced onward "
                    f"({named(used, numbers)}); revert those first")
        return None
    used = [x for x in later(o.session, m.item_id, m.location_id, last) if x.quantity < 0]
    if used:
        # it may have left with this stock's cost: a supplier return or a correction is the
        # way to change it now
        return (f"{m.item.sku} at {m.location.code}: stock that came in has left since "
                f"({named(used)}); revert those first")
    return None


def reverse_moves(op: Op, o: Original) -> None:
    """The reversing ledger rows, after checking no later outgoing stock depends on them."""
    if not o.moves:
        return
    by_place: dict[int, tuple[Location, list[Item]]] = {}
    for m in o.moves:
        by_place.setdefault(m.location_id, (m.location, []))[1].append(m.item)
    for location, items in by_place.values():
        stock.prefetch(op, items, location)
    nets: dict[tuple[int, int], Decimal] = defaultdict(lambda: ZERO)
    for m in o.moves:
        nets[(m.item_id, m.location_id)] += m.quantity
    for (item_id, loc_id), net in nets.items():
        here = [x for x in o.moves if (x.item_id, x.location_id) == (item_id, loc_id)]
        if net > 0:
            blocker = _depends(o, here[0], [x for x in here if x.quantity > 0])
            if blocker:
                o.blockers.append(blocker)
            blocker = repriced_since(o, here[0])
            if blocker:
                o.blockers.append(blocker)
    o.blockers.extend(_shares_taken(o))
    if o.blockers:
        return
    book = stock.ledger(op)
    seen = len(book.unbalanced)
    for m in reversed(o.moves):
        p = Posting(m.item, m.location, -m.quantity, "revert",
                    m.document_type, m.document_number, unit_cost=m.unit_cost,
                    batch_id=m.batch_id, pool=m.batch_id is None or m.quantity == 0,
                    value=-m.value, undo=True)
        moved = stock.post(op, p)
        o.rows.append({"sku": m.item.sku, "location": m.location.code,
                       "quantity": p.quantity, "unit_cost": moved, "value": -m.value,
                       "reason": "revert", "document_type": m.document_type,
                       "document_number": m.document_number, "reverses_movement": m.id})
    o.blockers.extend(f"{what}: the stock it moved has been valued since; correct it "
                      "instead" for what in book.unbalanced[seen:])


def _shares_taken(o: Original) -> list[str]:
    """Goods that left and were re-priced after they left (a price corrected, a landed
    cost added) took a share of the re-pricing, expensed against their document: bringing
    them back at the value they left with would leave that share expensed. The re-pricing
    is reverted first (and applied again)."""
    gone = [m for m in o.moves if m.quantity < 0 and m.document_number]
    if not gone:
        return []
    first = min(m.created_at for m in gone)
    rows = o.session.execute(select(
        Variance.document_type, Variance.document_number, Variance.location_id,
        Variance.item_id, Variance.kind, Variance.amount).where(
        Variance.kind.in_(SHARES), Variance.created_at >= first,
        Variance.document_number.in_(sorted({str(m.document_number) for m in gone})))).all()
    net: dict[tuple[Any, ...], Decimal] = defaultdict(lambda: ZERO)
    for dtype, dnum, loc, item_id, kind, amount in rows:
        net[(dtype, dnum, loc, item_id, kind)] += amount
    out = []
    for m in gone:
        for kind in SHARES:
            if net.get((m.document_type, m.document_number, m.location_id, m.item_id, kind)):
                out.append(f"{m.item.sku} on {m.document_type} {m.document_number} took a "
                           f"share of a {kind.replace('_', ' ')} made since; revert that "
                           "first")
    return sorted(set(out))


def answer_variances(op: Op, o: Original) -> None:
    """The variances the reverted operation recorded, answered by opposite ones: every
    revert's, whether or not its operation wrote a ledger row (a re-pricing of goods that
    had all left writes only variances)."""
    rows = op.session.scalars(select(Variance).where(
        Variance.operation_id == o.operation_id).order_by(Variance.id)).all()
    book = stock.ledger(op)
    for r in rows:
        item = op.session.get(Item, r.item_id)
        location = op.session.get(Location, r.location_id)
        assert item is not None and location is not None
        book.variance(item, location, -r.amount, r.kind, r.document_type, r.document_number,
                      r.batch_id, f"revert of {o.operation_id}")


def moved_since(o: Original, instead: str = "correct it again instead") -> list[str]:
    """Blockers for reverting a re-pricing: goods it re-priced that have left a balance
    since took a share of it with them, which negating its rows would not give back."""
    out = []
    seen: set[tuple[int, int]] = set()
    for m in o.moves:
        if m.quantity != 0 or (m.item_id, m.location_id) in seen:
            continue
        seen.add((m.item_id, m.location_id))
        last = max(x.id for x in o.moves if (x.item_id, x.location_id) == (m.item_id,
                                                                           m.location_id))
        rows = [x for x in later(o.session, m.item_id, m.location_id, last) if x.quantity < 0]
        if rows:
            what = ", ".join(f"{x.reason} {fmt(x.quantity)} on {x.document_type} "
                             f"{x.document_number}" for x in rows)
            out.append(f"{m.item.sku} at {m.location.code} was re-priced and has left since "
                       f"({what}); {instead}")
    return out + shares_back(o)


def shares_back(o: Original) -> list[str]:
    """Blockers for reverting a re-pricing whose shares expensed against a shipment have
    come back since with goods the customer returned: the return holds them now."""
    taken = o.session.execute(select(Variance.document_number, Variance.item_id,
                                     func.max(Variance.id)).where(
        Variance.operation_id == o.operation_id, Variance.kind.in_(SHARES),
        Variance.document_type == "sales_order")
        .group_by(Variance.document_number, Variance.item_id)).all()
    out = []
    for number, item_id, after in taken:
        ops = o.session.scalars(select(Variance.operation_id).where(
            Variance.kind == SHARE_BACK, Variance.document_type == "sales_order",
            Variance.document_number == number, Variance.item_id == item_id,
            Variance.id > after, ~Variance.operation_id.in_(select(Revert.reverted_operation_id)),
            ~Variance.operation_id.in_(select(Revert.operation_id)))).all()
        holders = sorted({(str(r), str(n)) for r, n in o.session.execute(select(
            StockMovement.reason, StockMovement.document_number).where(
            StockMovement.operation_id.in_(sorted({str(x) for x in ops})),
            StockMovement.reason.in_(("customer_return", "correction"))))})
        returns = [n for r, n in holders if r == "customer_return"]
        if returns:
            out.append(f"the share {number} took came back with return {', '.join(returns)} "
                       "since; revert that first")
        if any(r == "correction" for r, _ in holders):
            out.append(f"the share {number} took came back with its shipment corrected "
                       "since; revert that first")
    return out


def repriced_since(o: Original, m: StockMovement) -> str | None:
    """A blocker for undoing a document's goods coming in once they were re-priced: the
    re-pricing belongs to those goods; it is reverted first."""
    ops = o.session.execute(select(StockMovement.operation_id).where(
        StockMovement.document_type == m.document_type,
        StockMovement.document_number == m.document_number,
        StockMovement.item_id == m.item_id, StockMovement.reason == "revaluation",
        StockMovement.quantity == 0, StockMovement.id > m.id, unreverted())).scalars().all()
    if not ops:
        return None
    return (f"{m.item.sku} on {m.document_type} {m.document_number} was re-priced since "
            f"(operation {', '.join(sorted(set(map(str, ops))))}); revert that first")
