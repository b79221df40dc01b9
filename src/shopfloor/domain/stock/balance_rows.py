"""A balance as an operation holds it in memory, and the two statements that write such
balances back: the ledger's end-of-operation writes, kept apart from its rules."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import bindparam, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from shopfloor.kernel.numbers import ZERO
from shopfloor.store.bulk import executemany, update_arrays
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.tables import Balance, table

BALANCES = table(Balance)

# Built once: constructing a statement costs more than running it on SQLite.
_UPDATE = (update(BALANCES)
           .where(BALANCES.c.id == bindparam("b_id"), BALANCES.c.version == bindparam("b_version"))
           .values(on_hand=bindparam("b_on_hand"), committed=bindparam("b_committed"),
                   average_cost=bindparam("b_average_cost"),
                   stock_value=bindparam("b_stock_value"), version=bindparam("b_next")))
_MATCH = {"b_id": "id", "b_version": "version"}
_SETS = {"b_on_hand": "on_hand", "b_committed": "committed", "b_average_cost": "average_cost",
         "b_stock_value": "stock_value", "b_next": "version"}
"""The same update for many rows in one statement on PostgreSQL (`bulk.update_arrays`)."""
_INSERT = insert(BALANCES).returning(BALANCES.c.id, BALANCES.c.item_id, BALANCES.c.location_id)

@dataclass(slots=True)
class Slot:
    """One balance as this operation sees it: read once, moved in memory, written once."""

    id: int | None
    item_id: int
    location_id: int
    key: str
    on_hand: Decimal
    committed: Decimal
    average_cost: Decimal
    version: int
    value: Decimal = ZERO
    dirty: bool = False


def update_balances(session: Session, slots: list[Slot]) -> None:
    """Absolute values, each row only if it still has the version this operation read
    (on PostgreSQL the rows are locked besides; on SQLite the write lock is held)."""
    params = [{"b_id": s.id, "b_version": s.version, "b_on_hand": s.on_hand,
               "b_committed": s.committed, "b_average_cost": s.average_cost,
               "b_stock_value": s.value, "b_next": s.version + 1} for s in slots]
    conn = session.connection()
    done = update_arrays(conn, BALANCES, params, _MATCH, _SETS)
    if done is None:
        done = executemany(conn, _UPDATE, params)
    if done not in (-1, len(params)):
        raise RetryTransaction  # a balance moved under us: run the whole operation again
    for s in slots:
        s.version += 1


def insert_balances(session: Session, slots: list[Slot]) -> None:
    rows = [{"item_id": s.item_id, "location_id": s.location_id, "on_hand": s.on_hand,
             "committed": s.committed, "average_cost": s.average_cost,
             "stock_value": s.value, "version": 1}
            for s in slots]
    try:
        created = session.connection().execute(_INSERT, rows).all()
    except IntegrityError:
        raise RetryTransaction from None  # another writer created it first: start over
    ids = {(r.item_id, r.location_id): r.id for r in created}
    for s in slots:
        s.id = ids[(s.item_id, s.location_id)]
