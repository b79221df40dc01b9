"""Buying in the supplier's terms: supplier items, exchange rates and landed costs."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies, partners
from shopfloor.domain.buying import supplier_items as offers
from shopfloor.domain.corrections import landed_costs
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import LandedCost, PurchaseOrder, SupplierItem
from shopfloor.tools.fields import (
    Amount,
    Day,
    Key,
    Money,
    Name,
    NonNegative,
    Out,
    PartnerName,
    Quantity,
    Uom,
)
from shopfloor.tools.refs import NumberOrId, number_of

tools = Toolset("purchasing")
Currency = Field(description="ISO 4217")


class PriceBreak(Request):
    min_quantity: NonNegative
    unit_price: Money


class PriceBreakOut(Out):
    min_quantity: Amount
    unit_price: Amount


class SupplierItemOut(Out):
    sku: str
    supplier: str
    supplier_sku: str | None
    purchase_unit: str
    units_per_purchase_unit: Amount
    minimum_order: Amount
    order_multiple: Amount | None
    lead_time_days: int
    price_breaks: list[PriceBreakOut]  # ascending
    preferred: bool
    currency: str  # the supplier's: its price breaks are in it


def supplier_item_out(op: Op, row: SupplierItem) -> SupplierItemOut:
    t = offers.terms_of(row)
    return SupplierItemOut(
        sku=row.item.sku, supplier=row.supplier.name, supplier_sku=t.supplier_sku,
        purchase_unit=t.purchase_unit, units_per_purchase_unit=t.units_per_purchase_unit,
        minimum_order=t.minimum_order, order_multiple=t.order_multiple,
        lead_time_days=t.lead_time_days, preferred=t.preferred,
        price_breaks=[PriceBreakOut(min_quantity=q, unit_price=p) for q, p in t.price_breaks],
        currency=currencies.of(op, row.supplier.currency))


class SupplierItemRef(WriteRequest):
    sku: Key
    supplier: PartnerName


class SetSupplierItem(SupplierItemRef):
    supplier_sku: Key | None = None
    purchase_unit: Uom
    units_per_purchase_unit: Quantity
    minimum_order: NonNegative | None = None
    order_multiple: NonNegative | None = None
    lead_time_days: Annotated[int, Field(ge=0)] | None = Field(
        None, description="default: the supplier's lead time")
    price_breaks: list[PriceBreak] = Field(min_length=1)
    preferred: bool | None = None


@tools.write("set_supplier_item", title="Set supplier item", response=SupplierItemOut,
             role=Role.admin, description="Set a supplier's terms for an item.",
             destructive=True, undo=Undo.refused("set it again as it was, or remove it"))
def set_supplier_item(op: Op, req: SetSupplierItem) -> Done[SupplierItemOut]:
    row = offers.put(op, req.sku, req.supplier, offers.Terms(
        req.supplier_sku, req.purchase_unit, req.units_per_purchase_unit,
        req.minimum_order or Decimal(0), req.order_multiple,
        partners.default_lead_time(op, req.supplier) if req.lead_time_days is None
        else req.lead_time_days,
        [(b.min_quantity, b.unit_price) for b in req.price_breaks], bool(req.preferred)))
    return Done(f"Set {req.supplier}'s terms for {req.sku}: {req.purchase_unit} of "
                f"{fmt(req.units_per_purchase_unit)}", supplier_item_out(op, row))


@tools.write("remove_supplier_item", title="Remove supplier item", response=SupplierItemOut,
             role=Role.admin, description="Drop a supplier item.",
             destructive=True, undo=Undo.refused("set it again"))
def remove_supplier_item(op: Op, req: SupplierItemRef) -> Done[SupplierItemOut]:
    row = offers.remove(op, req.sku, req.supplier)
    out = supplier_item_out(op, row)
    return Done(f"Remove {req.supplier}'s entry for {req.sku}", out)


class ListSupplierItems(Request):
    sku: Key | None = None
    supplier: PartnerName | None = None


class SupplierItems(Out):
    supplier_items: list[SupplierItemOut]


@tools.read("list_supplier_items", title="List supplier items", response=SupplierItems,
            description="Suppliers' terms by item.")
def list_supplier_items(op: Op, req: ListSupplierItems) -> SupplierItems:
    return SupplierItems(supplier_items=[supplier_item_out(op, r) for r in
                                         offers.listed(op, req.sku, req.supplier)])


class SetExchangeRate(WriteRequest):
    currency: str = Currency
    rate: Quantity = Field(description="in company currency")
    valid_from: Day | None = None


class RateOut(Out):
    currency: str
    rate: Amount
    valid_from: date
    company_currency: str
    created_at: datetime


@tools.write("set_exchange_rate", title="Set exchange rate", response=RateOut,
             role=Role.admin, description="A currency's rate from a date on.",
             destructive=False, undo=Undo.refused("set the rate again"))
def set_exchange_rate(op: Op, req: SetExchangeRate) -> Done[RateOut]:
    row = currencies.set_rate(op, req.currency, req.rate, req.valid_from or op.now.date())
    home = currencies.company(op)
    return Done(f"{row.currency} = {fmt(row.rate)} {home} from {row.valid_from.isoformat()}",
                RateOut(currency=row.currency, rate=row.rate, valid_from=row.valid_from,
                        company_currency=home, created_at=row.created_at))


class LandedLineOut(Out):
    sku: str
    quantity: Amount
    base: Amount
    share: Amount
    capitalised: Amount
    expensed: Amount


class LandedCostOut(Out):
    number: str
    purchase_order: str
    receipt: str | None = Field(description="operation_id, if one receipt")
    amount: Amount
    currency: str
    rate: Amount
    company_amount: Amount
    allocate_by: str
    description: str
    capitalised: Amount
    expensed: Amount
    reverted: bool = False
    created_at: datetime
    lines: list[LandedLineOut]


def _landed(doc: LandedCost, reverted: bool = False) -> LandedCostOut:
    return LandedCostOut(
        number=doc.number, purchase_order=doc.order.number,
        receipt=doc.receipt_operation_id, amount=doc.amount, currency=doc.currency,
        rate=doc.rate, company_amount=doc.company_amount, allocate_by=doc.allocate_by,
        description=doc.description, created_at=doc.created_at, reverted=reverted,
        capitalised=sum((ln.capitalised for ln in doc.lines), Decimal(0)),
        expensed=sum((ln.expensed for ln in doc.lines), Decimal(0)),
        lines=[LandedLineOut(sku=ln.item.sku, quantity=ln.quantity, base=ln.base,
                             share=ln.share, capitalised=ln.capitalised,
                             expensed=ln.expensed) for ln in doc.lines])


class AddLandedCost(WriteRequest):
    number: Key | None = Field(None, description="PO")
    operation_id: Key | None = Field(None, description="one receipt")
    amount: Quantity
    currency: str | None = Field(None, description="default: the PO's")
    allocate_by: Literal["value", "quantity", "weight"] = "value"
    description: Name


@tools.write("add_landed_cost", title="Add landed cost", response=LandedCostOut,
             description="Freight or duty onto received goods: on hand capitalised, "
                         "gone expensed.",
             destructive=False, undo=Undo.using(landed_costs.revert))
def add_landed_cost(op: Op, req: AddLandedCost) -> Done[LandedCostOut]:
    doc = landed_costs.add(op, landed_costs.Spec(
        req.number, req.operation_id, req.amount, req.currency, req.allocate_by,
        req.description))
    out = _landed(doc)
    return Done(f"Add {req.description} {fmt(out.company_amount)} to {out.purchase_order} by "
                f"{req.allocate_by}: {fmt(out.capitalised)} capitalised, "
                f"{fmt(out.expensed)} expensed", out)


class ListLandedCosts(NumberOrId, Request):
    pass


class LandedCosts(Out):
    landed_costs: list[LandedCostOut]


@tools.read("list_landed_costs", title="List landed costs", response=LandedCosts,
            description="A purchase order's landed costs.")
def list_landed_costs(op: Op, req: ListLandedCosts) -> LandedCosts:
    number = number_of(op, PurchaseOrder, req, "purchase order")
    return LandedCosts(landed_costs=[_landed(d, r) for d, r in landed_costs.listed(op, number)])
