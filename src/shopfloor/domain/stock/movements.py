"""Stock adjustments and transfers: the documents that move stock without an order.

Written the batched way: the items and balances a document names are read in one query
each, and its header, lines, ledger rows and balances are written in one statement each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import delete, func, insert, select

from shopfloor.domain.base import lookup, resolve
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lot_counts, lots, stocktakes
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import MOVEMENTS, Posting, Stocked
from shopfloor.domain.stock.lot_ledger import Picked
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.bulk import executemany
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import (
    StockAdjustment,
    StockAdjustmentLine,
    StockTransfer,
    StockTransferLine,
    table,
)

ADJUSTMENTS = table(StockAdjustment)
ADJUSTMENT_LINES = table(StockAdjustmentLine)
TRANSFERS = table(StockTransfer)
TRANSFER_LINES = table(StockTransferLine)
_NEW_ADJUSTMENT = Prepared(insert(ADJUSTMENTS).returning(ADJUSTMENTS.c.id))
_NEW_TRANSFER = Prepared(insert(TRANSFERS).returning(TRANSFERS.c.id))


class AdjustLine(NamedTuple):
    sku: str
    quantity_delta: Decimal | None = None
    counted_quantity: Decimal | None = None
    unit_cost: Decimal | None = None
    counted_at: datetime | None = None
    lots: tuple[lots.LotIn, ...] = ()
    serials: tuple[str, ...] = ()


MoveLine = lots.Moved


class DocLine(NamedTuple):
    sku: str
    quantity: Decimal
    unit_cost: Decimal
    counted_quantity: Decimal | None = None
    counted_at: datetime | None = None


@dataclass
class Document:
    """What an adjustment or transfer wrote, for its result: no ORM round trip back."""

    id: int
    number: str
    created_at: datetime
    reason: str = ""
    location: str = ""
    to_location: str = ""
    lines: list[DocLine] = field(default_factory=list)


def _incoming_cost(item: Any, bal_avg: Decimal, given: Decimal | None) -> Decimal:
    """Found stock is valued at the given cost, else the current average, else list price."""
    if given is not None:
        return given
    return bal_avg if bal_avg > 0 else Decimal(item.purchase_price)


def _post_lines(op: Op, number: str, location: stock.Place, lines: Sequence[AdjustLine],
                items: Mapping[str, Stocked]) -> list[dict[str, Any]]:
    """The ledger rows of an adjustment's lines; returns the line rows to insert."""
    book = stock.ledger(op)  # asked once, not twice a line
    book.load([items[spec.sku] for spec in lines], location)
    since = stocktakes.moved_since(op, location.id, (
        (i, items[spec.sku].id, spec.counted_at) for i, spec in enumerate(lines)
        if spec.counted_quantity is not None))
    rows: list[dict[str, Any]] = []
    moving: list[tuple[Stocked, Decimal, Decimal, str, lots.Line]] = []
    for i, spec in enumerate(lines):
        fld = f"lines[{i}]"
        item = items[spec.sku]
        if spec.counted_quantity is not None:
            exact(spec.counted_quantity, item, f"{fld}.counted_quantity")
        elif spec.quantity_delta is not None:
            exact(spec.quantity_delta, item, f"{fld}.quantity_delta")
        bal = book.slot(item, location)
        counted_at = None
        if spec.counted_quantity is not None:
            # as of the moment counted: what moved since then is kept, not erased
            counted_at = spec.counted_at or op.now
            if spec.lots and lots.tracked(item):
                delta = spec.counted_quantity - lot_counts.lot_on_hand_at(
                    op, item, location, spec.lots, counted_at, fld)
            else:
                delta = spec.counted_quantity - (bal.on_hand - since.get(i, ZERO))
        else:
            assert spec.quantity_delta is not None
            delta = spec.quantity_delta
        if delta == 0:
            op.warn("no_change", f"{item.sku}: counted quantity equals on hand", fld=fld)
        cost = _incoming_cost(item, bal.average_cost, spec.unit_cost)
        rows.append({"item_id": item.id, "position": i, "quantity_delta": delta,
                     "counted_quantity": spec.counted_quantity, "unit_cost": cost,
                     "counted_at": counted_at, "sku": item.sku})
        if delta != 0:
            moving.append((item, delta, cost, fld, lots.Line(
                item, abs(delta), fld, _lot_qty(spec.lots, abs(delta)), spec.serials)))
    # the lots of every line at once: one lookup of the lots named, whatever the lines
    found = lots.incoming(op, [m[4] for m in moving if m[1] > 0])
    left = lots.outgoing(op, [m[4] for m in moving if m[1] < 0])
    ins, outs = iter(found), iter(left)
    book = stock.ledger(op)
    for item, delta, cost, fld, _ in moving:
        sign = 1 if delta > 0 else -1
        for part in next(ins if delta > 0 else outs):
            book.post(Posting(item, location, sign * part.quantity, "adjustment",
                              "stock_adjustment", number,
                              unit_cost=cost if delta > 0 else None,
                              batch_id=part.batch_id,
                              field=part.field if part.batch_id
                              else f"{fld}.quantity_delta"))
    return rows


