"""Lots and serial numbers: list, expiring, trace, hold and release (a recall)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import kinds as revert_kinds
from shopfloor.domain.lots import holds, trace
from shopfloor.domain.lots import reports as lot_reports
from shopfloor.domain.stock import history
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.tools.fields import Amount, Key, Moment, Out, Text

tools = Toolset("lots")


class LotOut(Out):
    sku: str
    lot: str
    location: str
    on_hand: Amount
    expiry: date | None
    held: bool | None = Field(description="null as_of: holds are not in the ledger")
    hold_reason: str | None = None


class LotList(Out):
    lots: list[LotOut]


def lot_out(r: lot_reports.LotRow) -> LotOut:
    return LotOut(sku=r.sku, lot=r.lot, location=r.location, on_hand=r.on_hand,
                  expiry=r.expiry, held=r.held, hold_reason=r.hold_reason)


class ListLots(Request):
    sku: Key
    location: Key | None = None
    as_of: Moment | None = Field(None, description="the ledger as it stood then")


@tools.read("list_lots", title="List lots", response=LotList,
            description="An item's lots (or serial numbers) with stock, per location, "
                        "first to expire first.")
def list_lots(op: Op, req: ListLots) -> LotList:
    if req.as_of is not None:
        return LotList(lots=[
            LotOut(sku=r.sku, lot=r.lot, location=r.location, on_hand=r.on_hand,
                   expiry=r.expiry, held=None)
            for r in history.item_lots(op, req.as_of, req.sku, req.location)])
    return LotList(lots=[lot_out(r) for r in lot_reports.item_lots(op, req.sku, req.location)])


class ListExpiring(Request):
    days: int = Field(30, ge=0, le=3650, description="window from today")
    location: Key | None = None


@tools.read("list_expiring", title="List expiring lots", response=LotList,
            description="Lots with stock expiring within `days` (expired ones too).")
def list_expiring(op: Op, req: ListExpiring) -> LotList:
    return LotList(lots=[lot_out(r) for r in lot_reports.expiring(op, req.days, req.location)])


class TracedLotOut(Out):
    sku: str
    lot: str
    expiry: date | None
    held: bool
    level: int
    via: str | None = Field(description="manufacturing order linking it")


class TracedMoveOut(Out):
    at: datetime
    sku: str
    lot: str | None
    location: str
    quantity: Amount
    reason: str
    document: str | None


class PartyOut(Out):
    kind: str
    name: str
    document: str
    sku: str
    lot: str | None
    quantity: Amount


class RemainingOut(Out):
    sku: str
    lot: str
    location: str
    on_hand: Amount


class TraceOut(Out):
    sku: str
    lot: str
    direction: str
    lots: list[TracedLotOut]
    movements: list[TracedMoveOut]
    parties: list[PartyOut] = Field(description="customers reached / suppliers behind")
    remaining: list[RemainingOut]
    untracked: list[TracedMoveOut] = Field(description="consumed without a lot")


def _lot(t: trace.TracedLot) -> TracedLotOut:
    return TracedLotOut(sku=t.sku, lot=t.lot, expiry=t.expiry, held=t.held, level=t.level,
                        via=t.via)


def _move(m: trace.TracedMove) -> TracedMoveOut:
    return TracedMoveOut(at=m.at, sku=m.sku, lot=m.lot, location=m.location,
                         quantity=m.quantity, reason=m.reason, document=m.document_number)


def _party(p: trace.Party) -> PartyOut:
    return PartyOut(kind=p.kind, name=p.name, document=p.document, sku=p.sku, lot=p.lot,
                    quantity=p.quantity)


def _remaining(r: trace.Remaining) -> RemainingOut:
    return RemainingOut(sku=r.sku, lot=r.lot, location=r.location, on_hand=r.on_hand)


class TraceLot(Request):
    sku: Key
    lot: Key = Field(description="lot or serial number")
    direction: Literal["forward", "backward"] = "forward"


@tools.read("trace_lot", title="Trace lot", response=TraceOut,
            description="Forward: every movement, product lot and customer a lot reached, "
                        "and where the rest is. Backward: the component lots and supplier "
                        "receipts behind it. All levels.")
def trace_lot(op: Op, req: TraceLot) -> TraceOut:
    t = trace.trace(op, req.sku, req.lot, req.direction)
    return TraceOut(sku=t.sku, lot=t.lot, direction=t.direction, lots=[_lot(x) for x in t.lots],
                    movements=[_move(m) for m in t.movements],
                    parties=[_party(p) for p in t.parties],
                    remaining=[_remaining(r) for r in t.remaining],
                    untracked=[_move(m) for m in t.untracked])


class OpenOrderOut(Out):
    document_type: str
    number: str
    sku: str
    quantity: Amount


class HoldOut(Out):
    lots: list[TracedLotOut]
    stock: list[RemainingOut]
    open_orders: list[OpenOrderOut]
    shipped: list[PartyOut] = Field(description="customers who already received them")


def _hold_out(h: holds.Hold) -> HoldOut:
    return HoldOut(lots=[_lot(t) for t in h.lots], stock=[_remaining(r) for r in h.stock],
                   open_orders=[OpenOrderOut(document_type=o.document_type, number=o.number,
                                             sku=o.sku, quantity=o.quantity)
                                for o in h.open_orders],
                   shipped=[_party(p) for p in h.shipped])


class HoldLot(WriteRequest):
    sku: Key
    lot: Key
    reason: Text = Field(min_length=1)
    downstream: bool = Field(False, description="recall: also every lot made from it")


@tools.write("hold_lot", title="Hold lot", response=HoldOut,
             description="Put a lot on hold (quarantine): it is never picked, shipped or "
                         "consumed. With downstream, a recall.",
             destructive=True,
             undo=Undo.using(revert_kinds.lot_hold))
def hold_lot(op: Op, req: HoldLot) -> Done[HoldOut]:
    h = holds.set_hold(op, req.sku, req.lot, True, req.reason, req.downstream)
    return Done(f"Hold {len(h.lots)} lot(s) from {req.sku} {req.lot}: {req.reason}",
                _hold_out(h))


class ReleaseLot(WriteRequest):
    sku: Key
    lot: Key
    downstream: bool = False


@tools.write("release_lot", title="Release lot", response=HoldOut,
             description="Release a held lot (and with downstream, the lots made from it).",
             destructive=True,
             undo=Undo.using(revert_kinds.lot_hold))
def release_lot(op: Op, req: ReleaseLot) -> Done[HoldOut]:
    h = holds.set_hold(op, req.sku, req.lot, False, None, req.downstream)
    return Done(f"Release {len(h.lots)} lot(s) from {req.sku} {req.lot}", _hold_out(h))
