"""The stock ledger and its balances.

Every change of stock is one ledger row plus one balance update in the same transaction.
Costing is moving average per item and location: a receipt re-averages, an issue leaves
at the current average and does not change it, a transfer carries its cost along.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from shopfloor.domain.context import Op
from shopfloor.domain.numbers import ZERO, cost, fmt
from shopfloor.registry.errors import InsufficientStock
from shopfloor.store.tables import Balance, Batch, Item, Location, StockMovement
from shopfloor.store.tracking import created_here


def balance(op: Op, item: Item, location: Location) -> Balance:
    """The balance row, created on first use and locked for the rest of the transaction
    (so it is read once per operation: the lock keeps it current)."""
    cached: Balance | None = op.cache.get(("balance", item.id, location.id))
    if cached is not None:
        return cached
    found = _balance(op, item, location)
    op.cache[("balance", item.id, location.id)] = found
    return found


def prefetch(op: Op, items: Sequence[Item], location: Location) -> None:
    """Load (and lock) many balances in a few queries, creating the missing ones, for bulk
    operations: `balance` then serves them from the cache as it would have one by one."""
    wanted = sorted({i.id: i for i in items
                     if ("balance", i.id, location.id) not in op.cache}.items())
    for start in range(0, len(wanted), 500):
        chunk = dict(wanted[start:start + 500])
        stmt = op.lock(select(Balance).where(Balance.location_id == location.id,
                                             Balance.item_id.in_(list(chunk))))
        found = {b.item_id: b for b in op.session.scalars(stmt).unique()}
        missing = [i for i in chunk if i not in found]
        if missing:
            insert = pg_insert if op.dialect == "postgresql" else sqlite_insert
            op.session.execute(insert(Balance).values([
                {"item_id": i, "location_id": location.id, "on_hand": ZERO, "committed": ZERO,
                 "average_cost": ZERO, "version": 1} for i in missing
            ]).on_conflict_do_nothing(index_elements=["item_id", "location_id"]))
            for bal in op.session.scalars(stmt.where(Balance.item_id.in_(missing))).unique():
                created_here(op.session, bal, key(chunk[bal.item_id], location))
                found[bal.item_id] = bal
        for item_id, bal in found.items():
            op.cache[("balance", item_id, location.id)] = bal


def _balance(op: Op, item: Item, location: Location) -> Balance:
    stmt = op.lock(
        select(Balance).where(Balance.item_id == item.id, Balance.location_id == location.id)
    )
    found = op.session.scalars(stmt).unique().one_or_none()
    if found is not None:
        return found
    insert = pg_insert if op.dialect == "postgresql" else sqlite_insert
    op.session.execute(
        insert(Balance)
        .values(item_id=item.id, location_id=location.id, on_hand=ZERO, committed=ZERO,
                average_cost=ZERO, version=1)
        .on_conflict_do_nothing(index_elements=["item_id", "location_id"])
    )
    created = op.session.scalars(stmt).unique().one()
    created_here(op.session, created, key(item, location))
    return created


def key(item: Item, location: Location) -> str:
    return f"{item.sku}@{location.code}"


@dataclass(frozen=True)
class Posting:
    item: Item
    location: Location
    quantity: Decimal
    reason: str
    document_type: str | None
    document_number: str | None
    unit_cost: Decimal | None = None
    batch: Batch | None = None
    field: str | None = None


def post(op: Op, p: Posting) -> StockMovement:
    """Write one ledger row and move the balance with it.

    `unit_cost` applies to incoming stock (None: at the current average). Outgoing stock
    always leaves at the current average. Taking stock below zero is refused unless the
    location allows it.
    """
    bal = balance(op, p.item, p.location)
    before_qty, before_avg = bal.on_hand, bal.average_cost
    after_qty = before_qty + p.quantity
    where = key(p.item, p.location)
    if p.quantity < 0 and after_qty < 0 and not p.location.allow_negative:
        op.refuse(InsufficientStock(
            f"{p.item.sku} at {p.location.code}: on hand {fmt(before_qty)}, "
            f"needs {fmt(-p.quantity)}",
            field=p.field,
            details={"sku": p.item.sku, "location": p.location.code,
                     "on_hand": fmt(before_qty), "requested": fmt(-p.quantity)},
        ))
    if p.quantity > 0:
        in_cost = before_avg if p.unit_cost is None else p.unit_cost
        if before_qty <= 0 or after_qty == 0:
            new_avg = cost(in_cost)
        else:
            new_avg = cost((before_qty * before_avg + p.quantity * in_cost) / after_qty)
        move_cost = in_cost
    else:
        new_avg = before_avg
        move_cost = before_avg
    bal.on_hand = after_qty
    bal.average_cost = new_avg
    op.change("stock", where, "on_hand", before_qty, after_qty)
    op.change("stock", where, "average_cost", before_avg, new_avg)
    movement = StockMovement(
        item_id=p.item.id,
        location_id=p.location.id,
        batch_id=p.batch.id if p.batch else None,
        quantity=p.quantity,
        unit_cost=cost(move_cost),
        reason=p.reason,
        document_type=p.document_type,
        document_number=p.document_number,
        actor=op.actor,
        operation_id=op.operation_id,
        created_at=op.now,
    )
    op.session.add(movement)
    return movement


def commit(op: Op, item: Item, location: Location, delta: Decimal) -> None:
    """Reserve (or release) stock for open demand: available = on hand - committed."""
    if delta == 0:
        return
    bal = balance(op, item, location)
    before = bal.committed
    bal.committed = max(ZERO, before + delta)
    op.change("stock", key(item, location), "committed", before, bal.committed)


def batch(op: Op, item: Item, lot_number: str | None, expiry: object = None,
          *, fld: str = "batch") -> Batch | None:
    if lot_number is None:
        return None
    found = op.session.scalars(
        select(Batch).where(Batch.item_id == item.id, Batch.lot_number == lot_number)
    ).one_or_none()
    if found is None:
        found = Batch(item_id=item.id, lot_number=lot_number, expiry=expiry)
        op.session.add(found)
        op.session.flush()
    return found
