"""The journal's one writer: every entry, whoever builds it (the per-operation drafts of
what stock moved, a supplier's bill), is checked against the period lock, proved
balanced and written with the same prepared statements here.

One writer keeps the rules an entry must satisfy in one place: a new kind of entry cannot
skip the lock or post an unbalanced entry by writing its rows itself.

Lines are posted in the books' currency's minor units (cents for EUR, Babel's digits),
while the stock is valued to six decimals a row. Each line is rounded on its own and what
the rounding leaves over (a debit and a credit of one exact amount round alike, so only an
entry of three or more lines leaves any) goes to the Rounding account, so every entry
balances to the cent. A stock line is not rounded on its own: it is the step in its item
and location's value rounded to cents (the value after it, rounded, less the value before
it, rounded). So an item's stock lines always add up to its value at that place rounded to
cents, however many sub-cent steps it took, and the Inventory accounts equal the stock
valuation's rows each rounded to cents, what a valuation printed to the cent shows and
sums. Rounding each line on its own instead would let the account drift from the
valuation by up to half a cent per movement; rounding the whole stock's value at once
would need the whole stock's exact value on every write. A posting dated before rows
already written takes its step from its place's value as at its own date, and restates
the cents at each later date (`restated`), so every date's balance is in cents too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from functools import cache

from babel.numbers import get_currency_precision
from sqlalchemy import Connection, delete, insert

from shopfloor.domain.accounting import restated, stamp
from shopfloor.domain.accounting.chart import STOCK_ROLE, chart
from shopfloor.domain.base import books, period_lock
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Internal
from shopfloor.kernel.numbers import ZERO
from shopfloor.store.bulk import executemany, insert_with_parent
from shopfloor.store.tables import JournalEntry, JournalLine

Key = tuple[str, str, int | None, int | None]
"""A line's role, account code, item and location (the last two on stock lines only)."""


@dataclass
class Draft:
    """One entry being built: its lines summed per (role, account, item, location)."""

    posted_at: datetime
    document_type: str | None
    document_number: str | None
    memo: str
    reverses: str | None = None
    counter: str = "adjustments"
    """The role that balances the entry's variances when they name no other."""
    lines: dict[Key, Decimal] = field(default_factory=lambda: defaultdict(lambda: ZERO))

    def add(self, role: str, account: str, amount: Decimal, item_id: int | None = None,
            location_id: int | None = None) -> None:
        """`amount` signed: positive a debit, negative a credit."""
        if amount:
            self.lines[(role, account, item_id, location_id)] += amount

    def posts(self) -> bool:
        return any(self.lines.values())


Held = Callable[[int, int], Decimal]
"""The stock's exact value at an item and location once the entries' rows are in."""


def minor_unit(op: Op) -> Decimal:
    """The books' currency's smallest amount: 0.01 for EUR, 1 for JPY."""
    return _unit(books.currency(op))


@cache
def _unit(currency: str) -> Decimal:
    return Decimal(1).scaleb(-get_currency_precision(currency))


def to_unit(amount: Decimal, unit: Decimal) -> Decimal:
    """The one rounding of the books (half to even, as the stock's own)."""
    return amount.quantize(unit, rounding=ROUND_HALF_EVEN)


def write(op: Op, drafts: list[Draft], *, held: Held | None = None,
          history: bool = False) -> None:
    """Write `drafts` as entries (in order) of `op`, in the currency's minor units.
    `held`: where the drafts have stock lines, each item and location's exact value after
    them. `history`: a database's past, posted as it happened, whatever is locked now.
    Refuses (PeriodLocked) an entry dated on or before the lock; an entry whose exact
    debits and credits differ is a bug in its builder, never written."""
    drafts = [d for d in drafts if d.posts()]
    if not drafts:
        return
    if not history:
        period_lock.guard(op, (d.posted_at for d in drafts))
    for d in drafts:
        off = sum(d.lines.values(), ZERO)
        if off:
            raise Internal(f"the entry {d.memo!r} for {d.document_number} is off by {off}: "
                           "not posted")
    conn = op.session.connection()
    # the books' stamp read in the entry's own statement, where the chart was the kept one
    trusting = stamp.trusting(op.session)
    if len(drafts) == 1 and not history:  # nearly every write (history is mostly dated
        _write_one(op, conn, drafts[0], held, trusting)  # before rows already there)
        return
    drafts += _round(op, drafts, held)
    ids = conn.execute(_ENTRIES, [_entry(op, d) for d in drafts]).scalars().all()
    _insert_lines(conn, ids, drafts)


def _write_one(op: Op, conn: Connection, d: Draft, held: Held | None,
               trusting: bool) -> None:
    """One entry and its lines in one statement (PostgreSQL) or on one cursor (SQLite),
    with the books' stamp and the probe for ledger rows dated after it (`restated`) read
    in the entry's RETURNING: its lines are rounded as if none were, since nearly none
    are. Where the probe finds one and the entry has stock lines (a back-dated write),
    its lines are written again, rounded as at their date, and the entries restating
    its cents follow it."""
    raw = dict(d.lines)
    _round(op, [d], held, {})
    read = insert_with_parent(conn, _ENTRY_ROW, _entry(op, d), _LINES, "entry_id",
                              _lines(d), _READS)
    if read is None:  # (no line left once rounded, or a database of another kind)
        d.lines = defaultdict(lambda: ZERO, raw)
        drafts = [d, *_round(op, [d], held)]
        ids = conn.execute(_ENTRIES, [_entry(op, e) for e in drafts]).scalars().all()
        _insert_lines(conn, ids, drafts)
        return
    entry_id, now, later = read
    if trusting:
        stamp.confirm(op.session, now)
    if later and op.operation_id is not None and any(
            role == STOCK_ROLE and item is not None and loc is not None
            for role, _, item, loc in raw):
        conn.execute(delete(JournalLine).where(JournalLine.entry_id == entry_id))
        d.lines = defaultdict(lambda: ZERO, raw)
        _rest(op, conn, entry_id, d, _round(op, [d], held))


