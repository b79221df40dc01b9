"""Suppliers' and customers' details after they are created: their name, currency,
contact, address, tax id, payment terms and default lead time, and the open orders that
hold a currency in place.

An open order keeps the currency it was placed in (its prices are in it); a partner's new
currency would make its next orders disagree with those still open, and a receipt or a
shipment of an old one read in the wrong money. So a currency change waits until no open
order is in the old one, and the refusal names them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.domain.stock import lookalikes
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.statuses import OPEN_PO, OPEN_SO
from shopfloor.store.tables import Customer, PurchaseOrder, SalesOrder, Supplier

Partner = Supplier | Customer
DETAILS = ("name", "currency", "contact", "email", "phone", "address", "tax_id",
           "payment_terms_days", "lead_time_days")
BILLS = ("bill_tolerance_percent", "bill_tolerance_amount")
"""A supplier's only: how far its bills' prices may differ from its orders' and post."""
NAMED = 10  # open orders a refusal names before it says "and N more"


def what(model: type[Partner]) -> str:
    return "supplier" if model is Supplier else "customer"


def find(op: Op, model: type[Partner], name: str | None, ident: int | None) -> Partner:
    """By name or by id; both given must name the same one."""
    if ident is not None:
        row = op.session.get(model, ident)
        if not isinstance(row, Supplier | Customer):
            raise NotFound(f"no {what(model)} with id {ident}", field="id")
        if name is not None and name != row.name:
            raise ValidationFailed(f"id {ident} is {what(model)} {row.name}, not {name}",
                                   field="id")
        return row
    if name is None:
        raise ValidationFailed(f"give the {what(model)}'s name or id", field=what(model))
    return lookup.supplier(op, name, fld="supplier") if model is Supplier else \
        lookup.customer(op, name, fld="customer")


def default_lead_time(op: Op, supplier: str) -> int:
    """The days a supplier's item takes when its terms do not say: the supplier's own
    default, else none."""
    return lookup.supplier(op, supplier).lead_time_days or 0


def open_orders(op: Op, row: Partner) -> Sequence[PurchaseOrder] | Sequence[SalesOrder]:
    """The partner's orders still open, oldest first."""
    if isinstance(row, Supplier):
        return op.session.scalars(
            select(PurchaseOrder).where(PurchaseOrder.supplier_id == row.id,
                                        PurchaseOrder.status.in_(OPEN_PO))
            .order_by(PurchaseOrder.id)).unique().all()
    return op.session.scalars(
        select(SalesOrder).where(SalesOrder.customer_id == row.id,
                                 SalesOrder.status.in_(OPEN_SO))
        .order_by(SalesOrder.id)).unique().all()


def _currency_may_change(op: Op, row: Partner, new: str | None) -> None:
    company = currencies.company(op)
    old_money, new_money = row.currency or company, new or company
    if old_money == new_money:
        return
    held = [o.number for o in open_orders(op, row) if (o.currency or company) == old_money]
    if held:
        more = f" and {len(held) - NAMED} more" if len(held) > NAMED else ""
        op.refuse(Conflict(
            f"{what(type(row))} {row.name} has open orders in {old_money}: "
            f"{', '.join(held[:NAMED])}{more}; receive, close or cancel them before its "
            f"currency becomes {new_money}", field="currency", details={"orders": held}))


def _name_may_change(op: Op, row: Partner, new: str) -> None:
    model = type(row)
    if op.session.execute(select(model.id).where(model.name == new, model.id != row.id)
                          ).first() is not None:
        raise Conflict(f"{what(model)} {new!r} already exists", field="name")
    lookalikes.new_key(op, model.name, model.name_skeleton, new, fld="name", what=what(model))


def change(op: Op, row: Partner, details: Mapping[str, Any]) -> Partner:
    """Set the details given (a value of None clears it; a name is never cleared),
    recording each change under the partner's name as it was."""
    key = row.name
    kind = what(type(row))
    for field in (*DETAILS, *BILLS) if isinstance(row, Supplier) else DETAILS:
        if field not in details:
            continue
        value = details[field]
        if value == getattr(row, field):
            continue
        if field == "name":
            _name_may_change(op, row, value)
        elif field == "currency":
            value = currencies.code(value) if value is not None else None
            _currency_may_change(op, row, value)
        op.change(kind, key, field, getattr(row, field), value)
        setattr(row, field, value)
    op.session.flush()
    return row
