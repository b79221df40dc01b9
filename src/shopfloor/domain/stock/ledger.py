"""The stock ledger and its balances, batched per operation.

Every change of stock is one ledger row plus a balance update in the same transaction.
Costing is moving average per item and location, kept as value: every row carries the
signed change of stock value it makes (`value`), a balance's `stock_value` is the sum of
its rows' values, exactly, and its average is value / on hand (`costing.py` has the
rules). A transfer carries its value along; a revaluation is a row of quantity 0. Value a
document moved that the stock could not carry is a variance row, outside the stock books.

An operation reads the balances it touches in one query (locked on PostgreSQL), moves
them in memory, and writes them back at its end: the ledger rows as one executemany, the
balance updates as another (each checked against the version it read), new balances as a
third. The rules below run the same for a preview and an apply; only the apply's writes
are kept.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from sqlalchemy import Select, bindparam, event, insert, select
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

from shopfloor.domain.base import books
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.base.resolve import keyed, values
from shopfloor.domain.stock import costing
from shopfloor.domain.stock.balance_rows import BALANCES, Slot, insert_balances, update_balances
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.lot_ledger import LotBook, LotSlot, Picked, describe, tracked
from shopfloor.kernel.errors import InsufficientStock, ValidationFailed
from shopfloor.kernel.numbers import COST_QUANTUM, ZERO, cost, fmt
from shopfloor.store.bulk import executemany
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import StockMovement, Variance, table
from shopfloor.store.tracking import reads_of, remember

MOVEMENTS = table(StockMovement)

# Built once: constructing a statement costs more than running it on SQLite.
_MOVE = insert(MOVEMENTS)
_VARIANCE = insert(table(Variance))

CARRIED = ("stock_transfer", "manufacturing_order")
"""Documents whose outgoing rows carry their value on (onto the transfer's other balance,
into what the order makes): what an emptied balance's last unit takes is not lost, so
there is no rounding to record."""


@functools.cache
def _load(n: int, locked: bool) -> Prepared:
    stmt: Select[Any] = select(
        BALANCES.c.id, BALANCES.c.item_id, BALANCES.c.on_hand, BALANCES.c.committed,
        BALANCES.c.average_cost, BALANCES.c.version, BALANCES.c.stock_value
    ).where(BALANCES.c.location_id == bindparam("location_id"), keyed(BALANCES.c.item_id, n))
    return Prepared(stmt.with_for_update() if locked else stmt)


class Stocked(Protocol):
    """What the ledger needs of an item: an ORM `Item` or a row from `lookup.items`."""

    @property
    def id(self) -> int: ...
    @property
    def sku(self) -> str: ...


class Place(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def allow_negative(self) -> bool: ...


class Posting(NamedTuple):
    item: Stocked
    location: Place
    quantity: Decimal
    reason: str
    document_type: str | None
    document_number: str | None
    unit_cost: Decimal | None = None
    batch_id: int | None = None
    field: str | None = None
    exit_cost: Decimal | None = None
    """Outgoing only: leave at this unit cost (not the average) and re-average what stays,
    as a reversal of a receipt or a supplier return does: the stock goes back at the cost
    it came in with."""
    allow_expired: bool = False
    """A named expired lot may be used."""
    pool: bool = False
    """A tracked item's stock outside any lot (from before it was tracked), on purpose."""
    value: Decimal | None = None
    """The exact signed value this row moves (a revert negating a row, a transfer's value
    arriving, a product made of what its components took), instead of one costed here."""
    undo: bool = False
    """A revert's negation of a row: `value` exactly, even onto a negative balance (which
    other incoming stock re-prices), so that reverting puts the balance back as it was."""