_INSERT_LINES = {ADJUSTMENT_LINES.name: insert(ADJUSTMENT_LINES),
                 TRANSFER_LINES.name: insert(TRANSFER_LINES)}


def _insert_lines(op: Op, table: Any, parent: str, parent_id: int,
                  rows: list[dict[str, Any]]) -> None:
    for r in rows:
        r[parent] = parent_id
    executemany(op.session.connection(), _INSERT_LINES[table.name], rows)


def _inserted(op: Op, stmt: Prepared, row: dict[str, Any]) -> int:
    """A document's header: its new id."""
    made = stmt.first(op.session.connection(), row)
    assert made is not None
    return int(made[0])


def _adjust_lines(rows: list[dict[str, Any]]) -> list[DocLine]:
    return [DocLine(r["sku"], r["quantity_delta"], r["unit_cost"], r["counted_quantity"],
                    r.get("counted_at")) for r in rows]


def create_adjustment(op: Op, location_code: str, reason: str, lines: Sequence[AdjustLine],
                      number: str | None = None, known: Mapping[str, Stocked] | None = None
                      ) -> Document:
    """`known`: items already resolved by SKU (bulk callers), saving their lookup."""
    location = resolve.location(op, location_code)
    wanted = [(spec.sku, f"lines[{i}].sku") for i, spec in enumerate(lines)]
    items: Mapping[str, Stocked] = known if known is not None else resolve.items(op, wanted)
    if known is not None:
        resolve.once(wanted)
    number = claim_number(op, StockAdjustment, number, "ADJ")
    adj_id = _inserted(op, _NEW_ADJUSTMENT, {
        "number": number, "location_id": location.id, "reason": reason, "created_at": op.now,
        "version": 1})
    rows = _post_lines(op, number, location, lines, items)
    _insert_lines(op, ADJUSTMENT_LINES, "adjustment_id", adj_id, rows)
    return Document(adj_id, number, op.now, reason=reason, location=location.code,
                    lines=_adjust_lines(rows))


def update_adjustment(op: Op, number: str, reason: str | None,
                      lines: Sequence[AdjustLine] | None) -> Document:
    """Correct an adjustment by reversing its ledger rows and posting the new lines."""
    adj = lookup.stock_adjustment(op, number, lock=True)
    if reason is not None and reason != adj.reason:
        op.change("stock_adjustment", number, "reason", adj.reason, reason)
        adj.reason = reason
    rows = [{"sku": ln.item.sku, "quantity_delta": ln.quantity_delta,
             "counted_quantity": ln.counted_quantity, "unit_cost": ln.unit_cost,
             "counted_at": ln.counted_at}
            for ln in adj.lines]
    if lines is not None:
        stock.prefetch(op, [old.item for old in adj.lines], adj.location)
        old_items = {old.item_id: old for old in adj.lines}
        for item_id, batch_id, qty in _net_moves(op, adj.number):
            old = old_items[item_id]
            stock.post(op, Posting(old.item, adj.location, -qty, "correction",
                                   "stock_adjustment", adj.number,
                                   unit_cost=old.unit_cost if qty < 0 else None,
                                   batch_id=batch_id, pool=batch_id is None))
        wanted = [(spec.sku, f"lines[{i}].sku") for i, spec in enumerate(lines)]
        items = resolve.items(op, wanted)
        rows = _post_lines(op, adj.number, adj.location, lines, items)
        op.session.connection().execute(
            delete(ADJUSTMENT_LINES).where(ADJUSTMENT_LINES.c.adjustment_id == adj.id))
        op.session.expire(adj, ["lines"])
        _insert_lines(op, ADJUSTMENT_LINES, "adjustment_id", adj.id, rows)
    touch(adj)
    return Document(adj.id, adj.number, adj.created_at, reason=adj.reason,
                    location=adj.location.code, lines=_adjust_lines(rows))


