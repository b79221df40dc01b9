"""The lot and serial arguments a line of stock may carry, shared by every moving tool."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from shopfloor.domain.lots import LotIn
from shopfloor.registry.tool import Request
from shopfloor.tools.fields import Key, Quantity


class LotQtyIn(Request):
    lot: Key = Field(description="lot number")
    quantity: Quantity | None = Field(None, description="default: the whole line")
    expiry: date | None = Field(None, description="incoming: the lot's expiry")

    def spec(self) -> LotIn:
        return LotIn(self.lot, self.quantity, self.expiry)


class TrackedLine(Request):
    """Incoming stock of a tracked item names its lots (or gets one from the item's
    numbering rule); outgoing stock names them or is picked first-expiring-first-out."""

    lots: list[LotQtyIn] | None = Field(None, min_length=1, max_length=100,
                                        description="lot-tracked items")
    serials: list[Key] | None = Field(None, min_length=1, max_length=10000,
                                      description="serial-tracked items: one per unit")
    allow_expired: bool = Field(False, description="outgoing: a named expired lot may go")

    def lot_specs(self) -> tuple[LotIn, ...]:
        return tuple(lot.spec() for lot in self.lots or ())

    def serial_list(self) -> tuple[str, ...]:
        return tuple(self.serials or ())
