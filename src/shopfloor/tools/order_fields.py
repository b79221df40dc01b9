"""What a purchase order's and a sales order's tools share: a line's arguments, the head
of an order as it reads, and how a page, a total and an edit's remarks are said. Below
both kinds' modules, so neither imports the other."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Generic, Protocol, TypeVar

from pydantic import Field
from sqlalchemy import ColumnElement

from shopfloor.domain.base.context import Op
from shopfloor.domain.lines.rules import LineSpec
from shopfloor.kernel.text import money
from shopfloor.registry.tool import Request, WriteRequest
from shopfloor.store.tables import PurchaseOrder, SalesOrder
from shopfloor.tools.fields import Amount, Key, Money, Out, Quantity
from shopfloor.tools.lot_fields import TrackedLine
from shopfloor.tools.pages import newest_first
from shopfloor.tools.refs import NumberOrId, document, number_of

Row = TypeVar("Row", PurchaseOrder, SalesOrder)
Doc = TypeVar("Doc", bound=Out)


class OrderLineIn(Request):
    sku: Key
    quantity: Quantity
    unit_price: Money | None = None  # default: the item's (a purchase unit's: its break)

    def spec(self) -> LineSpec:
        return LineSpec(self.sku, self.quantity, self.unit_price)


class MoveLineIn(TrackedLine):
    sku: Key
    quantity: Quantity

    def spec(self) -> LineSpec:
        return LineSpec(self.sku, self.quantity, None, self.lot_specs(), self.serial_list(),
                        self.allow_expired)


Lines = Field(min_length=1, max_length=1000)


def some_lines(description: str) -> Any:
    """Lines a write may leave out (`description` says what it does without them)."""
    return Field(None, min_length=1, max_length=1000, description=description)


class ByNumber(NumberOrId, Request):
    pass


class ByNumberWrite(NumberOrId, WriteRequest):
    pass


@dataclass(frozen=True)
class OrderKind(Generic[Row]):
    """One kind of order as its tools find it: its table, what a message calls it, and the
    domain's look-up of one by number (which locks it, for a write)."""

    table: type[Row]
    called: str
    by_number: Callable[..., Row]

    def number(self, op: Op, req: NumberOrId) -> str:
        return number_of(op, self.table, req, self.called)

    def found(self, op: Op, req: NumberOrId) -> Row:
        return self.by_number(op, self.number(op, req))

    def locked(self, op: Op, req: NumberOrId) -> Row:
        """The order a write names, found and locked once for the domain."""
        return document(op, self.table, req, self.called, self.by_number)


class LineHead(Out):
    """What every order line reads as; each kind adds its own."""

    sku: str
    quantity: Amount
    unit_price: Amount
    done_quantity: Amount = Field(description="received or fulfilled so far")


class OrderHead(Out):
    """What every order reads as, but its lines (each kind's own shape)."""

    id: int
    number: str
    status: str
    partner: str
    location: str
    due_date: date | None = Field(description="expected (purchase) or due (sales) date")
    created_at: datetime
    total: Amount
    currency: str
    notes: str | None = None
    reference: str | None = Field(None, description="the partner's number for it")


class Read(Protocol):
    """An order as it reads, for a summary."""

    @property
    def lines(self) -> Sequence[Any]: ...

    @property
    def total(self) -> Decimal: ...

    @property
    def currency(self) -> str: ...


class Listing(Protocol):
    """What a list of orders is asked for (read-only: each kind's status is a Literal)."""

    @property
    def status(self) -> str | None: ...
    @property
    def limit(self) -> int: ...
    @property
    def cursor(self) -> str | None: ...


def listed(op: Op, table: type[Row], req: Listing, partner: ColumnElement[bool] | None,
           out: Callable[[Row], Doc]) -> tuple[list[Doc], str | None]:
    """Orders of one kind, newest first, in the status asked and of the partner asked
    (`partner`: the condition on its column), a page from the cursor on."""
    status = table.status == req.status if req.status else None
    rows, cursor = newest_first(op, table, req.limit, req.cursor, status, partner)
    return [out(r) for r in rows], cursor


def total_said(doc: Read) -> str:
    lines = f"{len(doc.lines)} line{'s' * (len(doc.lines) != 1)}"
    return f"{lines}, total {money(doc.total, doc.currency)}"


class Remarked(Protocol):
    notes: str | None
    reference: str | None
    clear_notes: bool
    clear_reference: bool


def remarks(req: Remarked) -> dict[str, str | None]:
    """Notes and reference as the edit gives them: a clear flag is an empty text."""
    return {"notes": "" if req.clear_notes else req.notes,
            "reference": "" if req.clear_reference else req.reference}
