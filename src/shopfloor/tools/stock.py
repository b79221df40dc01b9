"""Stock: balances, the ledger, low stock, availability, adjustments and transfers."""

from __future__ import annotations

from decimal import Decimal
from typing import Self

from pydantic import Field, model_validator

from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections import kinds as revert_kinds
from shopfloor.domain.corrections import reverts
from shopfloor.domain.lots import reports as lot_reports
from shopfloor.domain.planning import projection, reports
from shopfloor.domain.stock import history, movements, usable
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import StockAdjustment
from shopfloor.tools.fields import (
    Amount,
    Cursor,
    Day,
    Key,
    Limit,
    Moment,
    Money,
    NonNegative,
    Out,
    Page,
    Quantity,
    ResultDay,
    RowCursor,
    SignedQuantity,
    Since,
    Text,
    after_pair,
    paged,
    pair_cursor,
)
from shopfloor.tools.lot_fields import IncomingLine, TrackedLine
from shopfloor.tools.refs import NumberOrId, SkuOrId, number_of, sku_of
from shopfloor.tools.views import (
    AdjustmentOut,
    MovementOut,
    StockOut,
    TransferOut,
    adjustment_out,
    movement_out,
    stock_out,
    stock_then_out,
    transfer_out,
)

tools = Toolset("stock")


class GetStock(Request):
    sku: Key | None = None
    location: Key | None = Field(None, description="location code")
    as_of: Moment | None = Field(None, description="the ledger as it stood then")
    compare_to: Moment | None = Field(None, description="adds on hand then as `was`")
    limit: Limit = 200
    cursor: Cursor | None = None


class StockList(Page):
    balances: list[StockOut]


def _after(cursor: str | None) -> tuple[str, str] | None:
    return after_pair(cursor, "get_stock")


@tools.read("get_stock", everyday=True, title="Get stock", response=StockList,
            description="Stock per item and location: on hand, in held or expired lots, "
                        "committed to open orders, available, average cost.")
def get_stock(op: Op, req: GetStock) -> StockList:
    if req.as_of is not None or req.compare_to is not None:
        return _stock_then(op, req)
    rows = reports.balances(op, req.sku, req.location, limit=req.limit + 1,
                            after=_after(req.cursor))
    rows, next_cursor = paged(rows, req.limit,
                              lambda b: pair_cursor(b.item.sku, b.location.code))
    lots = lot_reports.of_balances(op, [(b.item_id, b.location_id) for b in rows
                                        if b.item.batch_tracked or b.item.serial_tracked])
    today = op.now.date()
    out = []
    for b in rows:
        mine = lots.get((b.item_id, b.location_id), ())
        held_back = lot_reports.blocked_at(mine, today).get(b.location.code, usable.NONE)
        out.append(stock_out(b, mine, held_back))
    return StockList(balances=out, next_cursor=next_cursor)


def _stock_then(op: Op, req: GetStock) -> StockList:
    """Stock from the ledger's rows up to `as_of` (now if not given); with `compare_to`,
    each row also says what was on hand then. Commitments and holds are facts of now, not
    of the ledger: a row read as of a moment leaves them out."""
    moment = req.as_of or op.now
    after = _after(req.cursor)
    rows = history.balances(op, moment, req.sku, req.location, limit=req.limit + 1,
                            after=after)
    rows, next_cursor = paged(rows, req.limit, lambda b: pair_cursor(b.sku, b.location))
    was: dict[tuple[str, str], Decimal] = {}
    if req.compare_to is not None and rows:
        last = (rows[-1].sku, rows[-1].location) if next_cursor else None
        was = {(b.sku, b.location): b.on_hand for b in history.balances(
            op, req.compare_to, req.sku, req.location, after=after)
            if last is None or (b.sku, b.location) <= last}
    lots = history.lots(op, moment, [(b.item_id, b.location_id) for b in rows])
    day = moment.date()
    return StockList(next_cursor=next_cursor, balances=[
        stock_then_out(b, lots[(b.item_id, b.location_id)], day,
                       was.get((b.sku, b.location), Decimal(0))
                       if req.compare_to is not None else None)
        for b in rows])


class LowStockQuery(Request):
    location: Key | None = None
    limit: Limit = 200
    cursor: Cursor | None = Field(
        None, description="where the previous page ended (its next cursor)")


