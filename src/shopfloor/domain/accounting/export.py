"""The journal as files an accounting system takes: CSV, and a beancount ledger whose own
checker (`bean-check`) proves it balances and that its Inventory accounts equal the stock
valuation at every month end.

Both stream: the journal is read a page of entries at a time and written line by line, so
a million lines cost the memory of one page.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import func, select

from shopfloor.domain.accounting.chart import KIND_DEFAULTS, STOCK_ROLE, Account, Chart, chart
from shopfloor.domain.base.context import Op
from shopfloor.kernel.numbers import ZERO
from shopfloor.kernel.text import cell
from shopfloor.store.tables import (
    Customer,
    JournalEntry,
    JournalLine,
    PurchaseOrder,
    SalesOrder,
    StockMovement,
    Supplier,
    SupplierBill,
)

PAGE = 2000
COLUMNS = ("date", "entry", "account", "account_name", "debit", "credit", "currency",
           "document_type", "document", "partner", "memo")
TOP = {"asset": "Assets", "liability": "Liabilities", "equity": "Equity",
       "expense": "Expenses"}


class Entry(NamedTuple):
    id: int
    posted_at: datetime
    document_type: str | None
    document_number: str | None
    memo: str


Summed = tuple[Entry, dict[str, list[Decimal]]]


def _lines(op: Op, start: datetime | None, end: datetime | None
           ) -> Iterator[tuple[Entry, list[tuple[str, Decimal, Decimal]], str]]:
    """Entries oldest first, each with its lines summed per account and its partner: a
    page of entries at a time (by id, so any database and any transaction mode), then
    their lines, as plain rows, not ORM objects: a million lines cost the memory of one
    page and no identity map, and an entry's date is converted once, not per line."""
    e, ln = JournalEntry, JournalLine
    after = 0
    while True:
        stmt = select(e.id, e.posted_at, e.document_type, e.document_number, e.memo) \
            .where(e.id > after).order_by(e.id).limit(PAGE)
        if start is not None:
            stmt = stmt.where(e.posted_at >= start)
        if end is not None:
            stmt = stmt.where(e.posted_at < end)
        entries = [Entry(*r) for r in op.session.execute(stmt)]
        if not entries:
            return
        sums: dict[int, dict[str, list[Decimal]]] = defaultdict(
            lambda: defaultdict(lambda: [ZERO, ZERO]))
        for entry_id, account, debit, credit in op.session.execute(
                select(ln.entry_id, ln.account, ln.debit, ln.credit)
                .where(ln.entry_id.in_([x.id for x in entries])).order_by(ln.id)):
            pair = sums[entry_id][account]
            pair[0] += debit
            pair[1] += credit
        yield from _named(op, [(x, sums[x.id]) for x in entries])
        after = entries[-1].id


def _named(op: Op, page: list[Summed]
           ) -> Iterator[tuple[Entry, list[tuple[str, Decimal, Decimal]], str]]:
    partners = _partners(op, [entry for entry, _ in page])
    for entry, sums in page:
        yield (entry, [(acc, d, c) for acc, (d, c) in sums.items()],
               partners.get((entry.document_type, entry.document_number), ""))


def _partners(op: Op, page: list[Entry]) -> dict[tuple[str | None, str | None], str]:
    pos = {e.document_number for e in page if e.document_type == "purchase_order"}
    sos = {e.document_number for e in page if e.document_type == "sales_order"}
    bills = {e.document_number for e in page if e.document_type == "supplier_bill"}
    out: dict[tuple[str | None, str | None], str] = {}
    if pos:
        out.update((("purchase_order", n), name) for n, name in op.session.execute(
            select(PurchaseOrder.number, Supplier.name).join(
                Supplier, Supplier.id == PurchaseOrder.supplier_id)
            .where(PurchaseOrder.number.in_(pos))))
    if sos:
        out.update((("sales_order", n), name) for n, name in op.session.execute(
            select(SalesOrder.number, Customer.name).join(
                Customer, Customer.id == SalesOrder.customer_id)
            .where(SalesOrder.number.in_(sos))))
    if bills:
        out.update((("supplier_bill", n), name) for n, name in op.session.execute(
            select(SupplierBill.number, Supplier.name).join(
                Supplier, Supplier.id == SupplierBill.supplier_id)
            .where(SupplierBill.number.in_(bills))))
    return out


def plain(amount: Decimal) -> str:
    """An exact decimal as a plain number (never 1E+3 or 0E-6)."""
    text = format(amount.normalize(), "f")
    return "0" if text in ("-0", "") else text


