"""What the stock is worth: per item and location (and lot), now, as it stood at the end of
a day, or over a period with the flows that moved it.

Rows are appended and never reposted, so a past figure is read, not recomputed: the value
at a moment is the sum of the ledger's `value` before it, or, when fewer rows came after
it, today's balances less the rows since (a balance equals its rows exactly, the
invariant the ledger keeps, so both sides give the same figure). A correction made today
shows in today's flows, never in a closed month. The current figure reads the balances.

A period is its opening (the value at its start, as above) and its rows, each in one
flow by what moved it; the closing value is opening plus flows by construction, so the
equation holds to the last digit. A variance is value that left the stock books (a
supplier credited more than the stock held): no ledger row, so it is listed beside the
flows, not in them. The sums, the ordering, the page and the totals (a window over every
figure) are the database's work: Python sees one page of rows, whatever the ledger holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    case,
    func,
    literal,
    or_,
    select,
    text,
    tuple_,
    union_all,
)

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.stock.balance_rows import BALANCES
from shopfloor.domain.stock.ledger import MOVEMENTS
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.tables import (
    Batch,
    Item,
    Location,
    ManufacturingOrder,
    Variance,
    table,
)
from shopfloor.store.types import Dec

VARIANCES = table(Variance)
ZERO_DEC = literal(ZERO, Dec())

FLOWS = ("received", "shipped", "consumed", "produced", "transferred", "adjusted", "revalued")
"""The columns of a period, in the order an accountant reads them: each is the signed
change it made to stock value (a shipment is negative)."""
OPENING = "opening"

# What moved a row, by its reason; corrections and reverts by the document they correct.
_BY_REASON = {"receipt": "received", "supplier_return": "received",
              "shipment": "shipped", "customer_return": "shipped",
              "consumption": "consumed", "production": "produced",
              "transfer_in": "transferred", "transfer_out": "transferred"}
_BY_DOCUMENT = {"purchase_order": "received", "sales_order": "shipped",
                "stock_transfer": "transferred", "stock_adjustment": "adjusted"}


@dataclass(frozen=True, slots=True)
class Scope:
    """Which balances: one SKU, one location, one item kind; None is all."""

    sku: str | None = None
    location: str | None = None
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """When: `upto` (exclusive; None is now) and, for a period, its `start` (inclusive)."""

    upto: datetime | None = None
    start: datetime | None = None


@dataclass(slots=True)
class LotFigure:
    lot: str
    quantity: Decimal
    value: Decimal


@dataclass(slots=True)
class Figure:
    """One item at one location: its quantity and value at the window's end and, for a
    period, its opening value, its flows and its variances."""

    item_id: int
    location_id: int
    sku: str = ""
    name: str = ""
    location: str = ""
    tracked: bool = False
    quantity: Decimal = ZERO
    value: Decimal = ZERO
    opening: Decimal = ZERO
    flows: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(FLOWS, ZERO))
    variances: Decimal = ZERO
    lots: list[LotFigure] = field(default_factory=list)


@dataclass(slots=True)
class Totals:
    value: Decimal = ZERO
    opening: Decimal = ZERO
    flows: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(FLOWS, ZERO))
    variances: Decimal = ZERO


@dataclass(slots=True)
class Valuation:
    rows: list[Figure]
    total: Totals
    more: bool


def end_of(day: date) -> datetime:
    """The end of a (UTC) day: the first moment of the next one, exclusive."""
    return datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)


def start_of(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def window(today: date, on: date | None, start: date | None) -> Window:
    """Values at the end of `on` (None: now); with `start`, the period from its first
    moment to the end of `on` (None: today). A coded error names a date that does not fit."""
    if start is None:
        return Window(end_of(on)) if on is not None else Window()
    end = on or today
    if end < start:
        raise ValidationFailed(f"the period ends ({end}) before it starts ({start})",
                               field="start")
    return Window(end_of(end), start_of(start))


def valuation(op: Op, scope: Scope, when: Window, *, limit: int,
              after: tuple[str, str] | None = None) -> Valuation:
    """One page of figures in (sku, location) order, continuing past `after`, and the
    totals over every figure in scope."""
    if when.upto is None:
        return _current(op, scope, limit, after)
    if op.dialect == "postgresql":  # a sum per balance: in memory, not spilled to disk
        op.session.execute(text("SET LOCAL work_mem = '64MB'"))
    if when.start is None:
        sums = _at(op, scope, when.upto).subquery("sums")
        amounts = ["value"]
    else:
        sums = _period(op, scope, when).subquery("sums")
        amounts = [OPENING, *FLOWS, "variances"]
    found = _page(op, sums, amounts, limit, after)
    rows, more = found[:limit], len(found) > limit
    if not found and after is not None:  # past the last page: the totals still stand
        found = _page(op, sums, amounts, 0, None)
    total = Totals()
    if found:
        t = found[0]
        if when.start is None:
            total.value = t.t_value
        else:
            total.opening, total.variances = t.t_opening, t.t_variances
            total.flows = {k: getattr(t, f"t_{k}") for k in FLOWS}
            total.value = total.opening + sum(total.flows.values(), ZERO)
    page = [_figure(r, when.start is not None) for r in rows]
    _lots(op, page, when.upto)
    return Valuation(page, total, more)


@dataclass(frozen=True, slots=True)
class Share:
    """The value of one item kind at one location, at the window's end."""

    kind: str
    location: str
    value: Decimal