class LowStockOut(Out):
    sku: str
    name: str
    on_hand: Amount
    available: Amount
    reorder_point: Amount
    on_order: Amount
    suggested_quantity: Amount
    default_supplier: str | None
    to_order: bool = Field(description="available plus on order is at or below the reorder "
                                       "point: below it, as the overview and Home count")


class LowStockList(Page):
    items: list[LowStockOut]


@tools.read("list_low_stock", everyday=True, title="List low stock", response=LowStockList,
            description="Items at or below their reorder point, with on-order stock and a "
                        "suggested order quantity.")
def list_low_stock(op: Op, req: LowStockQuery) -> LowStockList:
    rows = reports.low_stock(op, req.location, limit=req.limit + 1, after=req.cursor)
    rows, next_cursor = paged(rows, req.limit, lambda r: r.item.sku)
    return LowStockList(next_cursor=next_cursor, items=[
        LowStockOut(sku=r.item.sku, name=r.item.name, on_hand=r.on_hand, available=r.available,
                    reorder_point=r.item.reorder_point, on_order=r.on_order,
                    suggested_quantity=r.suggested, to_order=r.to_order,
                    default_supplier=r.item.default_supplier.name
                    if r.item.default_supplier else None)
        for r in rows
    ])


class MovementQuery(Request):
    sku: Key | None = None
    location: Key | None = None
    document: Key | None = Field(None, description="e.g. SO-00007")
    since: Since | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


class MovementPage(Page):
    movements: list[MovementOut]


@tools.read("list_stock_movements", title="List stock movements", response=MovementPage,
            description="Ledger rows, newest first: every receipt, shipment, production, "
                        "adjustment and transfer.")
def list_stock_movements(op: Op, req: MovementQuery) -> MovementPage:
    before = int(req.cursor) if req.cursor else None
    rows = reports.movements(op, req.sku, req.location, req.since, req.limit + 1, before,
                             req.document)
    rows, next_cursor = paged(rows, req.limit, lambda m: str(m.id))
    return MovementPage(movements=[movement_out(m) for m in rows], next_cursor=next_cursor)


class AvailabilityQuery(SkuOrId, Request):
    quantity: Quantity
    location: Key | None = None
    date: Day | None = Field(None, description="by then, counting open orders")


class ShortageOut(Out):
    sku: str
    required: Amount
    available: Amount
    short: Amount
    date: ResultDay | None = None
    earliest: ResultDay | None = None


class AvailabilityOut(Out):
    sku: str
    quantity: Amount
    on_hand: Amount
    held: Amount = Field(description="in held lots, not available")
    expired: Amount = Field(description="in expired lots, not available")
    available: Amount
    can_ship: bool
    can_build: bool | None = Field(description="null when the item has no recipe")
    shortages: list[ShortageOut]
    earliest_date: ResultDay | None = None


@tools.read("check_availability", everyday=True,
            title="Check availability", response=AvailabilityOut,
            description="Can this quantity be shipped from stock, or built from components? "
                        "Lists component shortages.")
def check_availability(op: Op, req: AvailabilityQuery) -> AvailabilityOut:
    if req.date is not None:
        sku = sku_of(op, req)
        p = projection.promise(op, sku, req.quantity, req.date, today=op.now.date(),
                               location=req.location)
        return AvailabilityOut(sku=sku, quantity=req.quantity, on_hand=p.on_hand,
                               held=p.held, expired=p.expired, available=p.available,
                               can_ship=p.can_ship, can_build=p.can_build,
                               shortages=[ShortageOut(**s.__dict__) for s in p.shortages],
                               earliest_date=p.earliest)
    a = reports.availability(op, sku_of(op, req), req.quantity, req.location)
    return AvailabilityOut(sku=a.sku, quantity=a.quantity, on_hand=a.on_hand, held=a.held,
                           expired=a.expired, available=a.available,
                           can_ship=a.can_ship, can_build=a.can_build,
                           shortages=[ShortageOut(**s.__dict__) for s in a.shortages])


