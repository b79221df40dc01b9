"""The lot and serial arguments a line of stock may carry, shared by every moving tool."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Annotated, Any, Self

from pydantic import Field, model_validator

from shopfloor.domain.stock.lots import LotIn
from shopfloor.registry.tool import Request
from shopfloor.tools.fields import Day, Key, Quantity


class LotQtyIn(Request):
    lot: Key
    quantity: Quantity | None = Field(None, description="default: all")
    expiry: Day | None = None

    def spec(self) -> LotIn:
        return LotIn(self.lot, self.quantity, self.expiry)


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


ChangeExpiry = Annotated[bool, Field(json_schema_extra=_no_default)]
"""Absent is false; its schema says no more (every incoming tool's schema carries it)."""


def _with_expiry(expiry: date | None, change: bool) -> None:
    if change and expiry is None:
        raise ValueError("change_expiry goes with expiry")


# A lot stock comes into: an existing lot keeps its expiry, another one named is refused
# unless `change_expiry` (then the lot takes it, shown in the preview). No docstrings on
# these models: a nested model's docstring would be its schema's description.
class NewLotIn(LotQtyIn):
    change_expiry: ChangeExpiry = False

    @model_validator(mode="after")
    def _changes_to(self) -> Self:
        _with_expiry(self.expiry, self.change_expiry)
        return self

    def spec(self) -> LotIn:
        return LotIn(self.lot, self.quantity, self.expiry, self.change_expiry)


class ExpiryChange(Request):
    """A document's one lot and its `expiry`, as `NewLotIn`."""

    change_expiry: ChangeExpiry = False

    @model_validator(mode="after")
    def _changes_to(self) -> Self:
        _with_expiry(getattr(self, "expiry", None), self.change_expiry)
        return self


class Lots(Request):
    """Incoming stock of a tracked item names its lots (or gets one from the item's
    numbering rule); outgoing stock names them or is picked first-expiring-first-out.
    Descriptions stay off: the names say it, and every moving tool's schema carries them."""

    lots: Sequence[LotQtyIn] | None = Field(None, max_length=100)
    serials: list[Key] | None = Field(None, max_length=10000)

    def lot_specs(self) -> tuple[LotIn, ...]:
        return tuple(lot.spec() for lot in self.lots or ())

    def serial_list(self) -> tuple[str, ...]:
        return tuple(self.serials or ())


class TrackedLine(Lots):
    allow_expired: bool = False


class IncomingLine(TrackedLine):
    # a line that may bring stock in: its lots may change an existing lot's expiry
    lots: Sequence[NewLotIn] | None = Field(None, max_length=100)