def shares(op: Op, scope: Scope, when: Window) -> list[Share]:
    """Where the value sits, over every figure in scope (not a page's): what a chart by
    item kind or by location draws. One grouped pass over the same sums as the rows."""
    if when.upto is None:
        b = BALANCES.c
        sums: Any = (select(b.item_id, b.location_id, b.stock_value.label("value"))
                     .where(*_scoped(op, scope, b.item_id, b.location_id)).subquery("sums"))
        value: ColumnElement[Any] = sums.c.value
    elif when.start is None:
        sums = _at(op, scope, when.upto).subquery("sums")
        value = sums.c.value
    else:
        sums = _period(op, scope, when).subquery("sums")
        value = sums.c[OPENING] + sum((sums.c[k] for k in FLOWS[1:]), sums.c[FLOWS[0]])
    c = sums.c
    stmt = (select(Item.kind, Location.code, func.sum(value))
            .select_from(sums)
            .join(Item.__table__, Item.id == c.item_id)
            .join(Location.__table__, Location.id == c.location_id)
            .group_by(Item.kind, Location.code).order_by(Item.kind, Location.code))
    return [Share(kind, code, Decimal(total)) for kind, code, total in op.session.execute(stmt)
            if total]


def _figure(r: Any, period: bool) -> Figure:
    f = Figure(r.item_id, r.location_id, r.sku, r.name, r.code,
               r.batch_tracked or r.serial_tracked, r.quantity)
    if period:
        f.opening, f.variances = r.opening, r.variances
        f.flows = {k: getattr(r, k) for k in FLOWS}
        f.value = f.opening + sum(f.flows.values(), ZERO)
    else:
        f.value = r.value
    return f


def _page(op: Op, sums: Any, amounts: list[str], limit: int,
          after: tuple[str, str] | None) -> list[Any]:
    """One page of the sums in (sku, location) order, each row carrying the totals over
    every figure (a window over all of them, taken before the page is cut), so the
    database does the work and Python sees only the page. Figures that are all zero add
    nothing to the totals, so they are left out after the window: filtered before it,
    PostgreSQL would guess a handful of rows and join the items one by one."""
    c = sums.c
    named = (select(c, Item.sku, Item.name, Item.batch_tracked, Item.serial_tracked,
                    Location.code,
                    *(func.sum(c[k]).over().label(f"t_{k}") for k in amounts))
             .join(Item.__table__, Item.id == c.item_id)
             .join(Location.__table__, Location.id == c.location_id)
             .subquery("named"))
    n = named.c
    stmt = select(named).where(or_(n.quantity != 0, *(n[k] != 0 for k in amounts)))
    if after is not None:
        stmt = stmt.where(tuple_(n.sku, n.code) > tuple_(*after))
    return list(op.session.execute(stmt.order_by(n.sku, n.code).limit(limit + 1)))


