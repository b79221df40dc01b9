"""What paper and scanners need: a code read back to its record, and a pick list."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import Field, StringConstraints

from shopfloor.domain.base import codes
from shopfloor.domain.base.context import Op
from shopfloor.domain.sales import picking
from shopfloor.registry.tool import Request, Toolset
from shopfloor.store.tables import SalesOrder
from shopfloor.tools.fields import Amount, Out
from shopfloor.tools.refs import NumberOrId, number_of

tools = Toolset("paper")

# What a scanner sends may hold the GS1 group separator (ASCII 29): no other control.
Code = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200,
                                        pattern=r"^[^\x00-\x1c\x1e\x1f\x7f]+$")]


class FindByCode(Request):
    code: Code = Field(description="as scanned: GS1 string, SKU, lot, serial, number, location")


class CodeMatchOut(Out):
    kind: str = Field(description="item, lot, serial, location, purchase_order, ...")
    key: str
    sku: str | None = None
    name: str | None = None
    expiry: date | None = None


class CodeOut(Out):
    code: str
    gs1: dict[str, str] = Field(description="application identifier -> value")
    matches: list[CodeMatchOut] = Field(description="more than one: ambiguous")


@tools.read("find_by_code", title="Find by code", response=CodeOut,
            description="Resolve a scanned code to its records (a lot with its item).")
def find_by_code(op: Op, req: FindByCode) -> CodeOut:
    found = codes.find(op, req.code)
    return CodeOut(code=req.code, gs1=dict(found.elements),
                   matches=[CodeMatchOut(kind=m.kind, key=m.key, sku=m.sku, name=m.name,
                                         expiry=m.expiry) for m in found.matches])


class PickOut(Out):
    lot: str | None
    expiry: date | None
    quantity: Amount


class PickLineOut(Out):
    sku: str
    name: str
    uom: str
    quantity: Amount
    picks: list[PickOut]
    short: Amount


class PickListOut(Out):
    number: str
    customer: str
    location: str
    lines: list[PickLineOut]


class GetPickList(NumberOrId, Request):
    pass


@tools.read("get_pick_list", title="Get pick list", response=PickListOut,
            description="A sales order's unshipped lines with the lots shipping would take.")
def get_pick_list(op: Op, req: GetPickList) -> PickListOut:
    so, lines = picking.pick_list(op, number_of(op, SalesOrder, req, "sales order"))
    return PickListOut(number=so.number, customer=so.customer.name, location=so.location.code,
                       lines=[PickLineOut(sku=ln.sku, name=ln.name, uom=ln.uom,
                                          quantity=ln.quantity, short=ln.short,
                                          picks=[PickOut(lot=p.lot, expiry=p.expiry,
                                                         quantity=p.quantity)
                                                 for p in ln.picks])
                              for ln in lines])
