"""The lot and serial arguments a line of stock may carry, shared by every moving tool."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from shopfloor.domain.stock.lots import LotIn
from shopfloor.registry.tool import Request
from shopfloor.tools.fields import Key, Quantity


class LotQtyIn(Request):
    lot: Key
    quantity: Quantity | None = Field(None, description="default: all")
    expiry: date | None = None

    def spec(self) -> LotIn:
        return LotIn(self.lot, self.quantity, self.expiry)


class Lots(Request):
    """Incoming stock of a tracked item names its lots (or gets one from the item's
    numbering rule); outgoing stock names them or is picked first-expiring-first-out.
    Descriptions stay off: the names say it, and every moving tool's schema carries them."""

    lots: list[LotQtyIn] | None = Field(None, max_length=100)
    serials: list[Key] | None = Field(None, max_length=10000)

    def lot_specs(self) -> tuple[LotIn, ...]:
        return tuple(lot.spec() for lot in self.lots or ())

    def serial_list(self) -> tuple[str, ...]:
        return tuple(self.serials or ())


class TrackedLine(Lots):
    allow_expired: bool = False
