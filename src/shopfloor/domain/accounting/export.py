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

from shopfloor.domain.accounting import entries
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
from shopfloor.store.types import as_stored, plain_text

PAGE = 2000
CHUNK = 500
"""Entries per piece of CSV text handed on: few pieces, each of a bounded size."""
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


Stored = int | str
"""An amount as the database stores it (`as_stored`), printed by `plain_text`."""
Line = tuple[str, Stored, Stored, Stored]
"""An entry's line per account: its code, then debit, credit and debit - credit."""


def _lines(op: Op, start: datetime | None, end: datetime | None
           ) -> Iterator[tuple[Entry, list[Line], str]]:
    """Entries oldest first, each with its lines summed per account and its partner: a
    page of entries at a time (by id, so any database and any transaction mode), then
    their lines in the order of the index on their entry (no sort, no grouping by the
    database), read as plain rows of what it stores and printed straight to text by
    `plain_text`, only the amounts a format shows: a million lines cost the memory of one
    page, no ORM row and no `Decimal` per amount (an account twice in an entry, which is
    rare, is summed here)."""
    e, ln = JournalEntry, JournalLine
    amounts = (as_stored(ln.debit, op.dialect), as_stored(ln.credit, op.dialect),
               as_stored(ln.debit - ln.credit, op.dialect))
    after = 0
    while True:
        stmt = select(e.id, e.posted_at, e.document_type, e.document_number, e.memo) \
            .where(e.id > after).order_by(e.id).limit(PAGE)
        if start is not None:
            stmt = stmt.where(e.posted_at >= start)
        if end is not None:
            stmt = stmt.where(e.posted_at < end)
        conn = op.session.connection()
        entries = [Entry(*r) for r in conn.execute(stmt).all()]
        if not entries:
            return
        found: dict[int, dict[str, tuple[Stored, Stored, Stored]]] = {}
        # the page's id range, not a list of its ids: one indexed range scan (an entry in
        # the range but outside the dates is read and left)
        for entry_id, account, *amount in conn.execute(
                select(ln.entry_id, ln.account, *amounts)
                .where(ln.entry_id.between(entries[0].id, entries[-1].id))
                .order_by(ln.entry_id, ln.id)).all():
            lines = found.setdefault(entry_id, {})
            had = lines.get(account)
            lines[account] = tuple(amount) if had is None else _added(had, amount)
        partners = _partners(op, entries)
        for x in entries:
            yield (x, [(a, *sums) for a, sums in found.get(x.id, {}).items()],
                   partners.get((x.document_type, x.document_number), ""))
        after = entries[-1].id


def _added(had: tuple[Stored, ...], more: list[Stored]) -> tuple[Stored, Stored, Stored]:
    """Two lines of one account in one entry, summed exactly in their stored form."""
    d, c, net = (a + b if isinstance(a, int) and isinstance(b, int)
                 else format(Decimal(a) + Decimal(b), "f")
                 for a, b in zip(had, more, strict=True))
    return d, c, net


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
    """A header, then one row per account of each entry, in chunks of many rows. The text
    fields are quoted by the csv module once each: an entry's (date, document, partner,
    memo) once per entry, an account's once per export; the amounts are plain numbers
    and never need quoting, so a row is those pieces joined."""
    names = chart(op).names()
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")

    def row(values: tuple[Any, ...]) -> str:
        buf.seek(0)
        buf.truncate()
        out.writerow(values)
        return buf.getvalue()

    accounts: dict[str, str] = {}
    chunk = [row(COLUMNS)]
    for i, (e, lines, partner) in enumerate(_lines(op, start, end)):
        head = f"{e.posted_at.date().isoformat()},{e.id},"
        tail = row((currency, e.document_type or "", cell(e.document_number or ""),
                    cell(partner), cell(e.memo)))
        for account, debit, credit, _ in lines:
            named = accounts.get(account)
            if named is None:
                known = names.get(account)
                named = accounts[account] = row(
                    (cell(account), cell(known.name if known else ""))).rstrip("\n")
            chunk.append(f"{head}{named},{plain_text(debit)},{plain_text(credit)},{tail}")
        if i % CHUNK == 0:
            yield "".join(chunk)
            chunk = []
    yield "".join(chunk)


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


class StockValue:
    """The stock's value at a run of ascending moments, from the ledger itself (not the
    journal): what the balance assertions hold the journal to. Each item and location's
    value is rounded to the currency's minor unit, as the journal's stock lines carry it
    (`entries`); each ledger row is summed once, by the database, in the span it falls
    in, and the running value per item and location is kept here."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.unit = entries.minor_unit(op)
        self.held: dict[tuple[int, int], Decimal] = defaultdict(lambda: ZERO)
        self.since: datetime | None = None
        self.total = ZERO
        """The sum of `held` each rounded, kept as they change."""

    def at(self, moment: datetime) -> Decimal:
        m = StockMovement
        stmt = select(m.item_id, m.location_id, func.sum(m.value)).where(
            m.created_at < moment).group_by(m.item_id, m.location_id)
        if self.since is not None:
            stmt = stmt.where(m.created_at >= self.since)
        unit = self.unit
        for item, loc, value in self.op.session.execute(stmt):
            if value:
                before = self.held[(item, loc)]
                after = self.held[(item, loc)] = before + value
                self.total += entries.to_unit(after, unit) - entries.to_unit(before, unit)
        self.since = moment
        return self.total


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

    named: dict[str, str] = {}

    def name(code: str) -> str:
        found = named.get(code)
        if found is None:
            found = named[code] = beancount_name(code, names.get(code), code in stock)
        return found

    yield f'option "title" "Stock journal"\noption "operating_currency" "{currency}"\n\n'
    yield f"{first.isoformat()} open {INVENTORY} {currency}\n"
    for code in sorted(codes):
        yield f"{first.isoformat()} open {name(code)} {currency}\n"
    yield "\n"
    assertions = iter(_month_ends(first, last))
    due = next(assertions)

    valued = StockValue(op)

    def balance(day: date) -> str:
        value = valued.at(datetime.combine(day, time(), tzinfo=UTC))
        return f"{day.isoformat()} balance {INVENTORY} {plain(value)} {currency}\n"

    for e, lines, partner in _lines(op, start, end):
        day = e.posted_at.date()
        while day >= due:
            yield balance(due)
            due = next(assertions)
        yield (f"{day.isoformat()} * {_quoted(partner)} {_quoted(e.memo)}"
               f"{_link(e.document_number)}\n")
        amounts = ((account, plain_text(net)) for account, _, _, net in lines)
        yield "".join(f"  {name(account)}  {net} {currency}\n"
                      for account, net in amounts if net != "0") + "\n"
    while True:
        yield balance(due)
        try:
            due = next(assertions)
        except StopIteration:
            return
