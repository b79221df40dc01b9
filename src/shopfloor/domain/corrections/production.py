"""Correcting a manufacturing order after the fact: how many were made, and how much of
each component was really used.

Fewer made: the product leaves at its production cost and the components come back at
the cost they were consumed at (commitments follow). More made: a completion as the
recipe says. A component's consumption corrected: the difference leaves at the average
(more used) or comes back at the cost it was consumed at (less used), in the lot named
or the one lot the order used; the product is then re-costed as if the consumption had
been right, the value per unit made travelling through its later movements as a
receipt price correction does (cost adjustments for what already left).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections.costs import document_lots, document_unit, only_lot, recost
from shopfloor.domain.floor import operations as floor_time
from shopfloor.domain.orders.returns import moved_cost
from shopfloor.domain.production import by_products, completion
from shopfloor.domain.production import manufacturing as production
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import lots, yields
from shopfloor.domain.stock.counted import exact, precision
from shopfloor.domain.stock.items import touch
from shopfloor.domain.stock.ledger import Posting
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.kernel.statuses import MO as MOState
from shopfloor.store.tables import ManufacturingOrder

MO = "manufacturing_order"


@dataclass(frozen=True)
class Used:
    """The right total quantity of one component (or substitute) the order consumed."""

    sku: str
    quantity: Decimal
    lot: str | None = None


def correct(op: Op, number: str, completed: Decimal | None, used: Sequence[Used] = ()
            ) -> ManufacturingOrder:
    mo = lookup.manufacturing_order(op, number, lock=True)
    if mo.status == MOState.cancelled:
        raise Conflict(f"manufacturing order {number} is cancelled", field="number")
    if completed is None and not used:
        raise ValidationFailed("give completed_quantity or consumed", field="completed_quantity")
    if completed is not None:
        _completed(op, mo, completed)
    if used:
        _consumed(op, mo, used)
    touch(mo)
    return mo


def _completed(op: Op, mo: ManufacturingOrder, completed: Decimal) -> None:
    number = mo.number
    exact(completed, mo.item, "completed_quantity")
    if completed > mo.quantity:
        raise ValidationFailed(f"{fmt(completed)} is more than the {fmt(mo.quantity)} ordered",
                               field="completed_quantity")
    delta = completed - mo.completed_quantity
    if delta == 0:
        raise ValidationFailed(f"{fmt(completed)} is what was completed",
                               field="completed_quantity")
    if delta > 0:
        production.complete(op, number, delta)
        return
    undo = -delta
    stock.prefetch(op, [mo.item, *(c.item for c in mo.components)], mo.location)
    made = document_unit(op, MO, number, mo.item_id)
    out = _one(op, mo.item, document_lots(op, MO, number, mo.item_id, mo.location_id), number)
    stock.post(op, Posting(mo.item, mo.location, -undo, "correction", MO, number,
                           exit_cost=made, batch_id=out, pool=out is None,
                           field="completed_quantity"))
    left = completed + mo.scrapped_quantity  # made or scrapped once the correction stands
    for c in mo.components:
        # what the undone units took as a completion counts it, in the component's unit
        back = yields.between(c.quantity_per_unit, left, undo, yields.of(c), precision(c.item))
        if back == 0:
            continue
        unit = moved_cost(op, MO, number, c.item_id, "consumption")
        held = {b: -q for b, q in document_lots(op, MO, number, c.item_id,
                                                mo.location_id).items() if q < 0}
        lot = _one(op, c.item, held, number)
        stock.post(op, Posting(c.item, mo.location, back, "correction", MO, number,
                               unit_cost=unit, batch_id=lot, pool=lot is None,
                               field="completed_quantity"))
    # the by-products the undone units gave leave at what they came in at, so the
    # components' full cost coming back is the product's and theirs leaving, to the cent
    for item, back in by_products.given(op, mo, mo.completed_quantity, completed):
        lot = _one(op, item, document_lots(op, MO, number, item.id, mo.location_id), number)
        stock.post(op, Posting(item, mo.location, -back, "correction", MO, number,
                               exit_cost=document_unit(op, MO, number, item.id),
                               batch_id=lot, pool=lot is None, field="completed_quantity"))
        op.change(MO, number, f"by-product {item.sku}", None, f"{fmt(-back)} taken back")
    was = completion.outstanding(mo)
    op.change(MO, number, "completed_quantity", mo.completed_quantity, completed)
    mo.completed_quantity = completed
    if mo.status == MOState.closed:  # closed short, it expects no more: nothing to commit
        return
    production.reserve(op, mo, completion.outstanding(mo) - was)
    status = MOState.done if completion.outstanding(mo) == 0 else \
        MOState.in_progress if completed > 0 or mo.scrapped_quantity > 0 or \
        floor_time.started(op, mo) else MOState.planned
    op.change(MO, number, "status", mo.status, status)
    mo.status = status


def _one(op: Op, item: object, held: dict[int | None, Decimal], number: str) -> int | None:
    """Stock moved back into a lot: the one lot the order moved (tracked items only)."""
    if not lots.tracked(item):
        return None
    return only_lot(op, held, getattr(item, "sku", "?"), number)


def _consumed(op: Op, mo: ManufacturingOrder, used: Sequence[Used]) -> None:
    number = mo.number
    if mo.completed_quantity == 0:
        raise Conflict(f"{number} has completed nothing; report consumption with "
                       "its completion", field="consumed")
    seen: set[str] = set()
    value = ZERO
    items = []
    for i, spec in enumerate(used):
        fld = f"consumed[{i}]"
        if spec.sku in seen:
            raise ValidationFailed(f"{spec.sku} appears twice", field=f"{fld}.sku")
        seen.add(spec.sku)
        item = lookup.item(op, spec.sku, fld=f"{fld}.sku")
        if item.id == mo.item_id:
            raise ValidationFailed(f"{spec.sku} is what {number} makes", field=f"{fld}.sku")
        if spec.lot is not None and not lots.tracked(item):
            raise ValidationFailed(f"{spec.sku} is not lot-tracked; leave out lot",
                                   field=f"{fld}.lot")
        exact(spec.quantity, item, f"{fld}.quantity")
        items.append((item, spec, fld))
    stock.prefetch(op, [mo.item, *(item for item, _, _ in items)], mo.location)
    for item, spec, fld in items:
        held = {b: -q for b, q in document_lots(op, MO, number, item.id,
                                                mo.location_id).items() if q < 0}
        was = sum(held.values(), ZERO)
        delta = spec.quantity - was
        if delta == 0:
            raise ValidationFailed(f"{spec.sku}: {fmt(was)} is what {number} consumed",
                                   field=f"{fld}.quantity")
        batch = None
        if lots.tracked(item):
            if getattr(item, "serial_tracked", False):
                raise ValidationFailed(f"{spec.sku} is serial-tracked: report it with a "
                                       "completion naming the serials", field=f"{fld}.sku")
            if spec.lot is not None:
                parts = lots.outgoing(op, [lots.Line(item, Decimal(1), fld,
                                                     (lots.LotIn(spec.lot),))])
                batch = parts[0][0].batch_id
            elif delta < 0:
                batch = only_lot(op, held, spec.sku, number)
        if delta > 0:
            unit = stock.post(op, Posting(item, mo.location, -delta, "correction", MO, number,
                                          batch_id=batch, field=f"{fld}.quantity"))
            value += delta * unit
        else:
            unit = moved_cost(op, MO, number, item.id, "consumption")
            stock.post(op, Posting(item, mo.location, -delta, "correction", MO, number,
                                   unit_cost=unit, batch_id=batch, pool=batch is None,
                                   field=f"{fld}.quantity"))
            value += delta * unit
        op.change(MO, number, f"{spec.sku} consumed", was, spec.quantity)
    made = sum(document_lots(op, MO, number, mo.item_id, mo.location_id).values(), ZERO)
    if value == 0 or made <= 0:
        return
    old = document_unit(op, MO, number, mo.item_id)
    new = cost(old + value / made)
    op.change(MO, number, "unit cost", old, new)
    recost(op, mo.item, mo.location, MO, number, made, old, new, "consumed")
