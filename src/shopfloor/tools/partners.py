"""Locations, suppliers and customers: a partner's details, open orders and terms."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, Field, StringConstraints
from sqlalchemy import func, or_, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.domain.buying import partners as details
from shopfloor.domain.stock import items as catalog
from shopfloor.kernel.roles import Role
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import Customer, Location, PurchaseOrder, SalesOrder, Supplier
from shopfloor.tools.fields import (
    Amount,
    Id,
    Key,
    LeadDays,
    Name,
    NonNegative,
    Out,
    PartnerName,
    SearchText,
)
from shopfloor.tools.purchasing.orders import purchase_order_out
from shopfloor.tools.sales import sales_order_out
from shopfloor.tools.views import LocationOut, PartnerDetailsOut, PartnerOut

tools = Toolset("partners")
M = TypeVar("M")


class Query(Request):
    query: SearchText | None = Field(None, description="part of the name")


class LocationQuery(Request):
    query: SearchText | None = Field(None, description="part of the code or name")


class LocationList(Out):
    locations: list[LocationOut]


class SupplierList(Out):
    suppliers: list[PartnerOut]


class CustomerList(Out):
    customers: list[PartnerOut]


def _listed(op: Op, model: type[M], query: str | None, *columns: Any) -> Sequence[M]:
    """The rows with the query in any of the columns (any case), by the first of them."""
    stmt = select(model)
    if query:
        like = f"%{query.lower()}%"
        stmt = stmt.where(or_(*(func.lower(c).like(like) for c in columns)))
    return op.session.scalars(stmt.order_by(columns[0])).all()


@tools.read("list_locations", title="List locations", response=LocationList,
            description="Stock locations (warehouses, shop floor), by code.")
def list_locations(op: Op, req: LocationQuery) -> LocationList:
    rows = _listed(op, Location, req.query, Location.code, Location.name)
    return LocationList(locations=[LocationOut.model_validate(r) for r in rows])


@tools.read("list_suppliers", everyday=True, title="List suppliers", response=SupplierList,
            description="Suppliers by name.")
def list_suppliers(op: Op, req: Query) -> SupplierList:
    rows = _listed(op, Supplier, req.query, Supplier.name)
    return SupplierList(suppliers=[PartnerOut.model_validate(r) for r in rows])


@tools.read("list_customers", everyday=True, title="List customers", response=CustomerList,
            description="Customers by name.")
def list_customers(op: Op, req: Query) -> CustomerList:
    rows = _listed(op, Customer, req.query, Customer.name)
    return CustomerList(customers=[PartnerOut.model_validate(r) for r in rows])


class CreateLocation(WriteRequest):
    code: Key
    name: Name
    allow_negative: bool = Field(False, description="may stock here go below zero")


@tools.write("create_location", title="Create location", response=LocationOut,
             description="Create a stock location.",
             destructive=False)
def create_location(op: Op, req: CreateLocation) -> Done[LocationOut]:
    loc = catalog.create_location(op, req.code, req.name, req.allow_negative)
    return Done(f"Create location {loc.code} ({loc.name})", LocationOut.model_validate(loc))


def _address(text: str) -> str:
    """Lines as typed, each trimmed, blank ones dropped (a browser sends CR LF); no
    other control character."""
    lines = [ln.strip() for ln in text.replace("\r\n", "\n").split("\n")]
    if any(ord(c) < 32 or ord(c) == 127 for ln in lines for c in ln):
        raise ValueError("an address is lines of text, without control characters")
    kept = [ln for ln in lines if ln]
    if len(kept) > 8:
        raise ValueError("an address has at most 8 lines")
    return "\n".join(kept)


def _tax_id(text: str) -> str:
    if not all(c.isascii() and (c.isalnum() or c in " .-/") for c in text):
        raise ValueError("a tax id is letters, digits, spaces and . - /")
    return text


Email = Annotated[str, StringConstraints(strip_whitespace=True, max_length=320,
                                         pattern=r"^[^@\s]+@[^@\s]+$")]
Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=64,
                                         pattern=r"^[0-9+() .\-]+$")]
Address = Annotated[str, StringConstraints(max_length=1000), AfterValidator(_address)]
TaxId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64),
                  AfterValidator(_tax_id)]
PaymentDays = Annotated[int, Field(ge=0, le=365)]
Currency = Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=3)]


class PartnerFields(WriteRequest):
    email: Email | None = None
    phone: Phone | None = None
    currency: Currency | None = Field(None, description="ISO 4217; none: the company's")
    contact: Name | None = None
    address: Address | None = Field(None, description="one line per line")
    tax_id: TaxId | None = None
    payment_terms_days: PaymentDays | None = None
    lead_time_days: LeadDays | None = Field(None, description="its items' default")

    def given(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in details.DETAILS
                if k != "name" and k in self.model_fields_set and getattr(self, k) is not None}


class CreatePartner(PartnerFields):
    name: PartnerName


def _create(op: Op, model: type[Supplier] | type[Customer], req: CreatePartner
            ) -> Supplier | Customer:
    row = catalog.create_partner(op, model, req.name, req.email, req.phone,
                                 currencies.code(req.currency) if req.currency else None)
    rest = {k: v for k, v in req.given().items() if k not in ("email", "phone", "currency")}
    return details.change(op, row, rest) if rest else row


@tools.write("create_supplier", title="Create supplier", response=PartnerDetailsOut,
             description="Create a supplier.",
             destructive=False)
def create_supplier(op: Op, req: CreatePartner) -> Done[PartnerDetailsOut]:
    row = _create(op, Supplier, req)
    return Done(f"Create supplier {row.name}", PartnerDetailsOut.model_validate(row))


@tools.write("create_customer", title="Create customer", response=PartnerDetailsOut,
             description="Create a customer.",
             destructive=False)
def create_customer(op: Op, req: CreatePartner) -> Done[PartnerDetailsOut]:
    row = _create(op, Customer, req)
    return Done(f"Create customer {row.name}", PartnerDetailsOut.model_validate(row))


# -- one partner: its details, open orders and totals, and changing them ---------------
class PartnerOrderOut(Out):
    number: str
    status: str
    due_date: date | None = Field(description="expected (purchase) or due (sales) date")
    reference: str | None
    total: Amount
    currency: str


class PartnerTotalOut(Out):
    currency: str
    open_orders: int
    open_value: Amount = Field(description="the open orders' totals, in this currency")


class PartnerDetailOut(PartnerDetailsOut):
    open_orders: list[PartnerOrderOut]
    totals: list[PartnerTotalOut] = Field(description="one row per currency")


def _detail(op: Op, row: Supplier | Customer) -> dict[str, Any]:
    out = [purchase_order_out(o) if isinstance(o, PurchaseOrder) else sales_order_out(o)
           for o in details.open_orders(op, row) if isinstance(o, PurchaseOrder | SalesOrder)]
    sums: dict[str, tuple[int, Decimal]] = {}
    for o in out:
        n, value = sums.get(o.currency, (0, Decimal(0)))
        sums[o.currency] = (n + 1, value + o.total)
    return {**PartnerDetailsOut.model_validate(row).model_dump(),
            "open_orders": [PartnerOrderOut(number=o.number, status=o.status,
                                            due_date=o.due_date, reference=o.reference,
                                            total=o.total, currency=o.currency) for o in out],
            "totals": [PartnerTotalOut(currency=c, open_orders=n, open_value=v)
                       for c, (n, v) in sorted(sums.items())]}


class SupplierRef(Request):
    model_config = {"json_schema_extra": {"anyOf": [{"required": ["name"]},
                                                    {"required": ["id"]}]}}
    name: PartnerName | None = None
    id: Id | None = None


class CustomerRef(SupplierRef):
    pass


@tools.read("get_supplier", title="Get supplier", response=PartnerDetailOut,
            description="One supplier with its open orders and totals (its items: "
                        "list_supplier_items).")
def get_supplier(op: Op, req: SupplierRef) -> PartnerDetailOut:
    return PartnerDetailOut(**_detail(op, details.find(op, Supplier, req.name, req.id)))


@tools.read("get_customer", title="Get customer", response=PartnerDetailOut,
            description="One customer with its open orders and totals.")
def get_customer(op: Op, req: CustomerRef) -> PartnerDetailOut:
    return PartnerDetailOut(**_detail(op, details.find(op, Customer, req.name, req.id)))


class ModifyPartner(PartnerFields):
    id: Id | None = None
    name: PartnerName | None = Field(None, description="a new name")
    clear_email: bool = False
    clear_phone: bool = False
    clear_currency: bool = False
    clear_contact: bool = False
    clear_address: bool = False
    clear_tax_id: bool = False
    clear_payment_terms_days: bool = False
    clear_lead_time_days: bool = False

    def changes(self) -> dict[str, Any]:
        out = self.given()
        if self.name is not None:
            out["name"] = self.name
        for k in details.DETAILS:
            if getattr(self, f"clear_{k}", False):
                out[k] = None
        return out


class ModifySupplier(ModifyPartner):
    model_config = {"json_schema_extra": {"anyOf": [{"required": ["supplier"]},
                                                    {"required": ["id"]}]}}
    supplier: PartnerName | None = None
    bill_tolerance_percent: NonNegative | None = None
    bill_tolerance_amount: NonNegative | None = None

    def changes(self) -> dict[str, Any]:
        out = super().changes()
        out.update({k: getattr(self, k) for k in details.BILLS if getattr(self, k) is not None})
        return out


class ModifyCustomer(ModifyPartner):
    model_config = {"json_schema_extra": {"anyOf": [{"required": ["customer"]},
                                                    {"required": ["id"]}]}}
    customer: PartnerName | None = None


def _modified(op: Op, model: type[Supplier | Customer], name: str | None, ident: int | None,
              changes: dict[str, Any]) -> Done[PartnerDetailsOut]:
    row = details.find(op, model, name, ident)
    was = row.name
    details.change(op, row, changes)
    said = ", ".join(k.replace("_", " ") for k in (*details.DETAILS, *details.BILLS)
                     if k in changes)
    return Done(f"Change {details.what(model)} {was}: {said or 'nothing'}",
                PartnerDetailsOut.model_validate(row))


@tools.write("modify_supplier", title="Modify supplier", response=PartnerDetailsOut,
             role=Role.admin,
             description="Change a supplier's details; a currency change waits for its "
                         "open orders in the old one.",
             destructive=True)  # the details it replaces are gone
def modify_supplier(op: Op, req: ModifySupplier) -> Done[PartnerDetailsOut]:
    return _modified(op, Supplier, req.supplier, req.id, req.changes())


@tools.write("modify_customer", title="Modify customer", response=PartnerDetailsOut,
             role=Role.admin,
             description="Change a customer's details; a currency change waits for its "
                         "open orders in the old one.",
             destructive=True)  # the details it replaces are gone
def modify_customer(op: Op, req: ModifyCustomer) -> Done[PartnerDetailsOut]:
    return _modified(op, Customer, req.customer, req.id, req.changes())
