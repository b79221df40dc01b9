"""Manufacturing orders."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.remarks import remark
from shopfloor.domain.corrections import reverts
from shopfloor.domain.production import completion
from shopfloor.domain.production import manufacturing as production
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import said
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import ManufacturingOrder
from shopfloor.tools.fields import (
    Day,
    Key,
    Limit,
    Moment,
    NonNegative,
    Page,
    Quantity,
    Reference,
    RowCursor,
    Text,
)
from shopfloor.tools.floor import order_floor
from shopfloor.tools.lot_fields import ExpiryChange, Lots
from shopfloor.tools.pages import newest_first
from shopfloor.tools.refs import NumberOrId, number_of
from shopfloor.tools.views import (
    ManufacturingOrderDetailOut,
    ManufacturingOrderOut,
    manufacturing_order_out,
    pegs_out,
)

tools = Toolset("production")


MoStatus = Literal["planned", "in_progress", "done", "closed", "cancelled"]
"""kernel/statuses.MO, spelled for the schema (a test holds them equal)."""

class ListManufacturingOrders(Request):
    status: MoStatus | None = None
    limit: Limit = 50
    cursor: RowCursor | None = None


class ManufacturingPage(Page):
    orders: list[ManufacturingOrderOut]


@tools.read("list_manufacturing_orders", everyday=True, title="List manufacturing orders",
            response=ManufacturingPage, description="Manufacturing orders, newest first.")
def list_manufacturing_orders(op: Op, req: ListManufacturingOrders) -> ManufacturingPage:
    rows, next_cursor = newest_first(
        op, ManufacturingOrder, req.limit, req.cursor,
        ManufacturingOrder.status == req.status if req.status else None)
    return ManufacturingPage(orders=[manufacturing_order_out(r) for r in rows],
                             next_cursor=next_cursor)


class ByNumber(NumberOrId, Request):
    pass


def _mo(op: Op, req: NumberOrId) -> str:
    return number_of(op, ManufacturingOrder, req, "manufacturing order")


@tools.read("get_manufacturing_order", everyday=True, title="Get manufacturing order",
            response=ManufacturingOrderDetailOut,
            description="One manufacturing order by number or id, with its components per unit.")
def get_manufacturing_order(op: Op, req: ByNumber) -> ManufacturingOrderDetailOut:
    mo = lookup.manufacturing_order(op, _mo(op, req))
    return ManufacturingOrderDetailOut(**dict(manufacturing_order_out(mo)),
                                       pegs=pegs_out(op, mo=mo.id), **order_floor(op, mo))


class CreateManufacturingOrder(WriteRequest):
    sku: Key = Field(description="the item to make; needs a recipe")
    quantity: Quantity
    location: Key
    number: Key | None = Field(None, description="default: next MO-number")
    due_date: Day | None = None
    start: Moment | None = Field(
        None, description="when work starts; empty: planned backward from the due date")
    notes: Text | None = None
    reference: Reference | None = None


@tools.write("create_manufacturing_order", everyday=True, title="Create manufacturing order",
             response=ManufacturingOrderOut,
             description="Plan production of an item from its recipe; commits components.",
             destructive=False,
             undo=Undo.using(reverts.created("manufacturing_order")))
def create_manufacturing_order(op: Op, req: CreateManufacturingOrder
                               ) -> Done[ManufacturingOrderOut]:
    mo = production.create(op, req.sku, req.quantity, req.location, number=req.number,
                           due_date=req.due_date, start=req.start)
    remark(op, "manufacturing_order", mo, notes=req.notes, reference=req.reference)
    return Done(f"Plan {mo.number}: make {fmt(req.quantity)} {req.sku} at {req.location}",
                manufacturing_order_out(mo))


class ConsumedIn(Lots):
    sku: Key
    quantity: NonNegative

    def spec(self) -> completion.Consumed:
        return completion.Consumed(self.sku, self.quantity, self.lot_specs(),
                                   self.serial_list())


class CompleteManufacturingOrder(NumberOrId, ExpiryChange, WriteRequest):
    quantity: Quantity | None = Field(None, description="good units; default: the rest")
    scrap: NonNegative | None = None
    consumed: list[ConsumedIn] | None = Field(None, max_length=1000,
                                              description="actual use; default: recipe")
    lot: Key | None = Field(None, description="output lot")
    expiry: Day | None = None
    serials: list[Key] | None = Field(None, max_length=10000)
    skipped: list[Annotated[int, Field(ge=0, le=100000)]] | None = Field(
        None, max_length=100, description="sequences of operations skipped")


@tools.write("complete_manufacturing_order", everyday=True, title="Complete manufacturing order",
             response=ManufacturingOrderOut,
             description="Report production (partial allowed): consumes components (recipe, "
                         "or what was actually used and its lots) and adds the good units "
                         "at the actual cost.",
             destructive=True,
             undo=Undo.using(reverts.mo_completion))
def complete_manufacturing_order(op: Op, req: CompleteManufacturingOrder
                                 ) -> Done[ManufacturingOrderOut]:
    mo, _ = completion.complete(op, _mo(op, req), completion.Report(
        req.quantity, req.scrap or Decimal(0), [c.spec() for c in req.consumed or ()],
        req.lot, req.expiry, tuple(req.serials or ()), req.change_expiry,
        tuple(dict.fromkeys(req.skipped or ()))))
    return Done(f"Complete {mo.number}: {fmt(mo.completed_quantity)} of {fmt(mo.quantity)} "
                f"{mo.item.sku} made ({said(mo.status)})", manufacturing_order_out(mo))


class DeleteManufacturingOrder(NumberOrId, WriteRequest):
    pass


@tools.write("delete_manufacturing_order", title="Cancel manufacturing order",
             response=ManufacturingOrderOut, role=Role.admin,
             description="Cancel a planned or running order and release its components.",
             destructive=True,
             undo=Undo.using(reverts.cancelled("manufacturing_order")))
def delete_manufacturing_order(op: Op, req: DeleteManufacturingOrder
                               ) -> Done[ManufacturingOrderOut]:
    mo = production.cancel(op, _mo(op, req))
    return Done(f"Cancel manufacturing order {mo.number}", manufacturing_order_out(mo))


class ModifyManufacturingOrder(NumberOrId, WriteRequest):
    notes: Text | None = None
    reference: Reference | None = None
    clear_notes: bool = False
    clear_reference: bool = False


@tools.write("modify_manufacturing_order", title="Modify manufacturing order",
             response=ManufacturingOrderOut,
             description="Change an open manufacturing order's notes or reference.",
             destructive=True)  # the notes it replaces are gone
def modify_manufacturing_order(op: Op, req: ModifyManufacturingOrder
                               ) -> Done[ManufacturingOrderOut]:
    mo = production.annotate(op, _mo(op, req), notes="" if req.clear_notes else req.notes,
                             reference="" if req.clear_reference else req.reference)
    return Done(f"Modify manufacturing order {mo.number}", manufacturing_order_out(mo))
