"""What planning reads: items, recipes, stock and every open document, in a few bulk queries.

Plain rows through the transaction's connection (no ORM objects: 20k items and tens of
thousands of lines would cost more in bookkeeping than in the queries). Only open
quantities of open documents count: a received, fulfilled, done, cancelled or closed
order supplies and demands nothing, and a line's outstanding quantity is what is left of
it. Dates that are missing or already past are read as the plan date: what was due
yesterday is due now; the document keeps its own date for the explanation.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Select, func, select, type_coerce
from sqlalchemy.engine import Connection

from shopfloor.domain.buying.choice import Offer
from shopfloor.domain.stock import usable, yields
from shopfloor.domain.stock.yields import Yield
from shopfloor.kernel import units
from shopfloor.kernel.statuses import OPEN_MO, OPEN_PO, OPEN_SO
from shopfloor.store.tables import (
    Balance,
    Item,
    ManufacturingComponent,
    ManufacturingOrder,
    OrderOperation,
    PurchaseOrder,
    PurchaseOrderLine,
    RecipeLine,
    SalesOrder,
    SalesOrderLine,
    Supplier,
    SupplierItem,
)
from shopfloor.store.types import SCALE

SALES, MADE, BOUGHT, PLANNED, SAFETY = (
    "sales_order", "manufacturing_order", "purchase_order", "planned_order", "safety_stock")


@dataclass(slots=True)
class ItemData:
    id: int
    sku: str
    name: str
    kind: str
    lead: int
    safety: Decimal          # the reorder point: the projected balance never goes below it
    minimum: Decimal         # reorder_quantity: the smallest order
    multiple: Decimal | None  # pack size: orders are whole packs
    period: int              # period of supply in days (0: one order per need)
    price: Decimal
    supplier: str | None
    level: int = 0
    offers: tuple[Offer, ...] = ()  # its supplier items: MRP chooses among them
    currency: str | None = None  # the default supplier's (None: the company's)
    places: int = 6  # the decimal places its stock is counted to (a pcs item: whole)


@dataclass(slots=True)
class Need:
    """A dated demand: a sales line, the components of an open or planned manufacturing
    order, or safety stock. `date` is when it must be available (never before the plan
    date); `due` is the document's own date, for the explanation."""

    date: dt.date
    quantity: Decimal
    kind: str
    document: str | None
    due: dt.date | None = None
    parent: str | None = None  # the SKU an order for a component is made into


@dataclass(slots=True)
class Receipt:
    """Supply already on order: an open purchase line or manufacturing order."""

    date: dt.date               # when it is expected (never before the plan date)
    quantity: Decimal
    kind: str
    document: str
    expected: dt.date | None    # the document's own date


@dataclass
class Company:
    """Everything one plan reads, keyed by item id."""

    items: dict[int, ItemData]
    recipes: dict[int, list[tuple[int, Decimal]]]
    on_hand: dict[int, Decimal]
    needs: dict[int, list[Need]] = field(default_factory=lambda: defaultdict(list))
    receipts: dict[int, list[Receipt]] = field(default_factory=lambda: defaultdict(list))
    yields: dict[tuple[int, int], Yield] = field(default_factory=dict)  # (product, component)


class Decimals:
    """Decimal columns read without the per-value type hook (a third of reading 20k items
    and their open orders on SQLite): there the column comes back as its stored scaled
    integer and becomes a Decimal through a cache, the way `Dec` converts it (a company
    holds few distinct quantities). PostgreSQL's NUMERIC arrives as Decimal already."""

    def __init__(self, conn: Connection) -> None:
        self.scaled = conn.dialect.name == "sqlite"
        self.cache: dict[int, Decimal] = {}

    def col(self, column: ColumnElement[Any]) -> ColumnElement[Any]:
        return type_coerce(column, BigInteger) if self.scaled else column

    def __call__(self, value: Any) -> Decimal:
        if not self.scaled:
            return value  # type: ignore[no-any-return]
        got = self.cache.get(value)
        if got is None:
            got = self.cache[value] = Decimal(int(value)).scaleb(-SCALE)
        return got


def _at(loc_col: ColumnElement[int], location_id: int | None,
        stmt: Select[Any]) -> Select[Any]:
    return stmt if location_id is None else stmt.where(loc_col == location_id)


def _all(conn: Connection, stmt: Select[Any]) -> Sequence[Any]:
    """Every row at once (fetchall: a third cheaper than fetching row by row)."""
    return conn.execute(stmt).all()