def csv_lines(op: Op, currency: str, start: datetime | None = None,
              end: datetime | None = None) -> Iterator[str]:
    """A header, then one row per account of each entry."""
    names = chart(op).names()
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")

    def row(values: tuple[Any, ...]) -> str:
        buf.seek(0)
        buf.truncate()
        out.writerow(values)
        return buf.getvalue()

    yield row(COLUMNS)
    for e, lines, partner in _lines(op, start, end):
        for account, debit, credit in lines:
            known = names.get(account)
            yield row((e.posted_at.date().isoformat(), e.id, cell(account),
                       cell(known.name if known else ""), plain(debit), plain(credit),
                       currency, e.document_type or "", cell(e.document_number or ""),
                       cell(partner), cell(e.memo)))


INVENTORY = "Assets:Inventory"
"""The parent of every stock account: its balance assertion is the whole valuation, which
holds whichever accounts a company's rules named for each movement."""


def beancount_name(account: str, known: Account | None, stock: bool = False) -> str:
    """`Assets:Inventory:1310-Inventory-Raw-Materials`, `Liabilities:2110-Goods-...`:
    beancount's components start with a capital or a digit and hold letters, digits and
    dashes only."""
    words = re.findall(r"[A-Za-z0-9]+", known.name if known else "")
    top = INVENTORY if stock else TOP[known.kind] if known else "Expenses"
    code = re.sub(r"[^A-Za-z0-9]", "", account) or "X"
    return f"{top}:{'-'.join([code, *(w.capitalize() for w in words)])}"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _link(number: str | None) -> str:
    link = re.sub(r"[^A-Za-z0-9\-_/.]", "-", number or "")
    return f" ^{link}" if link else ""


def _month_ends(first: date, last: date) -> list[date]:
    """The first day of each month after `first`'s, up to the month after `last`'s: a
    balance assertion on that day checks the month before it."""
    out, y, m = [], first.year, first.month
    while True:
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        out.append(date(y, m, 1))
        if (y, m) > (last.year, last.month):
            return out


def stock_value(op: Op, moment: datetime) -> Decimal:
    """The stock's value at `moment` from the ledger itself (not the journal): what the
    balance assertions hold the journal to."""
    found = op.session.scalar(select(func.coalesce(func.sum(StockMovement.value), ZERO))
                              .where(StockMovement.created_at < moment))
    return Decimal(found or ZERO)


def _stock_codes(c: Chart) -> set[str]:
    """The stock accounts the rules name now (for all, per kind and per location)."""
    out = {c.account(STOCK_ROLE).code}
    out |= {a.code for (role, _), a in KIND_DEFAULTS.items() if role == STOCK_ROLE}
    out |= {a.code for (role, _, _), a in c.rules.items() if role == STOCK_ROLE}
    return out


def beancount_lines(op: Op, currency: str, start: datetime | None = None,
                    end: datetime | None = None) -> Iterator[str]:
    """Open directives, one transaction per entry (its document as a link), and at each
    month end a balance assertion on the Inventory accounts together."""
    c = chart(op)
    names = c.names()
    bounds = op.session.execute(select(func.min(JournalEntry.posted_at),
                                       func.max(JournalEntry.posted_at))).one()
    first = (start or bounds[0] or op.now).date()
    last = (end or bounds[1] or op.now).date()
    used = op.session.execute(select(JournalLine.account, JournalLine.role).distinct()).all()
    stock = {code for code, role in used if role == STOCK_ROLE} | _stock_codes(c)
    codes = {code for code, _ in used} | stock

    def name(code: str) -> str:
        return beancount_name(code, names.get(code), code in stock)

    yield f'option "title" "Stock journal"\noption "operating_currency" "{currency}"\n\n'
    yield f"{first.isoformat()} open {INVENTORY} {currency}\n"
    for code in sorted(codes):
        yield f"{first.isoformat()} open {name(code)} {currency}\n"
    yield "\n"
    assertions = iter(_month_ends(first, last))
    due = next(assertions)

    def balance(day: date) -> str:
        value = stock_value(op, datetime.combine(day, time(), tzinfo=UTC))
        return f"{day.isoformat()} balance {INVENTORY} {plain(value)} {currency}\n"

    for e, lines, partner in _lines(op, start, end):
        day = e.posted_at.date()
        while day >= due:
            yield balance(due)
            due = next(assertions)
        yield (f"{day.isoformat()} * {_quoted(partner)} {_quoted(e.memo)}"
               f"{_link(e.document_number)}\n")
        for account, debit, credit in lines:
            amount = debit - credit
            if amount:
                yield f"  {name(account)}  {plain(amount)} {currency}\n"
        yield "\n"
    while True:
        yield balance(due)
        try:
            due = next(assertions)
        except StopIteration:
            return
