"""The accountant's tools: the accounts stock posts to, the journal, the trial balance and
the journal's exports (issue 31). Reading the books is the admin's: they show every value
the company holds, as the valuation's own figures do, and more (who was paid what)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Literal

from pydantic import Field

from shopfloor.domain.accounting import chart as books
from shopfloor.domain.accounting import export, reports
from shopfloor.domain.base.context import Op
from shopfloor.domain.buying import currencies
from shopfloor.kernel.errors import ValidationFailed
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.tools.fields import Amount, Cursor, Day, Kind, Out, Page, after_id

tools = Toolset("accounting")
PAGE = 100
Role_ = Literal["inventory", "wip", "payable", "grni", "landed_costs", "opening", "cogs",
                "adjustments", "scrap", "revaluation", "price_variance", "labour_absorbed",
                "exchange", "rounding"]
Code = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9.\-]*$")


class AccountOut(Out):
    role: str
    location: str | None = None
    item_kind: str | None = None
    code: str
    name: str
    kind: str | None = None


class AccountsOut(Out):
    accounts: list[AccountOut]


class NoArgs(Request):
    pass


@tools.read("get_stock_accounts", title="Stock accounts", response=AccountsOut,
            role=Role.admin,
            description="The accounts each kind of stock value posts to (inventory, GRNI, "
                        "cost of goods sold, variances ...), with rules per location or kind.")
def get_stock_accounts(op: Op, req: NoArgs) -> AccountsOut:
    return AccountsOut(accounts=[AccountOut(**a) for a in books.listed(op)])


class AccountRuleIn(Request):
    role: Role_
    code: str = Code
    name: str = Field(min_length=1, max_length=200)
    location: str | None = Field(None, max_length=64, description="only at this location")
    item_kind: Kind | None = Field(None, description="only for this kind of item")


class SetStockAccounts(WriteRequest):
    accounts: list[AccountRuleIn] = Field(min_length=1, max_length=100)


@tools.write("set_stock_accounts", title="Set stock accounts", response=AccountsOut,
             role=Role.admin, destructive=True,
             undo=Undo.refused("set the accounts again as they were"),
             description="Point kinds of stock value at your own accounts. Entries already "
                         "posted keep their accounts; later ones use these.")
def set_stock_accounts(op: Op, req: SetStockAccounts) -> Done[AccountsOut]:
    done = books.set_rules(op, [books.RuleSpec(a.role, a.code, a.name, a.location,
                                               a.item_kind) for a in req.accounts])
    words = ", ".join(f"{d['role']} to {d['code']} {d['name']}" for d in done)
    # the rules as set, not read back: a read would load the new rows, whose ids differ
    # between a preview and its apply on PostgreSQL (and so would stale every apply)
    return Done(f"Post {words}", AccountsOut(accounts=[
        AccountOut(**d, kind=books.kind_of(d["role"])) for d in done]))


def _moment(day: Day | None) -> datetime | None:
    return datetime.combine(day, time(), tzinfo=UTC) if day is not None else None


def _period(start: Day | None, end: Day | None) -> reports.Period:
    """Whole days, UTC: `end` is included."""
    if start is not None and end is not None and end < start:
        raise ValidationFailed("end is before start", field="end")
    return reports.Period(_moment(start),
                          _moment(end + timedelta(days=1)) if end is not None else None)


class TrialQuery(Request):
    start: Day | None = Field(None, description="first day of the period")
    end: Day | None = Field(None, description="last day (the balance as at its end)")


class TrialRow(Out):
    account: str
    name: str
    kind: str | None
    opening: Amount
    debit: Amount
    credit: Amount
    closing: Amount


class TrialOut(Out):
    currency: str
    rows: list[TrialRow]
    debit: Amount
    credit: Amount


@tools.read("get_trial_balance", title="Trial balance", response=TrialOut, role=Role.admin,
            description="Per account: opening, debits, credits and closing balance for a "
                        "period (or as at its end); debits equal credits.")
def get_trial_balance(op: Op, req: TrialQuery) -> TrialOut:
    rows = [TrialRow(**r) for r in reports.trial_balance(op, _period(req.start, req.end))]
    return TrialOut(currency=currencies.company(op), rows=rows,
                    debit=sum((r.debit for r in rows), start=ZERO),
                    credit=sum((r.credit for r in rows), start=ZERO))


class JournalQuery(Request):
    start: Day | None = None
    end: Day | None = None
    account: str | None = Field(None, max_length=32)
    document: str | None = Field(None, max_length=64, description="a document's number")
    cursor: Cursor | None = None


class LineOut(Out):
    account: str
    name: str
    debit: Amount
    credit: Amount
    sku: str | None = None
    location: str | None = None


class EntryOut(Out):
    id: int
    posted_at: datetime
    document_type: str | None
    document_number: str | None
    memo: str
    operation_id: str | None
    reverses: str | None
    lines: list[LineOut]


class JournalOut(Page):
    currency: str
    entries: list[EntryOut]


@tools.read("list_journal_entries", title="Journal entries", response=JournalOut,
            role=Role.admin,
            description="The balanced entries stock movements posted, oldest first: by "
                        "period, account or document.")
def list_journal_entries(op: Op, req: JournalQuery) -> JournalOut:
    after = after_id(req.cursor, "list_journal_entries")
    found, last = reports.entries(op, _period(req.start, req.end), account=req.account,
                                  document=req.document, after=after, limit=PAGE)
    return JournalOut(currency=currencies.company(op),
                      entries=[EntryOut(**e) for e in found],
                      next_cursor=str(last) if last is not None else None)


class ExportQuery(Request):
    format: Literal["csv", "beancount"] = "csv"
    start: Day | None = None
    end: Day | None = None


class ExportOut(Out):
    format: str
    currency: str
    text: str


@tools.read("export_journal", title="Export journal", response=ExportOut, role=Role.admin,
            description="The journal as CSV (header first, exact amounts) or as a beancount "
                        "ledger with month-end balance checks of the Inventory accounts.")
def export_journal(op: Op, req: ExportQuery) -> ExportOut:
    period = _period(req.start, req.end)
    home = currencies.company(op)
    lines = export.csv_lines if req.format == "csv" else export.beancount_lines
    return ExportOut(format=req.format, currency=home,
                     text="".join(lines(op, home, period.start, period.end)))
