"""What a manufacturing order should cost, one rule for every place that shows it.

The person confirming an order and the person reading it later must see one figure, so
both ask here. Materials are what the order will really take (its components' yield:
attrition, set-up, rounding, as `stock.yields` says) at the average cost where it is
made, or the item's price while it has none; the operations are their planned minutes at
their work centres' hourly costs; the by-products carry their shares of the two, as a
completion books them, and the product carries the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import storable
from shopfloor.domain.floor import operations as floor_time
from shopfloor.domain.stock import yields
from shopfloor.kernel.numbers import HUNDRED, ZERO, cost
from shopfloor.store.tables import Balance, ManufacturingOrder, OrderOperation


@dataclass(frozen=True)
class Planned:
    materials: Decimal
    operations: Decimal
    by_products: Decimal

    @property
    def total(self) -> Decimal:
        """What the product itself carries."""
        return self.materials + self.operations - self.by_products


def average_costs(op: Op, mo: ManufacturingOrder) -> dict[int, Decimal]:
    """The components' average costs where the order is made, read as stored (a read has
    no ledger of its own to ask)."""
    rows = op.session.execute(select(Balance.item_id, Balance.average_cost).where(
        Balance.location_id == mo.location_id,
        Balance.item_id.in_([c.item_id for c in mo.components])))
    return {item_id: average for item_id, average in rows}


def cost_of(mo: ManufacturingOrder, averages: Mapping[int, Decimal],
            ops: Sequence[OrderOperation]) -> Planned:
    """The whole order's planned cost, given its components' average costs by item id."""
    materials = ZERO
    for c in mo.components:
        need = storable(yields.gross(c.quantity_per_unit, mo.quantity, yields.of(c)),
                        "quantity")
        materials += need * (averages.get(c.item_id) or c.item.purchase_price or ZERO)
    materials = cost(materials)
    operations = floor_time.planned_cost(ops)
    shares = sum((cost((materials + operations) * Decimal(share) / HUNDRED)
                  for _, _, share in mo.by_products or ()), ZERO)
    return Planned(materials, operations, shares)
