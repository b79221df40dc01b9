"""Whether a restored database's books agree: every balance (what the valuation reads)
equals the sum of its ledger rows, in quantity and in value, per item and location.

A restore runs it before it commits, so a backup whose rows were altered (a balance
raised, a ledger row dropped) never comes back as a company that disagrees with itself.
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session

from shopfloor.kernel.errors import Conflict
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import Balance, Item, Location, StockMovement

SHOWN = 5
"""Disagreements named in the message; the count says how many there were."""


def disagreements(conn: Connection) -> tuple[list[str], Decimal, Decimal]:
    """Each item and location whose balance and ledger differ, with the ledger's and the
    balances' total values."""
    session = Session(bind=conn)
    ledger = {(i, loc): (Decimal(q or 0), Decimal(v or 0)) for i, loc, q, v in session.execute(
        select(StockMovement.item_id, StockMovement.location_id,
               func.sum(StockMovement.quantity), func.sum(StockMovement.value))
        .group_by(StockMovement.item_id, StockMovement.location_id))}
    kept = {(i, loc): (Decimal(q), Decimal(v)) for i, loc, q, v in session.execute(
        select(Balance.item_id, Balance.location_id, Balance.on_hand, Balance.stock_value))}
    names = {i: sku for i, sku in session.execute(select(Item.id, Item.sku))}
    places = {i: code for i, code in session.execute(select(Location.id, Location.code))}
    found = []
    for key in sorted(set(ledger) | set(kept)):
        (lq, lv), (bq, bv) = ledger.get(key, (0, 0)), kept.get(key, (0, 0))
        where = f"{names.get(key[0], key[0])}@{places.get(key[1], key[1])}"
        if lq != bq:
            found.append(f"{where} on hand {fmt(Decimal(bq))} != ledger {fmt(Decimal(lq))}")
        if lv != bv:
            found.append(f"{where} value {fmt(Decimal(bv))} != ledger {fmt(Decimal(lv))}")
    total_ledger = sum((v for _, v in ledger.values()), Decimal(0))
    total_kept = sum((v for _, v in kept.values()), Decimal(0))
    return found, total_ledger, total_kept


def check(conn: Connection, file: str) -> None:
    """Refuse (Conflict naming `file`) books that disagree."""
    found, ledger, valued = disagreements(conn)
    if not found and ledger == valued:
        return
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    raise Conflict(
        f"the books disagree in {file}, so it was not restored: "
        f"{'; '.join(found[:SHOWN])}{more} (ledger {fmt(ledger)}, valuation {fmt(valued)})",
        field="file", details={"disagreements": len(found), "ledger": str(ledger),
                               "valuation": str(valued)})
