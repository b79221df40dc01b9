"""The rules every order's lines follow, whichever kind: one line per item, lines that
name their lots, a document that changes only while open and closes short only from an
open or partly done status; and what a write on lines did, as data (`Moved`), so that a
tool renders its summary from figures, never from the text logged for people. Purchasing
and sales both read them; neither reads the other.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Generic, NamedTuple, Protocol, TypeVar

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Caution, Op
from shopfloor.domain.stock import lots
from shopfloor.domain.stock.items import touch
from shopfloor.kernel.errors import Conflict, ValidationFailed
from shopfloor.kernel.statuses import said
from shopfloor.store.tables import (
    Item,
    PurchaseOrder,
    PurchaseOrderLine,
    SalesOrder,
    SalesOrderLine,
)


class LineSpec(NamedTuple):
    sku: str
    quantity: Decimal
    unit_price: Decimal | None = None
    lots: tuple[lots.LotIn, ...] = ()
    serials: tuple[str, ...] = ()
    allow_expired: bool = False
    expected_date: date | None = None  # a purchase line's own date (None: the order's)
    unit: str | None = None  # a purchase line's supplier unit (None: the stock unit)


def items(op: Op, lines: Sequence[LineSpec]) -> list[Item]:
    """Each line's item, refusing an item named on two lines."""
    seen: set[str] = set()
    found = []
    for i, ln in enumerate(lines):
        if ln.sku in seen:
            raise ValidationFailed(f"{ln.sku} appears twice; use one line per item",
                                   field=f"lines[{i}].sku")
        seen.add(ln.sku)
        found.append(lookup.item(op, ln.sku, fld=f"lines[{i}].sku"))
    return found


def move_status(op: Op, kind: str, doc: PurchaseOrder | SalesOrder, status: str) -> None:
    op.change(kind, doc.number, "status", doc.status, status)
    doc.status = status


def edited(op: Op, kind: str, doc: PurchaseOrder | SalesOrder, fld: str,
           value: object) -> None:
    """A head field an edit gives (None: left as it is), set and logged if it differs."""
    before = getattr(doc, fld)
    if value is not None and value != before:
        op.change(kind, doc.number, fld, before, value)
        setattr(doc, fld, value)


def relocated(op: Op, kind: str, doc: PurchaseOrder | SalesOrder, location: str | None,
              refused: str | None) -> None:
    """The location an edit gives (None: left as it is), set and logged if it differs;
    `refused`, when stock already moved at the old one, says why it may not."""
    if location is None or location == doc.location.code:
        return
    if refused:
        raise Conflict(refused, field="location")
    loc = lookup.location(op, location)
    op.change(kind, doc.number, "location", doc.location.code, loc.code)
    doc.location, doc.location_id = loc, loc.id


def closed_short(op: Op, kind: str, doc: Order, status: str, reason: str | None,
                 dropped: Sequence[LineMoved], start: int) -> Moved[Order]:
    """The end of a close short, either kind: its closed `status`, the reason kept in its
    notes, and what it no longer moves with the warnings the close raised since `start`."""
    move_status(op, kind, doc, status)
    if reason:
        doc.notes = f"{doc.notes}\n{reason}" if doc.notes else reason
    touch(doc)
    return Moved(doc, tuple(dropped), raised_since(op, start))


def reopened(op: Op, kind: str, doc: PurchaseOrder | SalesOrder, status: str) -> None:
    """A close undone: back to the status it had."""
    move_status(op, kind, doc, status)
    touch(doc)


def still_open(doc: PurchaseOrder | SalesOrder, kind: str, open_states: tuple[str, ...]
               ) -> None:
    if doc.status not in open_states:
        raise Conflict(f"{kind} {doc.number} is {said(doc.status)} and can no longer change",
                       field="number")


def closable(number: str, kind: str, status: str, allowed: tuple[str, ...],
             instead: str) -> None:
    if status == "closed":  # every kind that closes short calls it that
        raise Conflict(f"{kind} {number} is already closed", field="number")
    if status not in allowed:
        raise Conflict(f"{kind} {number} is {status}; only an open or partly done order "
                       f"closes short{instead}", field="number")


def describe_close(kind: str, number: str, lines: int) -> str:
    return f"Close {kind} {number} short: {lines} line{'s' * (lines != 1)} outstanding dropped"


def by_sku(lines: Sequence[LineSpec] | None) -> dict[str, LineSpec]:
    """The lines a caller named, by SKU (the first, where one is named twice): looked up
    once per order line, not searched (a 200-line receipt searched 40,000 times)."""
    found: dict[str, LineSpec] = {}
    for spec in lines or ():
        found.setdefault(spec.sku, spec)
    return found


class Named(Protocol):
    @property
    def sku(self) -> str: ...


Line = TypeVar("Line", PurchaseOrderLine, SalesOrderLine)
Spec = TypeVar("Spec", bound=Named)


def named_lines(lines: Sequence[Line], specs: Sequence[Spec], number: str
                ) -> Iterator[tuple[int, Spec, Line]]:
    """Each line a receipt or a shipment names, with the order's line of its item: an item
    not on order `number`, or named twice, is refused by its place in `specs`."""
    on_order = {ln.item.sku: ln for ln in lines}
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        line = on_order.get(spec.sku)
        if line is None:
            raise ValidationFailed(f"{spec.sku} is not on {number}", field=f"lines[{i}].sku")
        if spec.sku in seen:
            raise ValidationFailed(f"{spec.sku} appears twice", field=f"lines[{i}].sku")
        seen.add(spec.sku)
        yield i, spec, line


def lot_line(item: Item, qty: Decimal, fld: str, spec: LineSpec | None,
             lot: str | None = None, expiry: date | None = None,
             change_expiry: bool = False) -> lots.Line:
    """A moved line's lots: its own, else the document's one lot (a tracked item only)."""
    named = spec.lots if spec else ()
    if not named and lot is not None and lots.tracked(item) and not item.serial_tracked:
        named = (lots.LotIn(lot, None, expiry, change_expiry, "expiry"),)
    return lots.Line(item, qty, fld.removesuffix(".quantity"), named,
                     spec.serials if spec else (), expiry)


D = TypeVar("D")
Order = TypeVar("Order", PurchaseOrder, SalesOrder)


@dataclass(frozen=True)
class LineMoved:
    sku: str
    quantity: Decimal  # stock units


@dataclass(frozen=True)
class Moved(Generic[D]):
    """A write's document, the lines it moved (or dropped) and the warnings it raised."""

    document: D
    lines: tuple[LineMoved, ...]
    warnings: tuple[Caution, ...] = ()

    def warned(self, code: str) -> int:
        """How many of its warnings carry `code`."""
        return sum(1 for w in self.warnings if w.code == code)


def raised_since(op: Op, start: int) -> tuple[Caution, ...]:
    """The warnings an operation raised after it held `start` of them: one write's own."""
    return tuple(op.warnings[start:])
