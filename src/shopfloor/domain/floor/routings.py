"""Routings: the operations an item goes through, each on a work centre, with a setup time
and a run time per unit.

A routing is replaced whole (like a recipe) and re-versions its item, so a preview that
read the old one goes stale. How long an operation takes for a quantity is one rule,
`planned_minutes`: setup, then run time per unit divided by the centre's efficiency
(a slower centre takes longer to run; setting up is not faster for it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import delete, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.floor import work_centres
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import HUNDRED, cost, fmt
from shopfloor.store.tables import Item, RoutingOperation, WorkCentre


@dataclass(frozen=True)
class Operation:
    sequence: int
    name: str
    work_centre: str
    setup_minutes: Decimal
    run_minutes: Decimal


def planned_minutes(setup: Decimal, run: Decimal, quantity: Decimal,
                    efficiency_percent: Decimal, fld: str = "quantity") -> Decimal:
    """Refused naming `fld` (what made it so long) past what an order's operation keeps."""
    return cost(storable(setup + run * quantity * HUNDRED / efficiency_percent, fld))


def minutes_cost(minutes: Decimal, hourly_cost: Decimal) -> Decimal:
    return cost(minutes * hourly_cost / 60)


def check(op: Op, specs: Sequence[Operation], prefix: str = "operations"
          ) -> dict[str, WorkCentre]:
    """Refuse a routing that cannot be followed, naming the operation's field; returns the
    centres it names (one read)."""
    seen: dict[int, int] = {}
    for i, s in enumerate(specs):
        if s.sequence in seen:
            raise ValidationFailed(f"sequence {s.sequence} is also operation {seen[s.sequence]}",
                                   field=f"{prefix}[{i}].sequence")
        seen[s.sequence] = i
        for fld in ("setup_minutes", "run_minutes"):
            value = getattr(s, fld)
            if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
                raise ValidationFailed(f"{value}: minutes must be zero or more",
                                       field=f"{prefix}[{i}].{fld}")
    return work_centres.by_codes(op, [(s.work_centre, f"{prefix}[{i}].work_centre")
                                      for i, s in enumerate(specs)])


def update(op: Op, sku: str, specs: Sequence[Operation]) -> Item:
    item = lookup.item(op, sku, lock=True)
    if item.kind == "material" and specs:
        raise ValidationFailed(f"{sku} is a material: materials are bought, not made",
                               field="sku")
    centres = check(op, specs)
    replace(op, {item.id: (item.sku, specs)}, centres, [item])
    return item


def replace(op: Op, routings: dict[int, tuple[str, Sequence[Operation]]],
            centres: dict[str, WorkCentre], touched: Sequence[Item]) -> None:
    """Replace the routings of several items (id -> sku and operations) at once: an
    update, or an import's rows. The `touched` items are re-versioned, so what read their
    old routing goes stale; an item this operation made is not among them (nothing read
    it, and a preview must not remember it as read)."""
    before = of_items(op, list(routings))
    op.session.execute(delete(RoutingOperation).where(
        RoutingOperation.item_id.in_(list(routings))))
    for item_id, (sku, specs) in routings.items():
        was = {r.sequence: _said(r.name, r.work_centre.code, r.setup_minutes, r.run_minutes)
               for r in before.get(item_id, [])}
        for s in sorted(specs, key=lambda s: s.sequence):
            centre = centres[s.work_centre]
            op.session.add(RoutingOperation(
                item_id=item_id, sequence=s.sequence, name=s.name, work_centre_id=centre.id,
                setup_minutes=s.setup_minutes, run_minutes=s.run_minutes))
            op.change("routing", sku, str(s.sequence), was.pop(s.sequence, None),
                      _said(s.name, centre.code, s.setup_minutes, s.run_minutes))
        for seq, text in was.items():
            op.change("routing", sku, str(seq), text, None)
    for item in touched:
        touch(item)
    op.session.flush()


def _said(name: str, centre: str, setup: Decimal, run: Decimal) -> str:
    return f"{name} on {centre}: setup {fmt(setup)} + {fmt(run)}/unit min"


def of_items(op: Op, item_ids: Sequence[int]) -> dict[int, list[RoutingOperation]]:
    """Routings of many items in one read, each in sequence order."""
    out: dict[int, list[RoutingOperation]] = defaultdict(list)
    if not item_ids:
        return out
    for chunk in range(0, len(item_ids), 1000):
        for r in op.session.scalars(
                select(RoutingOperation)
                .where(RoutingOperation.item_id.in_(item_ids[chunk:chunk + 1000]))
                .order_by(RoutingOperation.item_id, RoutingOperation.sequence)).unique():
            out[r.item_id].append(r)
    return out