def _net_moves(op: Op, number: str) -> list[tuple[int, int | None, Decimal]]:
    """What an adjustment moved so far, per item and lot: its reversal takes each lot back
    (a correction has no lots to pick, it undoes the ones taken)."""
    m = MOVEMENTS.c
    rows = op.session.execute(
        select(m.item_id, m.batch_id, func.sum(m.quantity))
        .where(m.document_type == "stock_adjustment", m.document_number == number)
        .group_by(m.item_id, m.batch_id).order_by(m.item_id, m.batch_id))
    return [(r[0], r[1], Decimal(r[2])) for r in rows if r[2] != 0]


def _lot_qty(named: Sequence[lots.LotIn], quantity: Decimal) -> tuple[lots.LotIn, ...]:
    """A counted lot is named without a quantity: the difference is its quantity."""
    if len(named) == 1 and named[0].quantity is None:
        return (named[0]._replace(quantity=quantity),)
    return tuple(named)


def create_transfer(op: Op, from_code: str, to_code: str,
                    lines: Sequence[MoveLine]) -> Document:
    source = resolve.location(op, from_code, fld="from_location")
    target = resolve.location(op, to_code, fld="to_location")
    if source.id == target.id:
        raise ValidationFailed("from_location and to_location are the same", field="to_location")
    items = resolve.items(op, [(ln.sku, f"lines[{i}].sku") for i, ln in enumerate(lines)])
    number = claim_number(op, StockTransfer, None, "TR")
    tr_id = _inserted(op, _NEW_TRANSFER, {
        "number": number, "from_location_id": source.id, "to_location_id": target.id,
        "created_at": op.now, "version": 1})
    stock.prefetch(op, items.values(), source)
    stock.prefetch(op, items.values(), target)
    for i, ln in enumerate(lines):
        exact(ln.quantity, items[ln.sku], f"lines[{i}].quantity")
    rows: list[dict[str, Any]] = []
    parts = lots.outgoing(op, [lots.Line(items[ln.sku], ln.quantity, f"lines[{i}]", ln.lots,
                                         ln.serials)
                               for i, ln in enumerate(lines)])
    picked = stock.ledger(op).lots.picked
    for i, (ln, line_parts) in enumerate(zip(lines, parts, strict=True)):
        item = items[ln.sku]
        cost = ZERO
        for part in line_parts:
            start = len(picked)
            cost = stock.post(op, Posting(item, source, -part.quantity, "transfer_out",
                                          "stock_transfer", number, batch_id=part.batch_id,
                                          allow_expired=ln.allow_expired,
                                          field=part.field if part.batch_id
                                          else f"lines[{i}].quantity"))
            # the lot goes along: each lot the source gave, the target receives
            gone = stock.ledger(op).value_moved
            taken: list[Picked | None] = [*picked[start:]] or [None]
            for pick in taken:
                stock.post(op, Posting(item, target, -pick.quantity if pick else part.quantity,
                                       "transfer_in", "stock_transfer", number, unit_cost=cost,
                                       batch_id=pick.batch_id if pick else None,
                                       pool=pick is not None and pick.batch_id is None,
                                       value=-(pick.value if pick else gone)))
        rows.append({"item_id": item.id, "position": i, "quantity": ln.quantity,
                     "unit_cost": cost, "sku": ln.sku})
    _insert_lines(op, TRANSFER_LINES, "transfer_id", tr_id, rows)
    return Document(tr_id, number, op.now, location=source.code, to_location=target.code,
                    lines=[DocLine(str(r["sku"]), r["quantity"], r["unit_cost"]) for r in rows])
