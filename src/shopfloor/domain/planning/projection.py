"""One item's time-phased record, and what can be promised from it by a date.

The record is the stock on hand, then every open document's dated supply (purchase lines
at their own date, manufacturing orders at their due date) and demand (sales lines at
their due date, components of manufacturing orders at the order's start), in date order,
supply first on a day, each row with the balance after it. Past-due dates count today.
With `planned`, the last plan's planned orders join it (unless that plan was applied: its
orders are documents now), dependent demand of planned parents included.

Promising (available to promise): `quantity` can go on a date if the balance from that
day on never drops below it, so a promise never takes stock already promised to a later
order. What cannot come from stock and open orders comes from a new order: bought, it
arrives after its lead time; made, after its components can be had and its own lead time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import data
from shopfloor.domain.planning.data import PLANNED, Company, ItemData
from shopfloor.domain.stock import items as catalog
from shopfloor.domain.stock import usable
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.statuses import JobState
from shopfloor.store.tables import Item, Job, RecipeLine

MRP_KIND = "mrp"


@dataclass(frozen=True)
class Row:
    date: date
    kind: str
    document: str | None
    incoming: Decimal
    outgoing: Decimal
    balance: Decimal
    due: dt.date | None = None  # the document's own date, when it is past (counted today)
    sku: str | None = None  # for component demand: the item being made


@dataclass
class Record:
    item: ItemData
    today: date
    on_hand: Decimal
    rows: list[Row] = field(default_factory=list)
    plan: str | None = None  # the plan's job id, when its planned orders are in

    @property
    def end(self) -> Decimal:
        return self.rows[-1].balance if self.rows else self.on_hand

    def available(self, on: date) -> Decimal:
        """Available to promise on `on`: the balance that day, or a lower one later."""
        low = self.on_hand
        for row in self.rows:
            low = row.balance if row.date <= on else min(low, row.balance)
        return low

    def earliest(self, quantity: Decimal) -> date | None:
        """The first day `quantity` can be promised from stock and open orders."""
        days = sorted({self.today, *(r.date for r in self.rows)})
        for day in days:
            if self.available(day) >= quantity:
                return day
        return None


def check_date(today: date, when: date | None, fld: str) -> None:
    if when is not None and when < today:
        raise ValidationFailed(f"{when.isoformat()} is before the plan date "
                               f"{today.isoformat()}", field=fld)


def company_for(op: Op, item_ids: list[int], today: date, location_id: int | None,
                blocked: dict[int, usable.Blocked] | None = None) -> Company:
    conn = op.session.connection()
    company = Company(data.read_items(conn, item_ids), data.read_recipes(conn, item_ids),
                      data.read_on_hand(conn, location_id, today, item_ids, blocked))
    data.read_documents(conn, company, today, location_id, item_ids)
    return company


def record(op: Op, sku: str, *, today: date, location: str | None = None,
           until: date | None = None, planned: bool = False) -> Record:
    check_date(today, until, "until")
    item_id = lookup.item(op, sku).id
    location_id = lookup.location(op, location).id if location else None
    company = company_for(op, [item_id], today, location_id)
    plan = _last_plan(op, item_id, location) if planned else None
    return build(company, item_id, today, until, plan)


Plan = tuple[str, dict[str, Any], dict[str, Decimal]]
"""The last plan: its job id, its result, and per unit of each item made from this one."""


def build(company: Company, item_id: int, today: date, until: date | None,
          plan: Plan | None = None) -> Record:
    item = company.items[item_id]
    events: list[tuple[date, int, str, str | None, Decimal, date | None, str | None]] = []
    for r in company.receipts.get(item_id, []):
        events.append((r.date, 0, r.kind, r.document, r.quantity, r.expected, None))
    for n in company.needs.get(item_id, []):
        events.append((n.date, 1, n.kind, n.document, -n.quantity, n.due, n.parent))
    if plan is not None:
        events += _planned_events(plan[1], item.sku, plan[2], today)
    events.sort(key=lambda e: (e[0], e[1], e[3] or ""))
    rec = Record(item, today, company.on_hand.get(item_id, ZERO),
                 plan=plan[0] if plan else None)
    balance = rec.on_hand
    for day, _, kind, document, qty, due, parent in events:
        if until is not None and day > until:
            break
        balance += qty
        rec.rows.append(Row(day, kind, document, max(qty, ZERO), max(-qty, ZERO), balance,
                            due if due is not None and due != day else None, parent))
    return rec


def _planned_events(plan: dict[str, Any], sku: str, parents: dict[str, Decimal], today: date
                    ) -> list[tuple[date, int, str, str | None, Decimal, date | None, str | None]]:
    """Planned receipts of the item, and its dependent demand from planned orders of the
    items made from it (per their recipes), on each order's start."""
    out: list[tuple[date, int, str, str | None, Decimal, date | None, str | None]] = []
    for mo in plan.get("manufacturing_orders", []):
        if mo["sku"] == sku:
            out.append((date.fromisoformat(mo["due_date"]), 0, PLANNED, mo.get("ref"),
                        Decimal(mo["quantity"]), None, None))
        elif mo["sku"] in parents:
            out.append((max(date.fromisoformat(mo["start_date"]), today), 1, PLANNED,
                        mo.get("ref"), -parents[mo["sku"]] * Decimal(mo["quantity"]), None,
                        mo["sku"]))
    for group in plan.get("purchase_orders", []):
        for ln in group["lines"]:
            if ln["sku"] == sku:
                out.append((date.fromisoformat(ln["need_date"]), 0, PLANNED, ln.get("ref"),
                            Decimal(ln.get("stock_quantity", ln["quantity"])), None, None))
    return out