def read_items(conn: Connection, item_ids: Iterable[int] | None = None) -> dict[int, ItemData]:
    it, sup = Item.__table__, Supplier.__table__
    d = Decimals(conn)
    stmt = (select(it.c.id, it.c.sku, it.c.name, it.c.kind, it.c.lead_time_days,
                   d.col(it.c.reorder_point), d.col(it.c.reorder_quantity),
                   d.col(it.c.order_multiple), it.c.supply_period_days,
                   d.col(it.c.purchase_price), sup.c.name, sup.c.currency, it.c.uom,
                   it.c.precision)
            .outerjoin(sup, sup.c.id == it.c.default_supplier_id)
            .where(it.c.archived.is_(False)))
    if item_ids is not None:
        stmt = stmt.where(it.c.id.in_(list(item_ids)))
    return {i: ItemData(i, sku, name, kind, lead or 0, d(point), d(minimum),
                        d(multiple) if multiple else None, period or 0, d(price), supplier,
                        currency=currency, places=units.places(own, uom))
            for i, sku, name, kind, lead, point, minimum, multiple, period, price, supplier,
            currency, uom, own
            in _all(conn, stmt)}


def read_offers(conn: Connection, items: dict[int, ItemData], home: str) -> None:
    """Every supplier item of a live item onto it, in one query (offers of one item by
    supplier name, so a tie goes the same way every run)."""
    si, sup = SupplierItem.__table__, Supplier.__table__
    d = Decimals(conn)
    found: dict[int, list[Offer]] = defaultdict(list)
    cache: dict[str, Decimal] = {}

    def dec(text: str) -> Decimal:
        got = cache.get(text)
        if got is None:
            got = cache[text] = Decimal(text)
        return got

    for item_id, name, currency, unit, per, minimum, multiple, lead, breaks, preferred in \
            _all(conn, select(si.c.item_id, sup.c.name, sup.c.currency, si.c.purchase_unit,
                              d.col(si.c.units_per_purchase_unit), d.col(si.c.minimum_order),
                              d.col(si.c.order_multiple), si.c.lead_time_days,
                              si.c.price_breaks, si.c.preferred)
                 .join(sup, sup.c.id == si.c.supplier_id).order_by(sup.c.name)):
        if item_id in items:
            found[item_id].append(Offer(
                name, currency or home, unit, d(per), d(minimum),
                d(multiple) if multiple else None, lead or 0,
                tuple((dec(q), dec(p)) for q, p in breaks), bool(preferred)))
    for item_id, offers in found.items():
        items[item_id].offers = tuple(offers)


def read_yields(conn: Connection) -> dict[tuple[int, int], Yield]:
    """The recipe lines that lose, set up or round (few): (product, component) -> yield."""
    rl = RecipeLine.__table__
    d = Decimals(conn)
    return {(product, component): Yield(d(attrition), d(setup), d(rounding) if rounding else None)
            for product, component, attrition, setup, rounding in _all(conn, select(
                rl.c.product_id, rl.c.component_id, d.col(rl.c.attrition_percent),
                d.col(rl.c.setup_quantity), d.col(rl.c.rounding_multiple))
                .where((rl.c.attrition_percent != 0) | (rl.c.setup_quantity != 0)
                       | rl.c.rounding_multiple.is_not(None)))}


def read_recipes(conn: Connection, products: list[int] | None = None
                 ) -> dict[int, list[tuple[int, Decimal]]]:
    rl = RecipeLine.__table__
    d = Decimals(conn)
    out: dict[int, list[tuple[int, Decimal]]] = defaultdict(list)
    stmt = select(rl.c.product_id, rl.c.component_id, d.col(rl.c.quantity))
    if products is not None:
        stmt = stmt.where(rl.c.product_id.in_(products))
    for product, component, qty in _all(conn, stmt.order_by(rl.c.product_id,
                                                              rl.c.position)):
        out[product].append((component, d(qty)))
    return out


def read_on_hand(conn: Connection, location_id: int | None, today: date,
                 item_ids: list[int] | None = None,
                 blocked: dict[int, usable.Blocked] | None = None) -> dict[int, Decimal]:
    """Stock a plan can count on: on hand less what sits in held or expired lots (picking
    would never take it, so a plan must not promise it); those figures into `blocked`."""
    b = Balance.__table__
    d = Decimals(conn)
    stmt = _at(b.c.location_id, location_id,
               select(b.c.item_id, d.col(func.sum(b.c.on_hand))).group_by(b.c.item_id))
    if item_ids is not None:
        stmt = stmt.where(b.c.item_id.in_(item_ids))
    out = {i: d(q) for i, q in _all(conn, stmt)}
    held_back = usable.blocked(conn, today, location_id=location_id, item_ids=item_ids)
    for i, lots in held_back.items():
        if i in out:
            out[i] -= lots.total
    if blocked is not None:
        blocked.update(held_back)
    return out