class Ledger:
    """The balances and ledger rows of one operation."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.slots: dict[tuple[int, int], Slot] = {}
        self.moves: list[dict[str, Any]] = []
        self.variances: list[dict[str, Any]] = []
        self.written_moves: list[dict[str, Any]] = []
        self.written_variances: list[dict[str, Any]] = []
        """What was flushed and not yet posted to the journal (an `Op` finisher takes it)."""
        self.kinds: dict[int, str | None] = {}
        """Each posted item's kind (which Inventory account holds it), read for free."""
        self.shown: dict[tuple[str, str], Decimal] = {}
        self.unbalanced: list[str] = []
        """Exact postings that left a balance valued below zero or with value and nothing
        on hand: a revert refuses on these."""
        self.value_moved = ZERO
        """The value the last posting moved (all its lots' rows together): its caller books
        the other side, and `post` returns the unit cost."""
        self.flushing = False
        self.lots = LotBook(op)
        op.session.connection()  # begin, so the transaction (or savepoint) is known
        self.scope = op.session.get_nested_transaction() or op.session.get_transaction()
        op.session.info["ledger"] = self
        op.flushers.append(self.flush)

    @property
    def pending(self) -> bool:
        return (bool(self.moves) or bool(self.variances)
                or any(s.dirty for s in self.slots.values()) or self.lots.pending)

    def load(self, items: Iterable[Stocked], location: Place) -> None:
        """Read (and lock) the balances of many items at one location in one query; the
        ones that do not exist yet start at zero and are inserted at the end."""
        wanted = {i.id: i for i in items if (i.id, location.id) not in self.slots}
        ids = sorted(wanted)
        self.lots.want([i for i in ids if tracked(wanted[i])], location.id)
        seen = reads_of(self.op.session)
        conn = self.op.session.connection()
        loc = location.id
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows: Sequence[Any] = _load(len(chunk), self.op.locks_rows).all(
                conn, {"location_id": loc, **values(BALANCES.c.item_id, chunk)})
            found = {r[1]: r for r in rows}
            for item_id in chunk:
                where = key(wanted[item_id], location)
                row = found.get(item_id)
                if row is None:
                    remember(seen, "balances", f"new:{where}", None)
                    slot = Slot(None, item_id, loc, where, ZERO, ZERO, ZERO, 1)
                else:
                    bid, _, on_hand, committed, average_cost, version, value = row
                    remember(seen, "balances", str(bid), version)
                    slot = Slot(bid, item_id, loc, where, on_hand, committed, average_cost,
                                version, value)
                self.slots[(item_id, loc)] = slot

    def slot(self, item: Stocked, location: Place) -> Slot:
        found = self.slots.get((item.id, location.id))
        if found is None:
            self.load([item], location)
            found = self.slots[(item.id, location.id)]
        return found

    def post(self, p: Posting) -> Decimal:
        """Move stock and write its ledger rows; returns the unit cost it moved at.

        `unit_cost` applies to incoming stock (None: at the current average). Outgoing
        stock leaves at the current average. Taking stock below zero is refused unless the
        location allows it. A tracked item moves by lot: incoming names its lot, outgoing
        names one or is picked first-expiring-first-out (one ledger row per lot).
        A quantity finer than the database keeps (0.333333 x 0.1) moves as it will be
        stored: an empty balance in memory is an empty one on disk, and takes its value.
        """
        if p.quantity != (kept := p.quantity.quantize(COST_QUANTUM)):
            p = p._replace(quantity=kept)
        if getattr(p.item, "uom", None) is not None:  # no rule posts part of a piece
            exact(p.quantity, p.item, p.field or "quantity")
        if p.pool or not tracked(p.item):
            return self._post(p, None)
        if p.batch_id is not None:
            lot = self.lots.slot(p.item.id, p.location.id, p.batch_id)
            if p.quantity < 0:
                self.lots.check_named(lot, -p.quantity, p.reason, p.item.sku, p.location.code,
                                      p.allow_expired, p.field)
            elif getattr(p.item, "serial_tracked", False) and lot.on_hand + p.quantity > 1:
                self.op.refuse(ValidationFailed(
                    f"serial {lot.lot_number} of {p.item.sku} is already at {p.location.code}",
                    field=p.field))
            return self._post(p, lot)
        if p.quantity > 0:
            self.op.refuse(ValidationFailed(
                f"{p.item.sku} is lot-tracked: name the lot this stock comes in as",
                field=p.field))
            return self._post(p, None)
        if getattr(p.item, "serial_tracked", False):
            self.op.refuse(ValidationFailed(
                f"{p.item.sku} is serial-tracked: name the serial numbers that leave",
                field=p.field))
        return self._pick(p)

    def _pick(self, p: Posting) -> Decimal:
        """First-expiring-first-out across the usable lots, then stock outside any lot."""
        need = -p.quantity
        bal = self.slot(p.item, p.location)
        moved, total = bal.average_cost, ZERO
        for lot in self.lots.fefo(p.item.id, p.location.id):
            take = min(lot.on_hand, need)
            moved = self._post(p._replace(quantity=-take, batch_id=lot.batch_id), lot)
            total += self.value_moved
            need -= take
            if need == 0:
                self.value_moved = total
                return moved
        outside = bal.on_hand - self.lots.in_lots(p.item.id, p.location.id)
        take = min(need, max(outside, ZERO))
        if take > 0:
            moved = self._post(p._replace(quantity=-take), None)
            total += self.value_moved
            need -= take
        if need == 0:
            self.value_moved = total
            return moved
        blocked = self.lots.unusable(p.item.id, p.location.id)
        if blocked and bal.on_hand >= need:
            today = self.op.now.date()
            why = describe(blocked)
            self.op.refuse(InsufficientStock(
                f"{p.item.sku} at {p.location.code}: {fmt(need)} more needed than the usable "
                f"lots hold ({why})", field=p.field,
                details={"sku": p.item.sku, "location": p.location.code,
                         "requested": fmt(-p.quantity), "short": fmt(need),
                         "lots": [{"lot": s.lot_number, "on_hand": fmt(s.on_hand),
                                   "held": s.held, "expired": s.expired(today)}
                                  for s in blocked]}))
        moved = self._post(p._replace(quantity=-need), None)
        self.value_moved += total
        return moved

    def _post(self, p: Posting, lot: LotSlot | None) -> Decimal:
        op = self.op
        bal = self.slot(p.item, p.location)
        before_qty, before_avg = bal.on_hand, bal.average_cost
        after_qty = storable(before_qty + p.quantity, p.field)
        if p.quantity < 0 and after_qty < 0 and not p.location.allow_negative:
            op.refuse(InsufficientStock(
                f"{p.item.sku} at {p.location.code}: on hand {fmt(before_qty)}, "
                f"needs {fmt(-p.quantity)}",
                field=p.field,
                details={"sku": p.item.sku, "location": p.location.code,
                         "on_hand": fmt(before_qty), "requested": fmt(-p.quantity)},
            ))
        before_value = bal.value
        if p.undo and p.value is not None:
            c = costing.Costed(p.value, (p.unit_cost or ZERO) if p.quantity == 0
                               else storable(cost(p.value / p.quantity), p.field))
        elif p.quantity > 0:
            c = costing.incoming(before_qty, before_value, before_avg, p.quantity,
                                 p.unit_cost, p.value)
        elif p.value is not None:
            c = costing.Costed(p.value, (p.unit_cost or ZERO) if p.quantity == 0
                               else storable(cost(p.value / p.quantity), p.field))
        elif p.exit_cost is not None:
            c = costing.outgoing_at(before_qty, before_value, before_avg, p.quantity,
                                    p.exit_cost)
        else:
            c = costing.outgoing(before_qty, before_value, before_avg, p.quantity)
        rounding = ZERO
        if (before_qty + p.quantity == 0 and p.quantity < 0 and p.value is None
                and p.document_type not in CARRIED):
            # the row is worth its quantity x unit cost; what that leaves is a rounding
            rounding = costing.residue(before_qty, before_value)
            c = costing.Costed(c.value + rounding, c.unit_cost, c.variance - rounding
                               if p.exit_cost is not None else c.variance)
        move_cost = storable(c.unit_cost, p.field)
        after_value = storable(before_value + c.value, p.field)
        # a revert that empties a balance leaves it as a balance that never had stock
        new_avg = storable(costing.average(after_qty, after_value, ZERO if (
            p.value is not None and p.quantity < 0) else before_avg), p.field)
        if p.value is not None and costing.unbalanced(after_qty, after_value):
            self.unbalanced.append(f"{bal.key} would hold {fmt(after_qty)} worth "
                                   f"{fmt(after_value)}")
        bal.on_hand, bal.average_cost, bal.value, bal.dirty = (after_qty, new_avg, after_value,
                                                               True)
        self.value_moved = c.value
        op.change("stock", bal.key, "on_hand", before_qty, after_qty)
        op.change("stock", bal.key, "average_cost", before_avg, new_avg,
                  currency=books.currency(op))
        if c.variance:
            self.variance(p.item, p.location, c.variance,
                          "price" if p.quantity < 0 else "negative_stock",
                          p.document_type, p.document_number, p.batch_id,
                          f"{p.reason} of {fmt(p.quantity)}: the document moved "
                          f"{fmt(c.value + c.variance)}, the stock {fmt(c.value)}")
        if lot is not None:
            self.lots.move(lot, p.quantity, bal.key)
        if p.quantity and (lot is not None or tracked(p.item)):
            self.lots.picked.append(Picked(
                p.item.sku, p.location.code, lot.lot_number if lot else None,
                lot.expiry if lot else None, p.quantity, p.field, p.batch_id, c.value))
        self.kinds[p.item.id] = getattr(p.item, "kind", None)
        if rounding:  # first: a revert, newest first, never sees value on nothing
            self._round_off(p, bal, rounding, before_qty, before_avg)
        self.moves.append({
            "item_id": p.item.id, "location_id": p.location.id, "batch_id": p.batch_id,
            "quantity": p.quantity, "unit_cost": move_cost, "value": c.value,
            "reason": p.reason,
            "document_type": p.document_type, "document_number": p.document_number,
            "actor": op.actor, "operation_id": op.operation_id, "created_at": op.now,
        })
        return move_cost

    def _round_off(self, p: Posting, bal: Slot, amount: Decimal, emptied: Decimal,
                   average: Decimal) -> None:
        """What an emptied balance still held once its last row took quantity x unit cost
        leaves the stock books as a rounding: a row of quantity 0 taking it, and a `rounding`
        variance of it. Neither names the document (its own rows are what it moved, as a
        reader of shipments or adjustments sums them); the variance's reason does."""
        op = self.op
        bal.value -= amount
        self.moves.append({
            "item_id": p.item.id, "location_id": p.location.id, "batch_id": p.batch_id,
            "quantity": ZERO, "unit_cost": ZERO, "value": -amount, "reason": "rounding",
            "document_type": None, "document_number": None, "actor": op.actor,
            "operation_id": op.operation_id, "created_at": op.now})
        self.variance(p.item, p.location, amount, "rounding", None, None, p.batch_id,
                      f"{p.reason} of {fmt(emptied)} on {p.document_number or 'no document'} "
                      f"emptied {bal.key}: {fmt(emptied)} x {fmt(average)} left "
                      f"{fmt(amount)}, a rounding")

    def reserve(self, item: Stocked, location: Place, delta: Decimal,
               fld: str | None = "quantity") -> None:
        """Reserve (or release) stock for open demand: available = on hand - committed."""
        if delta == 0:
            return
        bal = self.slot(item, location)
        before = bal.committed
        bal.committed = storable(max(ZERO, before + delta), fld)
        bal.dirty = True
        self.op.change("stock", bal.key, "committed", before, bal.committed)

    def variance(self, item: Stocked, location: Place, amount: Decimal, kind: str,
                 document_type: str | None, document_number: str | None,
                 batch_id: int | None, reason: str) -> None:
        """Value that leaves the stock books (positive: an expense), naming the document;
        the preview shows each document's total."""
        if amount == 0:
            return
        self.variances.append({
            "item_id": item.id, "location_id": location.id, "batch_id": batch_id,
            "amount": amount, "kind": kind, "document_type": document_type,
            "document_number": document_number, "operation_id": self.op.operation_id,
            "reason": reason, "created_at": self.op.now})
        where = (f"{document_type or 'movement'} {document_number or ''}".rstrip(),
                 f"{item.sku}@{location.code} {kind}")
        before = self.shown.get(where, ZERO)
        self.shown[where] = before + amount
        self.op.change("variance", where[0], where[1], fmt(before) if before else None,
                       fmt(before + amount), currency=books.currency(self.op))

    def flush(self) -> None:
        """Write what this operation moved: a few executemany statements, whatever the
        number of lines."""
        if not self.pending or self.flushing:
            return
        self.flushing = True
        try:
            session = self.op.session
            dirty = [s for s in self.slots.values() if s.dirty]
            new = [s for s in dirty if s.id is None]
            old = [s for s in dirty if s.id is not None]
            if old:
                update_balances(session, old)
            if new:
                insert_balances(session, new)
            if self.moves:
                executemany(session.connection(), _MOVE, self.moves)
            if self.variances:
                executemany(session.connection(), _VARIANCE, self.variances)
            self.lots.flush()
            for s in dirty:
                s.dirty = False
            self.written_moves += self.moves
            self.written_variances += self.variances
            self.moves, self.variances = [], []
        finally:
            self.flushing = False


