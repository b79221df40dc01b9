"""Stock valuation: what the stock is worth now, at the end of a day, or over a period
with the flows that moved it (the figures an accountant closes a month with)."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import valuation as books
from shopfloor.registry.tool import Request, Toolset
from shopfloor.tools.fields import (
    Amount,
    Cursor,
    Day,
    Key,
    Kind,
    Out,
    Page,
    after_pair,
    pair_cursor,
)

tools = Toolset("valuation")
PAGE = 200  # rows a page (a fixed size: one argument fewer in every tools/list)


class ValuationQuery(Request):
    sku: Key | None = None
    location: Key | None = None
    kind: Kind | None = None
    date: Day | None = None
    start: Day | None = None
    cursor: Cursor | None = None
    breakdown: bool = Field(False, description="add the value by item kind and by location")


class ValueRow(Out):
    sku: str
    name: str
    location: str
    quantity: Amount
    value: Amount
    period: dict[str, Amount] | None = None
    lots: dict[str, Amount] = Field(default_factory=dict)


class ValuationOut(Page):
    rows: list[ValueRow]
    total: dict[str, Amount]
    by_kind: dict[str, Amount] | None = None
    by_location: dict[str, Amount] | None = None


def _after(cursor: str | None) -> tuple[str, str] | None:
    return after_pair(cursor, "get_stock_valuation")


@tools.read("get_stock_valuation", title="Stock valuation", response=ValuationOut,
            description="Stock value by item, location, lot; totals. Now, at date's end (UTC), "
                        "or start..date: opening + signed flows = value.")
def get_stock_valuation(op: Op, req: ValuationQuery) -> ValuationOut:
    when = books.window(op.now.date(), req.date, req.start)
    scope = books.Scope(req.sku, req.location, req.kind)
    found = books.valuation(op, scope, when, limit=PAGE, after=_after(req.cursor))
    period = when.start is not None
    rows = [ValueRow(sku=f.sku, name=f.name, location=f.location, quantity=f.quantity,
                     value=f.value, period=_period(f) if period else None,
                     lots={x.lot: x.value for x in f.lots})
            for f in found.rows]
    last = found.rows[-1] if found.rows else None
    t = found.total
    out = ValuationOut(rows=rows, total={"value": t.value, **(_period(t) if period else {})},
                       next_cursor=pair_cursor(last.sku, last.location) if found.more and last
                       else None)
    if req.breakdown:
        out.by_kind, out.by_location = _breakdown(books.shares(op, scope, when))
    return out


def _breakdown(shares: list[books.Share]) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """The value by item kind and by location, each largest first."""
    kinds: dict[str, Decimal] = {}
    places: dict[str, Decimal] = {}
    for s in shares:
        kinds[s.kind] = kinds.get(s.kind, Decimal(0)) + s.value
        places[s.location] = places.get(s.location, Decimal(0)) + s.value
    return ({k: v for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))},
            {k: v for k, v in sorted(places.items(), key=lambda kv: (-kv[1], kv[0]))})


def _period(f: books.Figure | books.Totals) -> dict[str, Decimal]:
    """A period's figures in the order they add up: opening, each flow, then variances
    (value that left the books, not a stock flow)."""
    return {"opening": f.opening, **f.flows, "variances": f.variances}