def _last_plan(op: Op, item_id: int, location: str | None) -> Plan | None:
    """The newest finished MRP run of the same scope whose plan was not applied."""
    job = op.session.scalars(
        select(Job).where(Job.kind == MRP_KIND, Job.status == JobState.succeeded)
        .order_by(Job.finished_at.desc(), Job.created_at.desc()).limit(1)).first()
    if job is None or job.applied_operation is not None or not job.result:
        return None
    if job.result.get("location") != location:
        return None
    parents = {sku: per for sku, per in op.session.execute(
        select(Item.sku, RecipeLine.quantity).join(Item, Item.id == RecipeLine.product_id)
        .where(RecipeLine.component_id == item_id))}
    return job.id, job.result, parents


# -- promising ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DatedShortage:
    sku: str
    required: Decimal
    available: Decimal
    short: Decimal
    date: date          # when it is needed: the build's start
    earliest: dt.date   # when the required quantity can be had


@dataclass
class Promise:
    available: Decimal   # available to promise on the date
    can_ship: bool
    can_build: bool | None
    earliest: date
    shortages: list[DatedShortage]
    on_hand: Decimal = ZERO  # all of it, held and expired lots included
    held: Decimal = ZERO
    expired: Decimal = ZERO


def promise(op: Op, sku: str, quantity: Decimal, on: date, *, today: date,
            location: str | None) -> Promise:
    check_date(today, on, "date")
    item_id = lookup.item(op, sku).id
    location_id = lookup.location(op, location).id if location else None
    ids = [item_id, *sorted(catalog.all_components(op, item_id))]
    blocked: dict[int, usable.Blocked] = {}
    company = company_for(op, ids, today, location_id, blocked)
    records = {i: build(company, i, today, None) for i in ids if i in company.items}
    top = records[item_id]
    can_ship = top.available(on) >= quantity
    from_stock = top.earliest(quantity)
    short = max(quantity - top.available(on), ZERO)
    recipe = company.recipes.get(item_id, [])
    can_build: bool | None = None
    shortages: list[DatedShortage] = []
    if recipe and top.item.kind != "material":
        start = on - timedelta(days=top.item.lead)
        need = short if short > 0 else quantity
        can_build = start >= today
        for component, per in recipe:
            rec = records.get(component)
            if rec is None:
                continue
            required = per * need
            have = rec.available(max(start, today))
            if have < required:
                can_build = False
                shortages.append(DatedShortage(rec.item.sku, required, have, required - have,
                                               max(start, today),
                                               _earliest(records, company, component,
                                                         required, today)))
    new = _earliest(records, company, item_id, short if short > 0 else quantity, today,
                    stock=False)
    earliest = on if can_ship else min(d for d in (from_stock, new) if d is not None)
    held_back = blocked.get(item_id, usable.NONE)
    return Promise(top.available(on), can_ship, can_build, max(earliest, today), shortages,
                   top.on_hand + held_back.total, held_back.held, held_back.expired)


def _earliest(records: dict[int, Record], company: Company, item_id: int, quantity: Decimal,
              today: date, *, stock: bool = True, depth: int = 0) -> date:
    """The first day `quantity` of an item can be had: from stock and open orders, else
    from a new order (made: once its components can be had, plus its lead time; bought:
    its lead time from today)."""
    rec = records[item_id]
    if stock:
        found = rec.earliest(quantity)
        if found is not None:
            return found
    lead = timedelta(days=rec.item.lead)
    recipe = company.recipes.get(item_id, [])
    if not recipe or rec.item.kind == "material" or depth > 20:
        return today + lead
    ready = today
    for component, per in recipe:
        if component in records:
            ready = max(ready, _earliest(records, company, component, per * quantity, today,
                                         depth=depth + 1))
    return ready + lead
