"""Stock valuation: what the stock is worth now, at the end of a day, or over a period
with the flows that moved it (the figures an accountant closes a month with)."""

from __future__ import annotations

import base64
import json
from datetime import date, datetime

from pydantic import Field

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import valuation as books
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.registry.tool import Request, Toolset
from shopfloor.tools.fields import Amount, Cursor, Day, Key, Kind, Limit, Out, Page

tools = Toolset("stock")


class ValuationQuery(Request):
    sku: Key | None = None
    location: Key | None = None
    kind: Kind | None = None
    date: Day | None = Field(None, description="value at this day's end (UTC)")
    start: Day | None = Field(None, description="period: flows from this day")
    end: Day | None = Field(None, description="period's last day (default today)")
    limit: Limit = 200
    cursor: Cursor | None = None


class LotValueOut(Out):
    lot: str
    quantity: Amount
    value: Amount


class ValueTotals(Out):
    value: Amount
    opening: Amount | None = None
    flows: dict[str, Amount] | None = Field(
        None, description="period, signed: " + ", ".join(books.FLOWS))
    variances: Amount | None = Field(None, description="left the stock books")


class ValueRow(Out):
    sku: str
    name: str
    location: str
    quantity: Amount
    value: Amount
    opening: Amount | None = None
    flows: dict[str, Amount] | None = None
    variances: Amount | None = None
    lots: list[LotValueOut] = Field(default_factory=list)


class ValuationOut(Page):
    at: datetime | None = Field(description="values as at; null: now")
    start: date | None = None
    rows: list[ValueRow]
    total: ValueTotals


def _cursor(sku: str, location: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([sku, location]).encode()).decode()


def _after(cursor: str | None) -> tuple[str, str] | None:
    if cursor is None:
        return None
    try:
        sku, location = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if isinstance(sku, str) and isinstance(location, str):
            return sku, location
    except (ValueError, TypeError):
        pass
    raise ValidationFailed("not a cursor this tool returned", field="cursor")


@tools.read("get_stock_valuation", title="Stock valuation", response=ValuationOut,
            description="Stock value per item, location and lot, with totals; as at a "
                        "day's end, or a period's opening, flows and closing (ledger).")
def get_stock_valuation(op: Op, req: ValuationQuery) -> ValuationOut:
    when = books.window(op.now.date(), req.date, req.start, req.end)
    found = books.valuation(op, books.Scope(req.sku, req.location, req.kind), when,
                            limit=req.limit, after=_after(req.cursor))
    period = when.start is not None

    def row(f: books.Figure) -> ValueRow:
        return ValueRow(sku=f.sku, name=f.name, location=f.location, quantity=f.quantity,
                        value=f.value, opening=f.opening if period else None,
                        flows=f.flows if period else None,
                        variances=f.variances if period else None,
                        lots=[LotValueOut(lot=x.lot, quantity=x.quantity, value=x.value)
                              for x in f.lots])

    t = found.total
    total = ValueTotals(value=t.value, opening=t.opening if period else None,
                        flows=t.flows if period else None,
                        variances=t.variances if period else None)
    last = found.rows[-1] if found.rows else None
    return ValuationOut(
        at=when.upto, start=req.start if period else None, rows=[row(f) for f in found.rows],
        total=total, next_cursor=_cursor(last.sku, last.location) if found.more and last
        else None)
