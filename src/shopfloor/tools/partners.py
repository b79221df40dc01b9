"""Locations, suppliers and customers."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import Field
from sqlalchemy import Select, func, or_, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.domain.stock import items as catalog
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.store.tables import Customer, Location, Supplier
from shopfloor.tools.fields import Key, Name, Out, PartnerName, SearchText
from shopfloor.tools.views import LocationOut, PartnerOut

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


def _matching(stmt: Select[M], query: str | None, *columns: Any) -> Select[M]:
    if not query:
        return stmt
    like = f"%{query.lower()}%"
    return stmt.where(or_(*(func.lower(c).like(like) for c in columns)))


@tools.read("list_locations", title="List locations", response=LocationList,
            description="Stock locations (warehouses, shop floor), by code.")
def list_locations(op: Op, req: LocationQuery) -> LocationList:
    stmt = _matching(select(Location), req.query, Location.code, Location.name)
    rows = op.session.scalars(stmt.order_by(Location.code)).all()
    return LocationList(locations=[LocationOut.model_validate(r) for r in rows])


@tools.read("list_suppliers", everyday=True, title="List suppliers", response=SupplierList,
            description="Suppliers by name.")
def list_suppliers(op: Op, req: Query) -> SupplierList:
    stmt = _matching(select(Supplier), req.query, Supplier.name)
    rows = op.session.scalars(stmt.order_by(Supplier.name)).all()
    return SupplierList(suppliers=[PartnerOut.model_validate(r) for r in rows])


@tools.read("list_customers", everyday=True, title="List customers", response=CustomerList,
            description="Customers by name.")
def list_customers(op: Op, req: Query) -> CustomerList:
    stmt = _matching(select(Customer), req.query, Customer.name)
    rows = op.session.scalars(stmt.order_by(Customer.name)).all()
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


class CreatePartner(WriteRequest):
    name: PartnerName
    email: str | None = Field(None, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")
    phone: str | None = Field(None, max_length=64, pattern=r"^[0-9+() .\-]+$")
    currency: str | None = None  # ISO 4217; None: the company's


@tools.write("create_supplier", title="Create supplier", response=PartnerOut,
             description="Create a supplier.",
             destructive=False)
def create_supplier(op: Op, req: CreatePartner) -> Done[PartnerOut]:
    row = catalog.create_partner(op, Supplier, req.name, req.email, req.phone,
                                 currencies.code(req.currency) if req.currency else None)
    return Done(f"Create supplier {row.name}", PartnerOut.model_validate(row))


@tools.write("create_customer", title="Create customer", response=PartnerOut,
             description="Create a customer.",
             destructive=False)
def create_customer(op: Op, req: CreatePartner) -> Done[PartnerOut]:
    row = catalog.create_partner(op, Customer, req.name, req.email, req.phone,
                                 currencies.code(req.currency) if req.currency else None)
    return Done(f"Create customer {row.name}", PartnerOut.model_validate(row))
