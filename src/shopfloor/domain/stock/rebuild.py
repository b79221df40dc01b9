"""Balances are derived data: on hand and value are sums of the ledger, committed is what
open orders still need. Rebuilding recomputes both and reports every row it corrects."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.statuses import OPEN_MO, OPEN_SO
from shopfloor.store.tables import (
    Balance,
    ManufacturingComponent,
    ManufacturingOrder,
    SalesOrder,
    SalesOrderLine,
    StockMovement,
)

Key = tuple[int, int]


def _ledger(op: Op) -> dict[Key, tuple[Decimal, Decimal]]:
    rows = op.session.execute(
        select(StockMovement.item_id, StockMovement.location_id, func.sum(StockMovement.quantity),
               func.sum(StockMovement.value))
        .group_by(StockMovement.item_id, StockMovement.location_id)).all()
    return {(i, loc): (Decimal(q), Decimal(v)) for i, loc, q, v in rows}


def _committed(op: Op) -> dict[Key, Decimal]:
    out: dict[Key, Decimal] = {}
    lines = op.session.execute(
        select(SalesOrderLine.item_id, SalesOrder.location_id, SalesOrderLine.quantity,
               SalesOrderLine.fulfilled_quantity)
        .join(SalesOrder).where(SalesOrder.status.in_(OPEN_SO))).all()
    for item_id, loc, qty, done in lines:
        out[(item_id, loc)] = out.get((item_id, loc), ZERO) + qty - done
    mos = op.session.execute(
        select(ManufacturingComponent.item_id, ManufacturingOrder.location_id,
               ManufacturingComponent.quantity_per_unit, ManufacturingOrder.quantity,
               ManufacturingOrder.completed_quantity, ManufacturingOrder.scrapped_quantity)
        .join(ManufacturingOrder, ManufacturingComponent.order_id == ManufacturingOrder.id)
        .where(ManufacturingOrder.status.in_(OPEN_MO))).all()
    for item_id, loc, per_unit, qty, completed, scrapped in mos:
        out[(item_id, loc)] = out.get((item_id, loc), ZERO) + per_unit * max(
            ZERO, qty - completed - scrapped)
    return out


def rebuild_balances(op: Op) -> list[dict[str, Any]]:
    op.progress(0.05, "summing the ledger")
    ledger, committed = _ledger(op), _committed(op)
    op.progress(0.5, "comparing balances")
    balances = list(op.session.scalars(op.lock(select(Balance).order_by(Balance.id))).unique())
    fixes = []
    for n, bal in enumerate(balances):
        key = (bal.item_id, bal.location_id)
        want_on_hand, want_value = ledger.get(key, (ZERO, ZERO))
        want_committed = max(ZERO, committed.get(key, ZERO))
        if bal.stock_value != want_value:  # the value is the ledger's too; the average follows
            where = f"{bal.item.sku}@{bal.location.code}"
            op.change("balance", where, "stock_value", bal.stock_value, want_value)
            bal.stock_value = want_value
            if want_on_hand != 0:
                bal.average_cost = cost(want_value / want_on_hand)
        if bal.on_hand != want_on_hand or bal.committed != want_committed:
            where = f"{bal.item.sku}@{bal.location.code}"
            fixes.append({"sku": bal.item.sku, "location": bal.location.code,
                          "on_hand": [fmt(bal.on_hand), fmt(want_on_hand)],
                          "committed": [fmt(bal.committed), fmt(want_committed)]})
            op.change("balance", where, "on_hand", bal.on_hand, want_on_hand)
            op.change("balance", where, "committed", bal.committed, want_committed)
            bal.on_hand, bal.committed = want_on_hand, want_committed
        if n % 500 == 499:
            op.progress(0.5 + 0.45 * n / len(balances), f"{n + 1} of {len(balances)} balances")
    return fixes