def _scoped(op: Op, scope: Scope, item: Any, location: Any) -> list[ColumnElement[bool]]:
    """The scope as conditions on a table's item and location columns."""
    where = []
    if scope.sku is not None:
        where.append(item == lookup.item(op, scope.sku, include_archived=True).id)
    if scope.location is not None:
        where.append(location == lookup.location(op, scope.location).id)
    if scope.kind is not None:
        where.append(item.in_(select(Item.id).where(Item.kind == scope.kind)))
    return where


def _current(op: Op, scope: Scope, limit: int, after: tuple[str, str] | None) -> Valuation:
    b = BALANCES.c
    where = [or_(b.on_hand != 0, b.stock_value != 0), *_scoped(op, scope, b.item_id,
                                                               b.location_id)]
    joined = BALANCES.join(Item.__table__, Item.id == b.item_id).join(
        Location.__table__, Location.id == b.location_id)
    value = op.session.execute(select(func.coalesce(func.sum(b.stock_value), 0))
                               .where(*where)).scalar_one()
    stmt: Select[Any] = (select(b.item_id, b.location_id, Item.sku, Item.name, Location.code,
                                Item.batch_tracked, Item.serial_tracked, b.on_hand,
                                b.stock_value)
                         .select_from(joined).where(*where))
    if after is not None:
        stmt = stmt.where(tuple_(Item.sku, Location.code) > tuple_(*after))
    found = op.session.execute(stmt.order_by(Item.sku, Location.code).limit(limit + 1)).all()
    page = [Figure(r.item_id, r.location_id, r.sku, r.name, r.code,
                   r.batch_tracked or r.serial_tracked, r.on_hand, r.stock_value)
            for r in found[:limit]]
    _lots(op, page, None)
    return Valuation(page, Totals(value=Decimal(value)), len(found) > limit)


def _keys() -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """Item and location as expressions, not columns: grouped by the bare columns, SQLite
    would walk the (item, location) index over the whole ledger instead of the range of
    the (created_at, ...) index that covers these sums."""
    return ((MOVEMENTS.c.item_id + 0).label("item_id"),
            (MOVEMENTS.c.location_id + 0).label("location_id"))


def _at(op: Op, scope: Scope, upto: datetime) -> Select[Any]:
    """Quantity and value per item and location before `upto`, from the side of the
    ledger with fewer rows: summed up to it, or today's balances less what came after
    (the balances equal their rows exactly, so both sides give the same figures)."""
    m = MOVEMENTS.c
    item, loc = _keys()
    first = op.session.execute(select(m.id).where(m.created_at >= upto)
                               .order_by(m.created_at).limit(1)).scalar()
    last = op.session.execute(select(func.max(m.id))).scalar() or 0
    scoped = _scoped(op, scope, m.item_id, m.location_id)
    if first is not None and last - first > first:  # fewer rows before it: sum them
        return (
            select(item, loc, func.sum(m.quantity).label("quantity"),
                   func.sum(m.value).label("value"))
            .where(m.created_at < upto, *scoped).group_by(item, loc))
    b = BALANCES.c
    parts = union_all(
        select(b.item_id, b.location_id, b.on_hand.label("quantity"),
               b.stock_value.label("value"))
        .where(*_scoped(op, scope, b.item_id, b.location_id)),
        select(item, loc, (-m.quantity).label("quantity"), (-m.value).label("value"))
        .where(m.created_at >= upto, *scoped),
    ).subquery("parts")
    p = parts.c
    return (select(p.item_id, p.location_id, func.sum(p.quantity).label("quantity"),
                   func.sum(p.value).label("value"))
            .group_by(p.item_id, p.location_id))