def _rest(op: Op, conn: Connection, entry_id: int, d: Draft, extra: list[Draft]) -> None:
    """An entry's lines, after it is written, and the entries restating its cents."""
    ids = [entry_id]
    if extra:
        ids += conn.execute(_ENTRIES, [_entry(op, e) for e in extra]).scalars().all()
    _insert_lines(conn, ids, [d, *extra])


def _entry(op: Op, d: Draft) -> dict[str, object]:
    return {"posted_at": d.posted_at, "operation_id": op.operation_id,
            "document_type": d.document_type, "document_number": d.document_number,
            "memo": d.memo, "reverses": d.reverses, "created_at": op.now}


def _insert_lines(conn: Connection, ids: Sequence[int], drafts: list[Draft]) -> None:
    executemany(conn, _LINES, [{"entry_id": entry_id, **line} for entry_id, d in
                               zip(ids, drafts, strict=True) for line in _lines(d)])


def _lines(d: Draft) -> list[dict[str, object]]:
    """A rounded draft's lines as rows (without their entry)."""
    return [{"account": account, "role": role, "debit": amount if amount > 0 else ZERO,
             "credit": -amount if amount < 0 else ZERO, "item_id": item_id,
             "location_id": location_id, "posted_at": d.posted_at}
            for (role, account, item_id, location_id), amount in d.lines.items() if amount]


def _round(op: Op, drafts: list[Draft], held: Held | None,
           later: restated.Later | None = None) -> list[Draft]:
    """Every line to the minor unit, stock lines as steps of their place's rounded value
    (see the module), the residue of each entry to Rounding. Returns the entries that
    restate a back-dated posting's cents at the later dates (`restated`): `later`, the
    rows dated after the drafts, where already known ({} where none are)."""
    unit = minor_unit(op)
    moved: dict[tuple[int, int], Decimal] = defaultdict(lambda: ZERO)
    first: dict[tuple[int, int], tuple[Draft, str]] = {}
    for d in drafts:
        for (role, account, item, loc), amount in d.lines.items():
            if role == STOCK_ROLE and item is not None and loc is not None:
                moved[(item, loc)] += amount
                first.setdefault((item, loc), (d, account))
    if moved and held is None:
        raise Internal("stock lines need their places' values to round")
    if later is None:
        later = restated.later(op, list(moved), min(d.posted_at for d, _ in first.values())) \
            if moved else {}
    if held is None:
        value = {}
    elif later:
        value = {k: held(*k) - v - sum((a for _, a in later.get(k, ())), ZERO)
                 for k, v in moved.items()}
    else:
        value = {k: held(*k) - v for k, v in moved.items()}
    at_date = dict(value) if later else value
    rounding = ""  # (looked up where a residue needs it: a two-line entry leaves none)
    for d in drafts:
        lines: dict[Key, Decimal] = defaultdict(lambda: ZERO)
        for key, amount in d.lines.items():
            role, _, item, loc = key
            if role == STOCK_ROLE and item is not None and loc is not None:
                before = value[(item, loc)]
                value[(item, loc)] = before + amount
                lines[key] += (before + amount).quantize(unit, ROUND_HALF_EVEN) - \
                    before.quantize(unit, ROUND_HALF_EVEN)
            else:
                lines[key] += amount.quantize(unit, ROUND_HALF_EVEN)
        residue = -sum(lines.values(), ZERO)
        if residue:
            rounding = rounding or chart(op).account("rounding").code
            lines[("rounding", rounding, None, None)] += residue
        d.lines = lines
    if later:
        rounding = rounding or chart(op).account("rounding").code
    out: dict[datetime, Draft] = {}
    for k, rows in later.items():
        d, account = first[k]
        for when, amount in restated.steps(rows, at_date[k], moved[k],
                                           lambda v: to_unit(v, unit)):
            r = out.get(when) or out.setdefault(when, Draft(
                when, d.document_type, d.document_number, f"{d.memo}: cents as at this date"))
            r.add(STOCK_ROLE, account, amount, *k)
            r.add("rounding", rounding, -amount)
    return [out[k] for k in sorted(out)]


# Built once: a statement made per call is compiled-cache keyed again on every apply
_ENTRIES = insert(JournalEntry).returning(JournalEntry.id, sort_by_parameter_order=True)
_ENTRY_ROW = insert(JournalEntry)
_LINES = insert(JournalLine)
_READS = (stamp.STAMP, restated.dated_after(JournalEntry.__tablename__))
"""Read in the entry's RETURNING: the books' stamp, a ledger row dated after it."""
