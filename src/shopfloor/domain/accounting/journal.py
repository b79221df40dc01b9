"""Every value the stock books move, posted as balanced journal entries in the same
transaction.

The entries are derived from what the operation wrote (its ledger rows and variances),
in one place, rather than written by each rule that moves stock: a rule added later posts
without knowing the journal exists, and the Inventory accounts equal the valuation by
construction (every ledger row's value goes to exactly one stock account, a variance never
does). A revert posts the exact negation of the entries of the operation it reverts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, and_, false, func, or_, select

from shopfloor.domain.accounting.chart import Chart, chart
from shopfloor.domain.accounting.entries import Draft, write
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock.ledger import Ledger
from shopfloor.domain.stock.standing import SHARE_BACK
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import (
    Item,
    JournalEntry,
    JournalLine,
    LandedCost,
    LandedCostLine,
    PurchaseOrder,
    Revert,
    StockMovement,
    Variance,
)

PO, SO, MO, ADJ = "purchase_order", "sales_order", "manufacturing_order", "stock_adjustment"

# a ledger row's reason -> the role on the other side of its stock account
ROW_COUNTER = {
    "receipt": "grni", "supplier_return": "grni",
    "shipment": "cogs", "customer_return": "cogs",
    "consumption": "wip", "production": "wip",
    "adjustment": "adjustments",
}
# a document -> the role a correction (or a revert of history before the journal) posts to
DOCUMENT_COUNTER = {PO: "grni", SO: "cogs", MO: "wip", ADJ: "adjustments"}
# a variance's kind -> the role it is an expense (positive) or a gain (negative) of
VARIANCE_ROLE = {"price_correction": "price_variance", "landed_cost": "price_variance",
                 "price": "price_variance", "negative_stock": "adjustments",
                 "opening": "opening", "rounding": "rounding", "exchange": "exchange",
                 "revaluation": "revaluation", SHARE_BACK: "price_variance"}
# a re-pricing's variance is owed to (or by) the supplier, or to the carrier of a landed cost
REPRICING_COUNTER = {"price_correction": "grni", "landed_cost": "landed_costs"}
TRANSFERS = ("transfer_in", "transfer_out")
RETURNED = "stock_return"  # a re-pricing's share naming a return: a supplier's (it left)
REVALUED = "stock_revaluation"
"""A revaluation by hand: its row's other side is its own `revaluation` variance."""

MEMO = {"receipt": "Goods received", "supplier_return": "Returned to supplier",
        "shipment": "Goods shipped", "customer_return": "Returned by customer",
        "consumption": "Materials used in production", "production": "Goods made",
        "adjustment": "Stock adjusted", "transfer_in": "Stock transferred",
        "transfer_out": "Stock transferred", "revaluation": "Stock re-priced",
        "correction": "Correction", "revert": "Revert"}


def post(op: Op) -> None:
    """Write the entries for what `op` has moved since its last flush. Previews post
    nothing (they are rolled back, and a preview's operation has no id to name)."""
    book = op.session.info.get("ledger")
    if not isinstance(book, Ledger) or book.op is not op:
        return
    moves, variances = book.written_moves, book.written_variances
    if not moves and not variances:
        return
    book.written_moves, book.written_variances = [], []
    if op.preview or op.operation_id is None:
        return
    known = {i: k for i, k in book.kinds.items() if k is not None}
    op.cache.setdefault(_kinds, {}).update(known)
    slots = book.slots
    write(op, _drafts(op, moves, variances), held=lambda i, loc: slots[(i, loc)].value)


