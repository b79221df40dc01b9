"""What each job kind does. Runners use the domain directly (jobs are not a surface)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain import planning
from shopfloor.domain.catalog import OPEN_MO, OPEN_SO
from shopfloor.domain.context import Op
from shopfloor.domain.numbers import ZERO, fmt
from shopfloor.jobs.worker import JobContext, Runner
from shopfloor.store.tables import (
    Balance,
    ManufacturingComponent,
    ManufacturingOrder,
    SalesOrder,
    SalesOrderLine,
    StockMovement,
)


def _op(ctx: JobContext, session: Any) -> Op:
    return Op(session, ctx.actor, datetime.now(UTC), dialect=ctx.store.dialect,
              locks_rows=ctx.store.locks_rows)


def run_mrp(ctx: JobContext) -> dict[str, Any]:
    today = date.fromisoformat(ctx.arguments["today"]) if ctx.arguments.get("today") \
        else date.today()
    with ctx.store.reading() as session:
        result = planning.plan(_op(ctx, session), today=today,
                               location=ctx.arguments.get("location"), progress=ctx.progress)
    mos, pos = result["manufacturing_orders"], result["purchase_orders"]
    lines = sum(len(p["lines"]) for p in pos)
    result["summary"] = (f"MRP: {len(mos)} manufacturing orders and {lines} purchase lines "
                         f"from {len(pos)} suppliers suggested")
    return result


def rebuild_balances(ctx: JobContext) -> dict[str, Any]:
    """On hand from the ledger, committed from open orders; report every correction.

    One write transaction, with no checkpoint inside it: a checkpoint writes the job row,
    which on SQLite would wait for the very lock this transaction holds.
    """
    ctx.progress(0.1, "recomputing balances")
    fixes = ctx.store.retrying(lambda: _rebuild(ctx))
    ctx.progress(0.95, f"{len(fixes)} corrections")
    return {"summary": f"Rebuilt balances: {len(fixes)} corrected", "corrections": fixes}


def _rebuild(ctx: JobContext) -> list[dict[str, Any]]:
    with ctx.store.writing() as session:
        ledger = {(i, loc): q for i, loc, q in session.execute(
            select(StockMovement.item_id, StockMovement.location_id,
                   func.sum(StockMovement.quantity))
            .group_by(StockMovement.item_id, StockMovement.location_id)).all()}
        committed: dict[tuple[int, int], Decimal] = {}
        for item_id, loc, qty in session.execute(
                select(SalesOrderLine.item_id, SalesOrder.location_id,
                       SalesOrderLine.quantity - SalesOrderLine.fulfilled_quantity)
                .join(SalesOrder).where(SalesOrder.status.in_(OPEN_SO))).all():
            committed[(item_id, loc)] = committed.get((item_id, loc), ZERO) + qty
        for mo in session.scalars(select(ManufacturingOrder)
                                  .where(ManufacturingOrder.status.in_(OPEN_MO))).unique():
            remaining = mo.quantity - mo.completed_quantity
            for comp in session.scalars(select(ManufacturingComponent).where(
                    ManufacturingComponent.order_id == mo.id)).unique():
                key = (comp.item_id, mo.location_id)
                committed[key] = committed.get(key, ZERO) + comp.quantity_per_unit * remaining
        fixes = []
        for bal in session.scalars(select(Balance)).unique():
            key = (bal.item_id, bal.location_id)
            want_on_hand = Decimal(ledger.pop(key, ZERO))
            want_committed = max(ZERO, committed.get(key, ZERO))
            if bal.on_hand != want_on_hand or bal.committed != want_committed:
                fixes.append({"sku": bal.item.sku, "location": bal.location.code,
                              "on_hand": [fmt(bal.on_hand), fmt(want_on_hand)],
                              "committed": [fmt(bal.committed), fmt(want_committed)]})
                bal.on_hand, bal.committed = want_on_hand, want_committed
        session.commit()
    return fixes


KINDS: dict[str, Runner] = {"mrp": run_mrp, "rebuild_balances": rebuild_balances}