@event.listens_for(Session, "do_orm_execute")
def _ledger_first(state: ORMExecuteState) -> None:
    """Like autoflush: a query in the middle of an operation sees the stock it moved."""
    ledger: Ledger | None = state.session.info.get("ledger")
    if ledger is not None and not ledger.flushing and ledger.pending:
        ledger.flush()


@event.listens_for(Session, "after_transaction_end")
def _forget(session: Session, transaction: SessionTransaction) -> None:
    """A rolled-back savepoint (a write job's dry run) takes its unwritten stock with it:
    nothing it moved in memory may reach a later flush."""
    ledger: Ledger | None = session.info.get("ledger")
    if ledger is not None and ledger.scope is transaction:
        del session.info["ledger"]


def ledger(op: Op) -> Ledger:
    found = op.session.info.get("ledger")
    if isinstance(found, Ledger) and found.op is op:
        return found
    return Ledger(op)


def key(item: Stocked, location: Place) -> str:
    return f"{item.sku}@{location.code}"


def balance(op: Op, item: Stocked, location: Place) -> Slot:
    return ledger(op).slot(item, location)


def prefetch(op: Op, items: Iterable[Stocked], location: Place) -> None:
    ledger(op).load(items, location)


def post(op: Op, p: Posting) -> Decimal:
    return ledger(op).post(p)


def reserve(op: Op, item: Stocked, location: Place, delta: Decimal,
           fld: str | None = "quantity") -> None:
    ledger(op).reserve(item, location, delta, fld)


def revalue(op: Op, item: Stocked, location: Place, value: Decimal, document_type: str,
            number: str, per_unit: Decimal, fld: str | None = None) -> None:
    """A row of quantity 0 that changes a balance's value: the stock there re-priced. Its
    unit cost is the change per unit of the document's goods it re-prices."""
    if value != 0:
        post(op, Posting(item, location, ZERO, "revaluation", document_type, number,
                         unit_cost=per_unit, field=fld, value=value, pool=True))
