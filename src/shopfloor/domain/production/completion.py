"""Reporting production as it happened: what was really consumed, from which lots, what
was scrapped, and which lot (or serials) came out.

The recipe is the plan, not the truth: by default a completion consumes recipe x units,
but the floor may report more, less, a substitute, or none of a component. The output is
costed at what was actually consumed, spread over the good units; scrapped units carry no
stock and their material cost stays in the good ones (yield loss). Scrapped units count
against the order: good + scrap reaching its quantity finishes it and releases all it
committed (scrap beyond that is yield loss, never a release of what was not committed).
The preview shows each component's variance against the recipe in quantity and cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from shopfloor.domain.base import lookup, resolve
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.floor import operations as floor_time
from shopfloor.domain.production import by_products
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots, yields
from shopfloor.domain.stock.counted import exact, exact_or_none, precision
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.statuses import MO, said
from shopfloor.store.tables import ManufacturingOrder

Consumed = lots.Moved
"""What the floor reports it used: a component or a substitute, with its lots."""


@dataclass(frozen=True)
class Report:
    quantity: Decimal | None = None
    scrap: Decimal = ZERO
    consumed: Sequence[Consumed] = ()
    lot: str | None = None
    expiry: date | None = None
    serials: tuple[str, ...] = ()
    change_expiry: bool = False
    skipped: tuple[int, ...] = ()  # operations (by sequence) the floor did not do


@dataclass
class Variance:
    sku: str
    planned: Decimal
    actual: Decimal
    unit_cost: Decimal = ZERO
    lots: list[str] = field(default_factory=list)


def complete(op: Op, number: str, report: Report) -> tuple[ManufacturingOrder, list[Variance]]:
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status not in (MO.planned, MO.in_progress):
        raise Conflict(f"manufacturing order {mo.number} is {said(mo.status)} and can no longer "
                       "change", field="number")
    exact_or_none(report.quantity, mo.item, "quantity")
    exact(report.scrap, mo.item, "scrap")
    remaining = outstanding(mo)
    q = max(remaining - report.scrap, ZERO) if report.quantity is None else report.quantity
    if q > remaining:
        raise ValidationFailed(f"completing {fmt(q)} but only {fmt(remaining)} remain",
                               field="quantity")
    made = q + report.scrap
    done = mo.completed_quantity + mo.scrapped_quantity
    plan = {c.item.sku: (c.item, storable(yields.between(
        c.quantity_per_unit, done, made, yields.of(c), precision(c.item)), "quantity"))
            for c in mo.components}
    given = {c.sku: (i, c) for i, c in enumerate(report.consumed)}
    resolve.once([(c.sku, f"consumed[{i}].sku") for i, c in enumerate(report.consumed)])
    extra = [(sku, f"consumed[{i}].sku") for sku, (i, _) in given.items() if sku not in plan]
    substitutes = resolve.items(op, extra) if extra else {}
    stock.prefetch(op, [mo.item, *(item for item, _ in plan.values()),
                        *substitutes.values()], mo.location)
    rows: list[tuple[str, Any, Decimal, Decimal, str, Consumed | None]] = []
    for sku, (item, planned) in plan.items():
        i, spec = given.get(sku, (None, None))
        actual = spec.quantity if spec is not None else planned
        rows.append((sku, item, planned, actual, f"consumed[{i}]" if i is not None
                     else "quantity", spec))
    for i, used in enumerate(report.consumed):
        exact(used.quantity, substitutes.get(used.sku) or plan[used.sku][0],
              f"consumed[{i}].quantity")
    for sku, sub in substitutes.items():
        i, spec = given[sku]
        rows.append((sku, sub, ZERO, spec.quantity, f"consumed[{i}]", spec))
    parts = lots.outgoing(op, [
        lots.Line(item, actual, fld, spec.lots if spec else (), spec.serials if spec else ())
        for _, item, _, actual, fld, spec in rows if actual > 0])
    total = ZERO
    variances: list[Variance] = []
    moving = iter(parts)
    for sku, item, planned, actual, _, spec in rows:
        v = Variance(sku, planned, actual, stock.balance(op, item, mo.location).average_cost)
        if actual > 0:
            for part in next(moving):
                v.unit_cost = stock.post(op, Posting(
                    item, mo.location, -part.quantity, "consumption",
                    "manufacturing_order", mo.number, batch_id=part.batch_id,
                    allow_expired=spec is not None and spec.allow_expired, field=part.field))
                total -= stock.ledger(op).value_moved
        variances.append(v)
    counted = min(made, remaining)
    for c in mo.components:
        stock.reserve(op, c.item, mo.location, -storable(yields.between(
            c.quantity_per_unit, done, counted, yields.of(c), precision(c.item)), "quantity"))
    _show(op, mo, variances)
    floor_time.finish(op, mo, report.skipped, all_done=made >= remaining)
    labour, times = floor_time.labour(op, mo, made)
    floor_time.show(op, mo.number, times)
    total += labour
    if q > 0:
        out = lots.incoming(op, [lots.Line(mo.item, q, "output", _output_lots(report),
                                           report.serials, report.expiry)])[0]
        main = by_products.book(op, mo, q, total)
        unit_cost, left = cost(main / q), main
        for n, part in enumerate(out):
            # the product carries exactly the value left to it, split by quantity
            share = left if n == len(out) - 1 else cost(main * part.quantity / q)
            left -= share
            stock.post(op, Posting(mo.item, mo.location, part.quantity, "production",
                                   "manufacturing_order", mo.number, unit_cost=unit_cost,
                                   batch_id=part.batch_id, field=part.field, value=share))
    if report.scrap:
        op.change("manufacturing_order", number, "scrapped_quantity", mo.scrapped_quantity,
                  mo.scrapped_quantity + report.scrap)
        mo.scrapped_quantity += report.scrap
    op.change("manufacturing_order", number, "completed_quantity", mo.completed_quantity,
              mo.completed_quantity + q)
    mo.completed_quantity += q
    status = MO.done if outstanding(mo) == 0 else MO.in_progress
    op.change("manufacturing_order", number, "status", mo.status, status)
    mo.status = status
    touch(mo)
    return mo, variances


def outstanding(mo: ManufacturingOrder) -> Decimal:
    """Units the order still expects, the ones its components stay committed for."""
    return max(ZERO, mo.quantity - mo.completed_quantity - mo.scrapped_quantity)


def _output_lots(report: Report) -> tuple[lots.LotIn, ...]:
    return ((lots.LotIn(report.lot, None, report.expiry, report.change_expiry, "expiry"),)
            if report.lot else ())


def _show(op: Op, mo: ManufacturingOrder, variances: list[Variance]) -> None:
    """What a person confirming the completion must see: each component off its recipe."""
    for v in variances:
        if v.actual == v.planned:
            continue
        delta = v.actual - v.planned
        op.warn("variance", f"{v.sku}: {fmt(v.actual)} used against {fmt(v.planned)} planned "
                f"({'+' if delta > 0 else ''}{fmt(delta)}, "
                f"{'+' if delta > 0 else ''}{fmt(cost(delta * v.unit_cost))} at cost)")
        op.change("manufacturing_order", mo.number, f"{v.sku} consumed", v.planned, v.actual)
