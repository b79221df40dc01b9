"""Result models for the entities, built from rows, shared by reads and writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from pydantic import Field
from sqlalchemy import inspect
from sqlalchemy.orm import object_session

from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import reports
from shopfloor.domain.stock.usable import NONE, Blocked
from shopfloor.kernel import units
from shopfloor.kernel.numbers import cost
from shopfloor.store.tables import Balance, Item
from shopfloor.tools.fields import Amount, Out

if TYPE_CHECKING:  # (pegs and the past are imported where used: get_item needs neither)
    from shopfloor.domain.lots.reports import LotRow
    from shopfloor.domain.stock import history
    from shopfloor.domain.stock.movements import Document
    from shopfloor.store.tables import ManufacturingOrder, StockMovement


class LocationOut(Out):
    id: int
    code: str
    name: str
    allow_negative: bool


class PartnerOut(Out):
    id: int
    name: str
    email: str | None
    phone: str | None
    currency: str | None = None  # None: the company's


class PartnerDetailsOut(PartnerOut):
    """One partner as its page and paper show it (a list stays short)."""

    contact: str | None = None
    address: str | None = None  # one line per line
    tax_id: str | None = None
    payment_terms_days: int | None = None
    lead_time_days: int | None = None  # its items' default


class ComponentOut(Out):
    sku: str
    name: str
    quantity: Amount


class StockLotOut(Out):
    lot: str
    on_hand: Amount
    expiry: date | None
    held: bool | None = Field(description="null as_of: holds are not in the ledger")


class StockOut(Out):
    sku: str
    location: str
    on_hand: Amount
    held: Amount | None = Decimal(0)
    expired: Amount = Decimal(0)
    committed: Amount | None = Field(description="null as_of: not in the ledger")
    available: Amount | None
    average_cost: Amount
    was: Amount | None = None
    lots: list[StockLotOut] = Field(default_factory=list, description="tracked items")


class ItemOut(Out):
    id: int
    sku: str
    name: str
    kind: str
    uom: str
    purchase_price: Amount
    sales_price: Amount
    reorder_point: Amount
    reorder_quantity: Amount
    order_multiple: Amount | None = None
    supply_period_days: int = 0
    lead_time_days: int
    default_supplier: str | None
    batch_tracked: bool
    serial_tracked: bool = False
    lot_numbering: str | None = None
    shelf_life_days: int | None = None
    gtin: str | None = None
    weight: Amount | None = None
    precision: int = Field(6, description="decimal places its stock is counted to")
    on_hand: Amount | None = None
    available: Amount | None = None


class ItemDetailOut(ItemOut):
    recipe: list[ComponentOut] = Field(default_factory=list)
    stock: list[StockOut] = Field(default_factory=list)


class PegOut(Out):
    """A need an order covers: a sales order, a parent manufacturing order, or safety
    stock, with its date and the quantity of this order that goes to it."""

    sku: str
    need: str  # sales_order, manufacturing_order, planned_order (not created) or safety_stock
    document: str | None
    date: date
    quantity: Amount


def pegs_out(op: Op, *, po: int | None = None, mo: int | None = None) -> list[PegOut]:
    from shopfloor.domain.planning import pegging

    rows = pegging.of_order(op, purchase_order_id=po, manufacturing_order_id=mo)
    return [PegOut(sku=r.sku, need=r.kind, document=r.document, date=r.date,
                   quantity=r.quantity) for r in rows]


class ManufacturingOrderOut(Out):
    id: int
    number: str
    status: str
    sku: str
    location: str
    quantity: Amount
    completed_quantity: Amount
    scrapped_quantity: Amount
    due_date: date | None
    created_at: datetime
    notes: str | None = None
    reference: str | None = None  # e.g. the customer's job number
    components: list[ComponentOut]


class OperationOut(Out):
    sequence: int
    name: str
    work_centre: str
    planned_minutes: Amount
    planned_start: datetime | None
    planned_finish: datetime | None
    logged_minutes: Amount
    status: str


class PlannedCost(Out):
    materials: Amount
    operations: Amount
    by_products: Amount
    total: Amount


class ManufacturingOrderDetailOut(ManufacturingOrderOut):
    pegs: list[PegOut] = Field(description="the needs MRP made it for")
    planned_start: datetime | None = None
    planned_finish: datetime | None = None
    operations: list[OperationOut] = Field(default_factory=list)
    planned_cost: PlannedCost | None = None


class MovementOut(Out):
    id: int
    sku: str
    location: str
    quantity: Amount
    unit_cost: Amount
    value: Amount
    reason: str
    batch: str | None
    document_type: str | None
    document_number: str | None
    actor: str
    created_at: datetime


class AdjustmentLineOut(Out):
    sku: str
    quantity_delta: Amount
    counted_quantity: Amount | None
    counted_at: datetime | None = None


class AdjustmentOut(Out):
    id: int
    number: str
    location: str
    reason: str
    created_at: datetime
    lines: list[AdjustmentLineOut]


class TransferLineOut(Out):
    sku: str
    quantity: Amount
    unit_cost: Amount


class TransferOut(Out):
    id: int
    number: str
    from_location: str
    to_location: str
    created_at: datetime
    lines: list[TransferLineOut]


# -- rows -> results ------------------------------------------------------------------
def item_out(item: Item, totals: tuple[Decimal, Decimal] | None = None) -> ItemOut:
    return ItemOut(
        id=item.id, sku=item.sku, name=item.name, kind=item.kind, uom=item.uom,
        purchase_price=item.purchase_price, sales_price=item.sales_price,
        reorder_point=item.reorder_point, reorder_quantity=item.reorder_quantity,
        order_multiple=item.order_multiple, supply_period_days=item.supply_period_days or 0,
        lead_time_days=item.lead_time_days,
        default_supplier=item.default_supplier.name if item.default_supplier else None,
        batch_tracked=item.batch_tracked, serial_tracked=item.serial_tracked,
        lot_numbering=item.lot_numbering, shelf_life_days=item.shelf_life_days,
        gtin=item.gtin, weight=item.weight, precision=units.places(item.precision, item.uom),
        on_hand=totals[0] if totals else None,
        available=totals[1] if totals else None,
    )


def recipe_out(item: Item) -> list[ComponentOut]:
    """The lines at hand when they are loaded (a write that just set them); otherwise one
    plain query, unless the session holds unflushed changes (then the ORM's load, which
    flushes them first)."""
    session = object_session(item)
    if (session is None or "recipe_lines" not in inspect(item).unloaded
            or session.new or session.dirty or session.deleted):
        return [ComponentOut(sku=r.component.sku, name=r.component.name, quantity=r.quantity)
                for r in item.recipe_lines]
    return [ComponentOut(sku=r.sku, name=r.name, quantity=r.quantity)
            for r in reports.recipe_rows(session, item.id)]


def item_detail_out(d: reports.ItemDetail,
                    blocked: Mapping[str, Blocked] | None = None) -> ItemDetailOut:
    """`get_item`'s result from `reports.item_detail`: totals over the locations, the
    stock per location and the recipe. `blocked`: per location code, the stock in held or
    expired lots (lot_reports.blocked_at), which is not available. The item's fields are
    read through the row's mapping: a Row's attribute costs ~0.2 us, a third of a read's
    own time here."""
    i = d.item._mapping
    held_back = blocked or {}
    on_hand = sum((s.quantity for s in d.stock), Decimal(0))
    available = on_hand - sum((s.committed for s in d.stock), Decimal(0)) \
        - sum((b.total for b in held_back.values()), Decimal(0))
    return ItemDetailOut(
        id=i["id"], sku=i["sku"], name=i["name"], kind=i["kind"], uom=i["uom"],
        purchase_price=i["purchase_price"], sales_price=i["sales_price"],
        reorder_point=i["reorder_point"], reorder_quantity=i["reorder_quantity"],
        order_multiple=i["order_multiple"], supply_period_days=i["supply_period_days"] or 0,
        lead_time_days=i["lead_time_days"], default_supplier=i["supplier"],
        batch_tracked=i["batch_tracked"], serial_tracked=i["serial_tracked"],
        lot_numbering=i["lot_numbering"], shelf_life_days=i["shelf_life_days"],
        gtin=i["gtin"], weight=i["weight"], precision=units.places(i["precision"], i["uom"]),
        on_hand=on_hand, available=available,
        recipe=[ComponentOut(sku=r.key, name=r.name, quantity=r.quantity) for r in d.recipe],
        stock=[_stock_row(i["sku"], s.key, s.quantity, s.committed, s.average_cost,
                          held_back.get(s.key, NONE)) for s in d.stock],
    )


def _stock_row(sku: str, location: str, on_hand: Decimal, committed: Decimal,
               average_cost: Decimal, blocked: Blocked, lots: Sequence[LotRow] = ()
               ) -> StockOut:
    """Available leaves out what is committed and what sits in held or expired lots."""
    return StockOut(sku=sku, location=location, on_hand=on_hand, held=blocked.held,
                    expired=blocked.expired, committed=committed,
                    available=on_hand - committed - blocked.total, average_cost=average_cost,
                    lots=[lot_row_out(r) for r in lots])


def stock_out(b: Balance, lots: Sequence[LotRow] = (), blocked: Blocked = NONE) -> StockOut:
    return _stock_row(b.item.sku, b.location.code, b.on_hand, b.committed, b.average_cost,
                      blocked, lots)


def stock_then_out(b: history.StockThen, lots: Sequence[history.LotThen], day: date,
                   was: Decimal | None) -> StockOut:
    """A row of the ledger as it stood: on hand, value and the lots in it; what sits in
    lots expired by then is `expired`. Holds are not in the ledger, so not in the row."""
    from shopfloor.domain.stock import history

    return StockOut(sku=b.sku, location=b.location, on_hand=b.on_hand,
                    expired=history.expired(lots, day), held=None, committed=None,
                    available=None,
                    average_cost=cost(b.average_cost), was=was,
                    lots=[StockLotOut(lot=r.lot, on_hand=r.on_hand, expiry=r.expiry, held=None)
                          for r in lots])


def lot_row_out(r: LotRow) -> StockLotOut:
    return StockLotOut(lot=r.lot, on_hand=r.on_hand, expiry=r.expiry, held=r.held)


def manufacturing_order_out(mo: ManufacturingOrder) -> ManufacturingOrderOut:
    return ManufacturingOrderOut(
        id=mo.id, number=mo.number, status=mo.status, sku=mo.item.sku,
        location=mo.location.code, quantity=mo.quantity,
        completed_quantity=mo.completed_quantity, scrapped_quantity=mo.scrapped_quantity,
        due_date=mo.due_date,
        created_at=mo.created_at, notes=mo.notes, reference=mo.reference,
        components=[ComponentOut(sku=c.item.sku, name=c.item.name, quantity=c.quantity_per_unit)
                    for c in mo.components],
    )


def movement_out(m: StockMovement) -> MovementOut:
    return MovementOut(id=m.id, sku=m.item.sku, location=m.location.code, quantity=m.quantity,
                       unit_cost=m.unit_cost, value=m.value, reason=m.reason,
                       batch=m.batch.lot_number if m.batch else None,
                       document_type=m.document_type, document_number=m.document_number,
                       actor=m.actor, created_at=m.created_at)


def adjustment_out(a: Document) -> AdjustmentOut:
    """Validated as one tree (one call into pydantic's core, not one per line)."""
    return AdjustmentOut.model_validate({
        "id": a.id, "number": a.number, "location": a.location, "reason": a.reason,
        "created_at": a.created_at,
        "lines": [{"sku": ln.sku, "quantity_delta": ln.quantity,
                   "counted_quantity": ln.counted_quantity, "counted_at": ln.counted_at}
                  for ln in a.lines]})


def transfer_out(t: Document) -> TransferOut:
    return TransferOut(id=t.id, number=t.number, from_location=t.location,
                       to_location=t.to_location, created_at=t.created_at,
                       lines=[TransferLineOut(sku=ln.sku, quantity=ln.quantity,
                                              unit_cost=ln.unit_cost) for ln in t.lines])