def _flow() -> ColumnElement[str]:
    """Which flow a ledger row belongs to, in SQL, so a period is one grouped pass."""
    m = MOVEMENTS.c
    made_here = (select(ManufacturingOrder.item_id)
                 .where(ManufacturingOrder.number == m.document_number)
                 .scalar_subquery())
    return case(
        (m.quantity == 0, literal("revalued")),
        *((m.reason == r, literal(f)) for r, f in _BY_REASON.items()),
        (m.document_type == "stock_return",  # reverts of returns, by their direction
         case((m.quantity > 0, literal("received")), else_=literal("shipped"))),
        (m.document_type == "manufacturing_order",
         case((m.item_id == made_here, literal("produced")), else_=literal("consumed"))),
        *((m.document_type == d, literal(f)) for d, f in _BY_DOCUMENT.items()),
        else_=literal("adjusted"))


def _period(op: Op, scope: Scope, when: Window) -> Select[Any]:
    """Per item and location: the quantity at the end, the opening value at the start,
    each flow over the period and its variances. The flows are summed per flow first,
    then turned into columns, so each ledger row is classified once."""
    assert when.start is not None and when.upto is not None
    m, vc = MOVEMENTS.c, VARIANCES.c
    opening = _at(op, scope, when.start).subquery("opening")
    item, loc = _keys()
    flow = _flow().label("flow")
    flows = (select(item, loc, flow, func.sum(m.quantity).label("quantity"),
                    func.sum(m.value).label("value"))
             .where(m.created_at >= when.start, m.created_at < when.upto,
                    *_scoped(op, scope, m.item_id, m.location_id))
             .group_by(item, loc, flow).subquery("flows"))
    f, o = flows.c, opening.c
    zeros = [ZERO_DEC.label(k) for k in FLOWS]
    parts = union_all(
        select(o.item_id, o.location_id, o.quantity, o.value.label(OPENING), *zeros,
               ZERO_DEC.label("variances")),
        select(f.item_id, f.location_id, f.quantity, ZERO_DEC,
               *(case((f.flow == k, f.value), else_=ZERO_DEC) for k in FLOWS), ZERO_DEC),
        select(vc.item_id, vc.location_id, ZERO_DEC, ZERO_DEC, *(ZERO_DEC for _ in FLOWS),
               vc.amount)
        .where(vc.created_at >= when.start, vc.created_at < when.upto,
               *_scoped(op, scope, vc.item_id, vc.location_id)),
    ).subquery("parts")
    p = parts.c
    return (select(p.item_id, p.location_id,
                   *(func.sum(p[k]).label(k)
                     for k in ("quantity", OPENING, *FLOWS, "variances")))
            .group_by(p.item_id, p.location_id))


def _lots(op: Op, page: list[Figure], upto: datetime | None) -> None:
    """Each tracked figure's value per lot, from its ledger rows (only the page's)."""
    tracked = {(f.item_id, f.location_id): f for f in page if f.tracked}
    if not tracked:
        return
    m = MOVEMENTS.c
    where: list[ColumnElement[bool]] = [m.item_id.in_({i for i, _ in tracked}),
                                        m.batch_id.is_not(None)]
    if upto is not None:
        where.append(m.created_at < upto)
    stmt = (select(m.item_id, m.location_id, Batch.lot_number, func.sum(m.quantity),
                   func.sum(m.value))
            .join(Batch, Batch.id == m.batch_id).where(*where)
            .group_by(m.item_id, m.location_id, Batch.lot_number)
            .order_by(Batch.lot_number))
    for item_id, loc, lot, qty, value in op.session.execute(stmt):
        f = tracked.get((item_id, loc))
        if f is not None and (qty or value):
            f.lots.append(LotFigure(lot, qty, value))


__all__ = ["FLOWS", "Figure", "LotFigure", "Scope", "Share", "Totals", "Valuation", "Window",
           "shares", "valuation", "window"]