def _drafts(op: Op, moves: list[dict[str, Any]],
            variances: list[dict[str, Any]]) -> list[Draft]:
    if len(moves) == 1 and not variances:
        one = _one(op, moves[0])
        if one is not None:
            return [one]
    c = chart(op)
    reverting = any(m["reason"] == "revert" for m in moves) or any(
        str(v["reason"]).startswith("revert of") for v in variances)
    reverted = op.session.scalars(select(Revert.reverted_operation_id).where(
        Revert.operation_id == op.operation_id)).all() if reverting else []
    drafts: list[Draft] = []
    if reverted:
        # A revert's rows are posted by the rules of the rows they reverse (each row's
        # value to stock, its counter by the original's reason), so the stock's lines
        # equal the ledger whatever the revert moved, and the entry mirrors the original
        moves = _as_reversed(op, list(reverted), moves)
    landed = _landed(op, moves, list(reverted))
    kinds = _kinds(op, {m["item_id"] for m in moves})
    by_doc: dict[tuple[Any, ...], Draft] = {}

    def draft(row: dict[str, Any]) -> Draft:
        key = (row["created_at"], row["document_type"], row["document_number"])
        found = by_doc.get(key)
        if found is None:
            memo = "Stock revalued" if row["document_type"] == REVALUED else MEMO.get(
                row.get("reason", ""), "Variance")
            found = by_doc[key] = Draft(row["created_at"], row["document_type"],
                                        row["document_number"],
                                        f"Revert: {memo}" if reverted else memo,
                                        reverses=reverted[0] if reverted else None)
        return found

    for i, m in enumerate(moves):
        d = draft(m)
        loc, item = m["location_id"], m["item_id"]
        value: Decimal = m["value"]
        stock = c.account("inventory", loc, kinds.get(item)).code
        d.add("inventory", stock, value, item, loc)
        reason = m["reason"]
        if reason in TRANSFERS or m["document_type"] == REVALUED:
            continue  # both sides are stock accounts, or the row's variance is its other side
        if reason == "revaluation":
            role = "landed_costs" if i in landed else DOCUMENT_COUNTER.get(
                m["document_type"], "adjustments")
        elif reason in ROW_COUNTER:
            role = ROW_COUNTER[reason]
        else:
            role = DOCUMENT_COUNTER.get(m["document_type"], "adjustments")
        if role == "wip" and value > 0:
            _made(op, d, c, value, m)
        else:
            d.add(role, c.account(role, loc, kinds.get(item)).code, -value, None, None)
    purchase = next((d for d in by_doc.values() if d.document_type == PO), None)
    owed: dict[int, dict[str, Decimal]] = defaultdict(lambda: defaultdict(lambda: ZERO))
    for v in variances:
        amount: Decimal = v["amount"]
        kind = v["kind"]
        counter = REPRICING_COUNTER.get(kind) or DOCUMENT_COUNTER.get(v["document_type"],
                                                                      "adjustments")
        # a re-pricing's share of goods gone names the document that took them; it is
        # posted with the purchase it re-prices, when this operation has one
        d = purchase if kind in REPRICING_COUNTER and purchase is not None else draft(v)
        if kind == SHARE_BACK:  # back off the expense with the return's goods, in its entry
            d = next((draft(m) for m in moves if m["reason"] in ("customer_return",
                                                                 "correction")
                      and m["item_id"] == v["item_id"]), d)
        expense = VARIANCE_ROLE.get(kind, "adjustments")
        if kind == "price_correction" and v["document_type"] == RETURNED:
            # goods sent back take their difference back to the supplier: GRNI owes what
            # stayed at the new price, and nothing of it is a variance
            expense = counter
        d.add(expense, c.account(expense, v["location_id"]).code, amount, v["item_id"],
              v["location_id"])
        d.counter = counter
        owed[id(d)][counter] -= amount
    for d in by_doc.values():
        # What the lines leave over is the variances' other side: each variance's own
        # counter (a price difference is owed to the supplier, a landed cost's share to
        # its carrier) or nothing at all (a transfer onto negative stock: its two stock
        # rows differ by its variance)
        rest = -sum(d.lines.values(), ZERO)
        if rest and rest == sum(owed[id(d)].values(), ZERO):
            for role, amount in owed[id(d)].items():
                d.add(role, c.account(role).code, amount)
        elif rest:
            d.add(d.counter, c.account(d.counter).code, rest)
    drafts.extend(by_doc.values())
    return drafts


