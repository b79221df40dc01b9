"""Manufacturing orders: commit components, consume them, produce at rolled-up cost.

An order snapshots the recipe when it is made, so a later recipe change does not rewrite
what the shop floor was told to build. Completion may be partial; each completion
consumes components at their average cost and produces the item at the sum of what it
consumed. Scrapped units count against the order like good ones: they are not coming any
more, so what is outstanding (and committed) is the quantity less both.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from shopfloor.domain.base import books, lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.base.sequences import claim_number
from shopfloor.domain.floor import load, scheduling
from shopfloor.domain.production import by_products, completion, planned
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock import yields
from shopfloor.domain.stock.counted import exact, precision
from shopfloor.kernel import units
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.kernel.statuses import MO, OPEN_MO, said
from shopfloor.kernel.text import money, unit_cost
from shopfloor.store.tables import Item, ManufacturingComponent, ManufacturingOrder, OrderOperation


def _open(mo: ManufacturingOrder) -> None:
    if mo.status not in OPEN_MO:
        raise Conflict(f"manufacturing order {mo.number} is {said(mo.status)} and can no longer "
                       "change", field="number")


def reserve(op: Op, mo: ManufacturingOrder, quantity: Decimal) -> None:
    """Commit (or, negative, release) the components of `quantity` units, the ones after
    those already made or scrapped (with a yield, the first units carry the set-up)."""
    stock.prefetch(op, [c.item for c in mo.components], mo.location)
    done = mo.completed_quantity + mo.scrapped_quantity
    sign = 1 if quantity >= 0 else -1
    for c in mo.components:
        amount = yields.between(c.quantity_per_unit, done, abs(quantity), yields.of(c),
                                precision(c.item))
        stock.reserve(op, c.item, mo.location, storable(sign * amount, "quantity"))


def create(op: Op, sku: str, quantity: Decimal, location: str, *, number: str | None,
           due_date: date | None, start: datetime | None = None) -> ManufacturingOrder:
    item = lookup.item(op, sku)
    if item.kind == "material":
        raise ValidationFailed(f"{sku} is a material: materials are bought, not made",
                               field="sku")
    if not item.recipe_lines:
        raise ValidationFailed(f"{sku} has no recipe; give it a recipe first", field="sku")
    exact(quantity, item, "quantity")
    _counted(item, quantity)
    by_products.counted(op, item, quantity)
    loc = lookup.location(op, location)
    mo = ManufacturingOrder(number=claim_number(op, ManufacturingOrder, number, "MO"),
                            item=item, item_id=item.id, location=loc, location_id=loc.id,
                            quantity=quantity, status=MO.planned, due_date=due_date,
                            created_at=op.now, by_products=by_products.snapshot(op, item.id),
                            completed_quantity=ZERO, scrapped_quantity=ZERO)
    for i, line in enumerate(item.recipe_lines):
        mo.components.append(ManufacturingComponent(
            item_id=line.component_id, item=line.component, position=i,
            quantity_per_unit=line.quantity, attrition_percent=line.attrition_percent,
            setup_quantity=line.setup_quantity, rounding_multiple=line.rounding_multiple))
    op.session.add(mo)
    op.session.flush()
    op.change("manufacturing_order", mo.number, "status", None, MO.planned)
    # what a preview (one order, or every order of an MRP plan) shows a person to confirm
    op.change("manufacturing_order", mo.number, "make", None,
              f"{fmt(quantity)} {item.sku} at {loc.code}")
    if due_date is not None:
        op.change("manufacturing_order", mo.number, "due_date", None, due_date)
    stock.prefetch(op, [c.item for c in mo.components], loc)
    lot_book = stock.ledger(op).lots
    for c in mo.components:
        bal = stock.balance(op, c.item, loc)
        need = storable(yields.gross(c.quantity_per_unit, quantity, yields.of(c)), "quantity")
        held, which = lot_book.held_back(c.item, loc.id)  # held or expired: not consumed
        available = bal.on_hand - held - bal.committed
        if available < need:
            op.warn("short", f"{c.item.sku}: needs {fmt(need)}, {fmt(available)} available at "
                    f"{loc.code}" + (f" (not counting {which})" if held else ""), fld="quantity")
    reserve(op, mo, quantity)
    ops = _schedule(op, mo, start)
    if ops or mo.by_products or not all(yields.of(c).plain for c in mo.components):
        _planned_cost(op, mo, ops)
    return mo


def _counted(item: Item, quantity: Decimal) -> None:
    """An order whose recipe would take part of a piece is refused where it is made, naming
    the component, unless its recipe line rounds (a rounding multiple): the floor cannot
    consume 1.5 pcs, and rounding it silently would cost what the order did not say. Below
    a millionth nothing is stored, so such a figure is taken as stored."""
    for line in item.recipe_lines:
        need = yields.stored(yields.gross(line.quantity, quantity, yields.of(line)))
        comp, places = line.component, precision(line.component)
        if not units.fits(need, places):
            raise ValidationFailed(
                f"{fmt(quantity)} {item.sku} would take {fmt(need)} {comp.uom} of {comp.sku} "
                f"({fmt(line.quantity)} a unit), and {comp.sku} is counted in {comp.uom} to "
                f"{units.said_precision(places)}: make a quantity that takes whole "
                f"{comp.uom}, or give the recipe line a rounding multiple", field="quantity",
                details={"sku": comp.sku, "needs": fmt(need), "precision": places})


def _schedule(op: Op, mo: ManufacturingOrder, start: datetime | None
              ) -> list[OrderOperation]:
    """An item with a routing: its operations, dated through the calendars, and a warning
    on each day it puts a work centre past what it has."""
    ops = scheduling.route(op, mo, start)
    if ops:
        load.warn_overload(op, ops)
    return ops


def _planned_cost(op: Op, mo: ManufacturingOrder, ops: list[OrderOperation]) -> None:
    """What the product should cost where it differs from recipe x quantity at today's
    costs (a yield, by-products, operations): what a person confirming it sees, the
    figure the order shows later (`planned.cost_of`), read from this write's ledger."""
    own = planned.cost_of(mo, {c.item_id: stock.balance(op, c.item, mo.location).average_cost
                               for c in mo.components}, ops).total
    books_in = books.currency(op)
    op.change("manufacturing_order", mo.number, "planned cost", None,
              f"{money(own, books_in)} ({unit_cost(own / mo.quantity, books_in)} each)",
              currency=books_in)


def complete(op: Op, number: str, quantity: Decimal | None) -> ManufacturingOrder:
    """Completion as the recipe says; `completion.complete` takes what really happened."""
    return completion.complete(op, number, completion.Report(quantity))[0]


def cancel(op: Op, number: str) -> ManufacturingOrder:
    mo = lookup.manufacturing_order(op, number, lock=True)
    _open(mo)
    reserve(op, mo, -completion.outstanding(mo))
    op.change("manufacturing_order", number, "status", mo.status, MO.cancelled)
    mo.status = MO.cancelled
    return mo


def annotate(op: Op, number: str, *, notes: str | None,
             reference: str | None) -> ManufacturingOrder:
    """An open order's notes and reference: what the floor is told besides the recipe."""
    mo = lookup.manufacturing_order(op, number, lock=True)
    _open(mo)
    remark(op, "manufacturing_order", mo, notes=notes, reference=reference)
    return mo
