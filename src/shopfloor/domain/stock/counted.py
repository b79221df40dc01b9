"""How finely an item is counted, and the one refusal of a quantity finer than that.

Every quantity a person or an agent gives in an item's own unit passes here where it is
given (an order line, a receipt, a completion, a count, a transfer, a lot's share of a
line), so that "2.5 pcs" is refused the same way, with the same code and the field named,
whichever document it was typed into. Figures the rules derive are held to it too: an
order whose recipe takes 1.5 pcs (3 products at 0.5 each) is refused where it is made
unless the recipe line rounds (production/manufacturing.py), the parts of an order
completed in parts are whole (stock/yields.py), and the ledger refuses to post what
slipped through.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from shopfloor.kernel import units
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import fmt


def precision(item: Any) -> int:
    """The decimal places the item's stock is counted to: its own, else its unit's."""
    return units.places(getattr(item, "precision", None), item.uom)


def exact(quantity: Decimal, item: Any, fld: str) -> Decimal:
    """A quantity given in the item's own unit, refused (naming `fld`) when finer than the
    unit is counted: 2.5 pcs is not a number of pieces. A whole number fits every unit (a
    precision is 0 to 6 places) and is let through before the item's precision is looked
    up: most quantities are whole, and this runs twice a document line."""
    if quantity.is_finite() and quantity == quantity.to_integral_value():
        return quantity
    places = precision(item)
    if not units.fits(quantity, places):
        raise ValidationFailed(
            f"{item.sku} is counted in {item.uom} to {units.said_precision(places)}: "
            f"{fmt(quantity)} {item.uom} is finer than that", field=fld,
            details={"precision": places})
    return quantity


def exact_or_none(quantity: Decimal | None, item: Any, fld: str) -> Decimal | None:
    return None if quantity is None else exact(quantity, item, fld)