def _one(op: Op, m: dict[str, Any]) -> Draft | None:
    """Nearly every write's entry (one ledger row, no variance, not a revert, not a
    re-pricing, not goods made): its stock line and its counter, as `_drafts` posts them,
    without its per-document and per-variance bookkeeping. None: `_drafts` decides."""
    reason, doc, value = m["reason"], m["document_type"], m["value"]
    if not value or reason in _NOT_ONE or doc == REVALUED:
        return None
    role = ROW_COUNTER.get(reason) or DOCUMENT_COUNTER.get(doc, "adjustments")
    if role == "wip" and value > 0:
        return None
    c, loc, item = chart(op), m["location_id"], m["item_id"]
    kind = _kinds(op, (item,)).get(item)
    d = Draft(m["created_at"], doc, m["document_number"], MEMO.get(reason, "Variance"))
    d.lines[("inventory", c.account("inventory", loc, kind).code, item, loc)] = value
    d.lines[(role, c.account(role, loc, kind).code, None, None)] = -value
    return d


_NOT_ONE = frozenset(("revert", "revaluation", *TRANSFERS))


def _landed(op: Op, moves: list[dict[str, Any]], reverted: list[str]) -> set[int]:
    """The positions of the re-pricing rows that are a landed cost's (their other side is
    Landed costs clearing, not the document's account), decided row by row: one operation
    can re-price a receipt and land a charge on it (a supplier's bill does both).

    A live row is a landed cost's when this operation landed one on its order and item
    (the bill posts its price corrections before it lands a charge, so they never share
    an entry). A revert's row is what the row it negates was: the original entry whose
    line on that stock is nearest its amount (a line is in cents, a row to the millionth)
    credited Landed costs clearing or did not."""
    rows = [i for i, m in enumerate(moves) if m["reason"] == "revaluation"
            and m["document_type"] != REVALUED]
    if not rows:
        return set()
    if not reverted:
        covered = set(op.session.execute(
            select(PurchaseOrder.number, LandedCostLine.item_id)
            .join(LandedCost, LandedCost.id == LandedCostLine.landed_cost_id)
            .join(PurchaseOrder, PurchaseOrder.id == LandedCost.order_id)
            .where(LandedCost.operation_id == op.operation_id)).all())
        return {i for i in rows
                if (moves[i]["document_number"], moves[i]["item_id"]) in covered}
    found = op.session.execute(
        select(JournalLine.entry_id, JournalLine.role, JournalLine.item_id,
               JournalLine.location_id, JournalLine.debit - JournalLine.credit)
        .join(JournalEntry, JournalEntry.id == JournalLine.entry_id)
        .where(_entries_of(op, reverted))).all()
    carried = {e for e, role, *_ in found if role == "landed_costs"}
    stock = [(e in carried, item, loc, Decimal(amount))
             for e, role, item, loc, amount in found if role == "inventory"]
    out = set()
    for i in rows:  # each original line answers one row: two of one amount are two rows
        m = moves[i]
        here = [s for s in stock if s[1:3] == (m["item_id"], m["location_id"])]
        if not here:
            continue
        # the nearest: the original line is in cents, the row to the millionth
        nearest = min(here, key=lambda s: abs(s[3] + m["value"]))
        stock.remove(nearest)
        if nearest[0]:
            out.add(i)
    return out


def _entries_of(op: Op, operations: list[str]) -> ColumnElement[bool]:
    """The entries of `operations`, found by the documents their ledger rows named (the
    journal's index is by document, then operation)."""
    m = StockMovement
    docs = op.session.execute(select(m.document_number, m.document_type).where(
        m.operation_id.in_(operations)).distinct()).all()
    e = JournalEntry
    return and_(or_(false(), *(and_(e.document_number == n, e.document_type == t)
                               for n, t in docs)), e.operation_id.in_(operations))