def read_documents(conn: Connection, company: Company, today: date, location_id: int | None,
                   item_ids: list[int] | None = None) -> None:
    """Open demand and supply into `company`, dated. One query per document table."""
    def only(col: object, stmt: Select[Any]) -> Select[Any]:
        return stmt if item_ids is None else stmt.where(col.in_(item_ids))  # type: ignore[attr-defined]

    so, sol = SalesOrder.__table__, SalesOrderLine.__table__
    po, pol = PurchaseOrder.__table__, PurchaseOrderLine.__table__
    mo, mc = ManufacturingOrder.__table__, ManufacturingComponent.__table__
    needs, receipts = company.needs, company.receipts
    d = Decimals(conn)
    for number, due, item_id, qty in _all(conn, only(sol.c.item_id, _at(
            so.c.location_id, location_id,
            select(so.c.number, so.c.due_date, sol.c.item_id,
                   d.col(sol.c.quantity - sol.c.fulfilled_quantity))
            .join(so, so.c.id == sol.c.order_id)
            .where(so.c.status.in_(OPEN_SO), sol.c.quantity > sol.c.fulfilled_quantity)
            .order_by(so.c.number)))):
        needs[item_id].append(Need(due if due and due > today else today, d(qty), SALES,
                                    number, due))
    for number, expected, item_id, qty in _all(conn, only(pol.c.item_id, _at(
            po.c.location_id, location_id,
            select(po.c.number, func.coalesce(pol.c.expected_date, po.c.expected_date),
                   pol.c.item_id, d.col(pol.c.quantity - pol.c.received_quantity))
            .join(po, po.c.id == pol.c.order_id)
            .where(po.c.status.in_(OPEN_PO), pol.c.quantity > pol.c.received_quantity)))):
        receipts[item_id].append(Receipt(expected if expected and expected > today else today,
                                         d(qty), BOUGHT, number, expected))
    it = Item.__table__
    open_mo = _at(mo.c.location_id, location_id,
                  select(mo.c.id).where(mo.c.status.in_(OPEN_MO),
                                        mo.c.quantity > mo.c.completed_quantity
                                        + mo.c.scrapped_quantity))
    if item_ids is not None:  # only orders of these items or using them
        open_mo = open_mo.where(mo.c.item_id.in_(item_ids) | mo.c.id.in_(
            select(mc.c.order_id).where(mc.c.item_id.in_(item_ids))))
    starts: dict[int, tuple[str, date, Decimal, str, Decimal]] = {}
    for mo_id, number, item_id, sku, qty, due, lead, done in _all(conn,
            select(mo.c.id, mo.c.number, mo.c.item_id, it.c.sku,
                   d.col(mo.c.quantity - mo.c.completed_quantity - mo.c.scrapped_quantity),
                   mo.c.due_date,
                   it.c.lead_time_days,
                   d.col(mo.c.completed_quantity + mo.c.scrapped_quantity))
            .join(it, it.c.id == mo.c.item_id).where(mo.c.id.in_(open_mo))):
        if item_ids is None or item_id in item_ids:
            receipts[item_id].append(Receipt(max(due or today, today), d(qty), MADE,
                                             number, due))
        # components are needed when the order starts: its due date less the lead time
        start = (due - timedelta(days=lead or 0)) if due else today
        starts[mo_id] = (number, start, d(qty), sku, d(done))
    ops = OrderOperation.__table__  # an order dated by its routing starts when it is planned to
    for mo_id, first in _all(conn, select(ops.c.order_id, func.min(ops.c.planned_start))
                             .where(ops.c.order_id.in_(open_mo)).group_by(ops.c.order_id)):
        if first is not None and mo_id in starts:
            number, _, qty, sku, done = starts[mo_id]
            starts[mo_id] = (number, first.date(), qty, sku, done)
    for mo_id, item_id, per, attrition, setup, rounding in _all(conn, only(mc.c.item_id, select(
            mc.c.order_id, mc.c.item_id, d.col(mc.c.quantity_per_unit),
            d.col(mc.c.attrition_percent), d.col(mc.c.setup_quantity),
            d.col(mc.c.rounding_multiple))
            .where(mc.c.order_id.in_(open_mo)).order_by(mc.c.order_id))):
        number, start, qty, sku, done = starts[mo_id]
        y = Yield(d(attrition), d(setup), d(rounding) if rounding else None)
        counted = company.items.get(item_id)  # what the floor will take, as it counts it
        needs[item_id].append(Need(max(start, today), yields.between(
            d(per), done, qty, y, counted.places if counted else None), MADE, number, start,
            sku))


def read_company(conn: Connection, today: date, location_id: int | None,
                 report: Callable[[float, str], None] | None = None,
                 home: str | None = None) -> Company:
    """`home`: the company currency; given, the items' supplier items are read too."""
    say = report or (lambda fraction, message: None)
    items = read_items(conn)
    if home is not None:
        read_offers(conn, items, home)
    say(0.08, f"{len(items)} items read; reading recipes")
    recipes = read_recipes(conn)
    say(0.14, "reading stock")
    company = Company(items, recipes, read_on_hand(conn, location_id, today))
    company.yields = read_yields(conn)
    say(0.2, "reading open orders")
    read_documents(conn, company, today, location_id)
    return company