class AdjustLineIn(IncomingLine):
    sku: Key
    quantity_delta: SignedQuantity | None = Field(None, description="+ found, - lost")
    counted_quantity: NonNegative | None = Field(None, description="or: the counted total")
    unit_cost: Money | None = Field(None, description="cost of found stock")
    counted_at: Moment | None = None

    @model_validator(mode="after")
    def _one_quantity(self) -> Self:
        if (self.quantity_delta is None) == (self.counted_quantity is None):
            raise ValueError("give exactly one of quantity_delta or counted_quantity")
        if self.quantity_delta is not None and self.quantity_delta == 0:
            raise ValueError("quantity_delta must not be 0")
        if self.counted_at is not None and self.counted_quantity is None:
            raise ValueError("counted_at goes with counted_quantity")
        return self

    def spec(self) -> movements.AdjustLine:
        return movements.AdjustLine(self.sku, self.quantity_delta, self.counted_quantity,
                                    self.unit_cost, self.counted_at, self.lot_specs(),
                                    self.serial_list())


Reason = Field(min_length=1, max_length=500, pattern=r"^[^\x00]*$",
               description="why, for the audit trail")


class CreateAdjustment(WriteRequest):
    location: Key
    reason: str = Reason
    lines: list[AdjustLineIn] = Field(min_length=1, max_length=1000)


def _adjust_summary(verb: str, adj_number: str, location: str, n: int) -> str:
    return f"{verb} stock adjustment {adj_number} at {location}: {n} line{'s' * (n != 1)}"


@tools.write("create_stock_adjustment", everyday=True, title="Adjust stock", response=AdjustmentOut,
             description="Correct stock at a location by a delta or to a counted quantity "
                         "as of when it was counted.",
             destructive=True,  # a negative delta or a lower count writes stock off
             undo=Undo.using(reverts.moves))
def create_stock_adjustment(op: Op, req: CreateAdjustment) -> Done[AdjustmentOut]:
    adj = movements.create_adjustment(op, req.location, req.reason,
                                      [ln.spec() for ln in req.lines])
    return Done(_adjust_summary("Create", adj.number, req.location, len(req.lines)),
                adjustment_out(adj))


class UpdateAdjustment(NumberOrId, WriteRequest):
    reason: str | None = Field(None, min_length=1, max_length=500, pattern=r"^[^\x00]*$")
    lines: list[AdjustLineIn] | None = Field(None, min_length=1, max_length=1000,
                                             description="replace the lines")


@tools.write("update_stock_adjustment", title="Update stock adjustment",
             response=AdjustmentOut, role=Role.admin,
             description="Correct an earlier adjustment: its ledger rows are reversed and the "
                         "new lines posted; history is kept.",
             destructive=True,
             undo=Undo.using(revert_kinds.adjustment_update),
             subject="the stock adjustment changes")
def update_stock_adjustment(op: Op, req: UpdateAdjustment) -> Done[AdjustmentOut]:
    number = number_of(op, StockAdjustment, req, "stock adjustment")
    adj = movements.update_adjustment(op, number, req.reason,
                                      [ln.spec() for ln in req.lines] if req.lines else None)
    return Done(_adjust_summary("Update", adj.number, adj.location, len(adj.lines)),
                adjustment_out(adj))


class TransferLineIn(TrackedLine):
    sku: Key
    quantity: Quantity

    def spec(self) -> movements.MoveLine:
        return movements.MoveLine(self.sku, self.quantity, self.lot_specs(), self.serial_list(),
                                  self.allow_expired)


class CreateTransfer(WriteRequest):
    from_location: Key
    to_location: Key
    lines: list[TransferLineIn] = Field(min_length=1, max_length=1000)


@tools.write("create_stock_transfer", title="Transfer stock", response=TransferOut,
             description="Move stock between locations; it keeps its cost.",
             destructive=True,  # lowers stock on hand at the source
             undo=Undo.using(reverts.moves))
def create_stock_transfer(op: Op, req: CreateTransfer) -> Done[TransferOut]:
    tr = movements.create_transfer(op, req.from_location, req.to_location,
                                   [ln.spec() for ln in req.lines])
    total = sum((ln.quantity for ln in req.lines), Decimal(0))
    return Done(f"Transfer {len(req.lines)} item(s), {fmt(total)} units, "
                f"{req.from_location} -> {req.to_location} ({tr.number})", transfer_out(tr))


__all__ = ["Text", "tools"]