def _made(op: Op, d: Draft, c: Chart, value: Decimal, m: dict[str, Any]) -> None:
    """Goods made come out of work in progress as far as it holds this order's materials;
    the rest of their value is the labour and overhead the order absorbed."""
    wip = c.account("wip").code
    held = op.session.scalar(select(func.coalesce(func.sum(JournalLine.debit - JournalLine.credit),
                                                  ZERO))
                             .join(JournalEntry, JournalEntry.id == JournalLine.entry_id)
                             .where(JournalLine.account == wip,
                                    JournalEntry.document_type == m["document_type"],
                                    JournalEntry.document_number == m["document_number"]))
    held = Decimal(held or ZERO) + sum((a for (_, acc, _, _), a in d.lines.items()
                                        if acc == wip), ZERO)
    from_wip = min(value, max(held, ZERO))
    d.add("wip", wip, -from_wip)
    d.add("labour_absorbed", c.account("labour_absorbed").code, -(value - from_wip))


def _as_reversed(op: Op, operations: list[str],
                 moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each revert row with the reason of the row it reverses (same item, place, lot,
    opposite value); a row with none found keeps its own."""
    origin: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for item, loc, batch, value, reason in op.session.execute(
            select(StockMovement.item_id, StockMovement.location_id, StockMovement.batch_id,
                   StockMovement.value, StockMovement.reason)
            .where(StockMovement.operation_id.in_(operations)).order_by(StockMovement.id)):
        origin[(item, loc, batch, Decimal(value))].append(reason)
    out = []
    for m in moves:
        found = origin.get((m["item_id"], m["location_id"], m["batch_id"], -m["value"]))
        if m["reason"] == "revert" and found:
            m = {**m, "reason": found.pop(0)}
        out.append(m)
    return out


def _kinds(op: Op, ids: Iterable[int]) -> dict[int, str]:
    known: dict[int, str] = op.cache.setdefault(_kinds, {})
    wanted = [i for i in ids if i not in known]
    if wanted:
        known.update(op.session.execute(
            select(Item.id, Item.kind).where(Item.id.in_(wanted))).all())
    return known


MOVE_COLUMNS = ("item_id", "location_id", "batch_id", "quantity", "unit_cost", "value",
                "reason", "document_type", "document_number", "operation_id", "created_at")
VARIANCE_COLUMNS = ("item_id", "location_id", "batch_id", "amount", "kind", "document_type",
                    "document_number", "operation_id", "reason", "created_at")


def post_history(op: Op) -> int:
    """The entries of every operation in the ledger so far, in the order they were made,
    by the same rules as a live posting (a revert finds the entries it negates because
    they were posted first). Returns the number of entries."""
    firsts = op.session.execute(
        select(StockMovement.operation_id, func.min(StockMovement.id).label("first"))
        .group_by(StockMovement.operation_id).order_by("first")).all()
    lonely = op.session.execute(
        select(Variance.operation_id, func.min(Variance.id).label("first"))
        .where(Variance.operation_id.not_in([f[0] for f in firsts if f[0] is not None]
                                            or [""]))
        .group_by(Variance.operation_id)).all()
    order = [f[0] for f in firsts] + [f[0] for f in lonely if f[0] not in
                                      {x[0] for x in firsts}]
    written = 0
    value: dict[tuple[int, int], Decimal] = defaultdict(lambda: ZERO)  # the stock so far
    for operation_id in order:
        where_m = (StockMovement.operation_id == operation_id if operation_id is not None
                   else StockMovement.operation_id.is_(None))
        where_v = (Variance.operation_id == operation_id if operation_id is not None
                   else Variance.operation_id.is_(None))
        moves = [dict(zip(MOVE_COLUMNS, r, strict=True)) for r in op.session.execute(
            select(*(getattr(StockMovement, c) for c in MOVE_COLUMNS)).where(where_m)
            .order_by(StockMovement.id))]
        variances = [dict(zip(VARIANCE_COLUMNS, r, strict=True)) for r in op.session.execute(
            select(*(getattr(Variance, c) for c in VARIANCE_COLUMNS)).where(where_v)
            .order_by(Variance.id))]
        op.operation_id = operation_id
        for m in moves:
            value[(m["item_id"], m["location_id"])] += m["value"]
        drafts = [d for d in _drafts(op, moves, variances) if d.posts()]
        write(op, drafts, held=lambda i, loc: value[(i, loc)], history=True)
        written += len(drafts)
    op.operation_id = None
    return written
