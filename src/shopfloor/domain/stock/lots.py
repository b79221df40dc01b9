"""Which lots (or serial numbers) a document's lines move, resolved for the whole document
at once: one query for the lots it names, one insert for the lots it creates.

A serial number is a lot of one unit: the same rows, balances and trace serve both, and
"unique per item" is the lots' own unique key. Incoming stock of a tracked item names its
lots (several per line), or gets one from the item's numbering rule; outgoing stock names
lots or leaves them to first-expiring-first-out picking in the ledger.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from sqlalchemy import TextClause, select, text
from sqlalchemy.exc import IntegrityError

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.lot_ledger import BATCHES, LOTS, tracked

__all__ = ["Line", "LotIn", "Moved", "Part", "check_rule", "incoming", "outgoing", "tracked"]
from shopfloor.domain.base.sequences import reserve
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.bulk import insert_returning
from shopfloor.store.engine import RetryTransaction

PLACEHOLDERS = re.compile(r"\{(\w+)\}")
_NEW = ("id", "item_id", "lot_number")


class Tracked(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def sku(self) -> str: ...
    @property
    def batch_tracked(self) -> bool: ...
    @property
    def serial_tracked(self) -> bool: ...
    @property
    def lot_numbering(self) -> str | None: ...
    @property
    def shelf_life_days(self) -> int | None: ...


class LotIn(NamedTuple):
    """A lot named on a line; `quantity` None means the whole line."""

    lot: str
    quantity: Decimal | None = None
    expiry: date | None = None


class Moved(NamedTuple):
    """A line of stock as a caller names it: which item, how much, and its lots."""

    sku: str
    quantity: Decimal
    lots: tuple[LotIn, ...] = ()
    serials: tuple[str, ...] = ()
    allow_expired: bool = False


class Line(NamedTuple):
    item: Any
    """A `Tracked` item: an ORM `Item` or a `resolve.ItemRow`."""
    quantity: Decimal
    field: str
    lots: Sequence[LotIn] = ()
    serials: Sequence[str] = ()
    expiry: date | None = None
    """The expiry of a lot this line creates without naming one."""


class Part(NamedTuple):
    batch_id: int | None
    quantity: Decimal
    field: str


_JOINED = (f"SELECT b.id, b.item_id, b.lot_number FROM wanted JOIN {BATCHES.name} b "
           "ON b.item_id = wanted.item_id AND b.lot_number = wanted.lot_number")


@functools.cache
def _find(n: int) -> TextClause:
    """The lots of n (item, lot number) pairs, joined from the pairs to the lots' unique
    key: one index probe a pair. `item_id IN (...) AND lot_number IN (...)` had SQLite
    probe every combination of the two lists (40,000 probes, 4.5 ms, for a 200-line
    receipt). Text, since SQLAlchemy does not cache a statement over VALUES (compiling
    one took longer than the probes it saved)."""
    pairs = ", ".join(f"(:i_{k}, :n_{k})" for k in range(n))
    return text(f"WITH wanted (item_id, lot_number) AS (VALUES {pairs}) {_JOINED}")


_FIND_PG = ("WITH wanted (item_id, lot_number) AS (SELECT * FROM unnest("
            f"CAST(%(items)b AS INTEGER[]), CAST(%(lots)b AS VARCHAR[]))) {_JOINED}")
"""PostgreSQL: the pairs as two arrays (sent in binary), one short statement whatever
their number (psycopg parses a long one again on every call)."""


def check_rule(rule: str | None, fld: str = "lot_numbering") -> None:
    if rule is None:
        return
    unknown = set(PLACEHOLDERS.findall(rule)) - {"date", "seq", "sku"}
    if unknown:
        raise ValidationFailed(f"a lot numbering rule may use {{date}}, {{seq}} and {{sku}}, "
                               f"not {{{sorted(unknown)[0]}}}", field=fld)
    if len(_render(rule, "X" * 20, date.today(), 9999)) > 64:
        raise ValidationFailed("a lot numbering rule must give numbers of 64 characters or "
                               "fewer", field=fld)


def _render(rule: str, sku: str, today: date, seq: int) -> str:
    if "{seq}" not in rule:
        rule += "{seq}"
    return (rule.replace("{date}", today.strftime("%y%m%d")).replace("{sku}", sku)
            .replace("{seq}", f"{seq:04d}"))


def _split(op: Op, line: Line, incoming: bool
           ) -> list[tuple[str | None, Decimal, str, date | None]]:
    """The (lot number, quantity, field, expiry) parts of one line; a None lot number is
    one to generate (incoming) or to pick (outgoing)."""
    item, fld = line.item, line.field
    if not tracked(item):
        if line.lots or line.serials:
            raise ValidationFailed(f"{item.sku} is not lot- or serial-tracked; leave out lots "
                                   "and serials", field=f"{fld}.lots" if line.lots
                                   else f"{fld}.serials")
        return [(None, line.quantity, fld, None)]
    if item.serial_tracked:
        return _serial_parts(op, line, incoming)
    if line.serials:
        raise ValidationFailed(f"{item.sku} is tracked by lot, not serial number",
                               field=f"{fld}.serials")
    if not line.lots:
        if incoming and not item.lot_numbering:
            raise ValidationFailed(f"{item.sku} is lot-tracked and has no numbering rule: name "
                                   "the lot", field=f"{fld}.lots")
        return [(None, line.quantity, fld, line.expiry)]
    parts: list[tuple[str | None, Decimal, str, date | None]] = []
    named: set[str] = set()
    for j, lot in enumerate(line.lots):
        where = f"{fld}.lots[{j}]"
        if lot.lot in named:
            raise ValidationFailed(f"lot {lot.lot} appears twice", field=f"{where}.lot")
        named.add(lot.lot)
        qty = line.quantity if lot.quantity is None and len(line.lots) == 1 else lot.quantity
        if qty is None:
            raise ValidationFailed("with several lots on a line, give each its quantity",
                                   field=f"{where}.quantity")
        parts.append((lot.lot, qty, where, lot.expiry))
    total = sum((p[1] for p in parts), ZERO)
    if total != line.quantity:
        raise ValidationFailed(f"{item.sku}: the lots add up to {fmt(total)}, the line is "
                               f"{fmt(line.quantity)}", field=f"{fld}.lots")
    return parts


def _serial_parts(op: Op, line: Line, incoming: bool
                  ) -> list[tuple[str | None, Decimal, str, date | None]]:
    item, fld = line.item, line.field
    if line.lots:
        raise ValidationFailed(f"{item.sku} is serial-tracked: give serials, not lots",
                               field=f"{fld}.lots")
    if line.quantity != line.quantity.to_integral_value():
        raise ValidationFailed(f"{item.sku} is serial-tracked: quantities are whole units",
                               field=f"{fld}.quantity")
    if not line.serials:
        if incoming and item.lot_numbering:
            return [(None, Decimal(1), f"{fld}.serials", line.expiry)
                    for _ in range(int(line.quantity))]
        raise ValidationFailed(f"{item.sku} is serial-tracked: name its {fmt(line.quantity)} "
                               "serial numbers", field=f"{fld}.serials")
    if len(line.serials) != line.quantity:
        raise ValidationFailed(f"{item.sku}: {len(line.serials)} serial numbers for a quantity "
                               f"of {fmt(line.quantity)}", field=f"{fld}.serials")
    if len(set(line.serials)) != len(line.serials):
        raise ValidationFailed("a serial number appears twice", field=f"{fld}.serials")
    return [(s, Decimal(1), f"{fld}.serials[{j}]", line.expiry)
            for j, s in enumerate(line.serials)]


def _existing(op: Op, pairs: set[tuple[int, str]]) -> dict[tuple[int, str], int]:
    found: dict[tuple[int, str], int] = {}
    if not pairs:
        return found
    conn = op.session.connection()
    ordered = sorted(pairs)
    if conn.dialect.name == "postgresql":
        for r in conn.exec_driver_sql(_FIND_PG, {"items": [i for i, _ in ordered],
                                                 "lots": [n for _, n in ordered]}):
            found[(r.item_id, r.lot_number)] = r.id
        return found
    for start in range(0, len(ordered), 400):
        chunk = ordered[start:start + 400]
        params: dict[str, Any] = {}
        for k, (item_id, number) in enumerate(chunk):
            params[f"i_{k}"], params[f"n_{k}"] = item_id, number
        for r in conn.execute(_find(len(chunk)), params):
            found[(r.item_id, r.lot_number)] = r.id
    return found


def incoming(op: Op, lines: Sequence[Line]) -> list[list[Part]]:
    """The lots each line's stock comes in as: named lots found or created, new serials
    created (a serial that exists is refused), missing numbers generated by the rule."""
    plans = [_split(op, ln, incoming=True) for ln in lines]
    today = op.now.date()
    for ln, parts in zip(lines, plans, strict=True):
        blank = [k for k, p in enumerate(parts) if p[0] is None and tracked(ln.item)]
        if blank:
            rule = ln.item.lot_numbering or ""
            seqs = reserve(op, f"LOT:{ln.item.id}", len(blank))
            for k, seq in zip(blank, seqs, strict=True):
                _, qty, fld, expiry = parts[k]
                parts[k] = (_render(rule, ln.item.sku, today, seq), qty, fld, expiry)
    wanted = {(ln.item.id, p[0]) for ln, parts in zip(lines, plans, strict=True)
              for p in parts if p[0] is not None}
    found = _existing(op, wanted)
    new: dict[tuple[int, str], date | None] = {}
    for ln, parts in zip(lines, plans, strict=True):
        for number, _, fld, expiry in parts:
            if number is None:
                continue
            key = (ln.item.id, number)
            if key in found and ln.item.serial_tracked:
                raise Conflict(f"serial number {number} of {ln.item.sku} already exists",
                               field=fld, details={"sku": ln.item.sku, "serial": number})
            if key not in found:
                new[key] = expiry or _shelf_life(ln.item, today)
    if new:
        try:
            created = insert_returning(op.session.connection(), BATCHES, [
                {"item_id": i, "lot_number": n, "expiry": e, "held": False, "created_at": op.now,
                 "version": 1} for (i, n), e in new.items()], _NEW)
        except IntegrityError:
            raise RetryTransaction from None  # a racing document made one of them first
        book = stock.ledger(op).lots
        skus = {ln.item.id: ln.item.sku for ln in lines}
        for r in created:
            expires = new[(r.item_id, r.lot_number)]
            found[(r.item_id, r.lot_number)] = r.id
            book.fresh[r.id] = (r.lot_number, expires)
            op.change("lot", f"{skus[r.item_id]}/{r.lot_number}", "created", None,
                      f"expires {expires}" if expires else "no expiry")
    return [[Part(found[(ln.item.id, n)] if n is not None else None, q, f)
             for n, q, f, _ in parts] for ln, parts in zip(lines, plans, strict=True)]


def outgoing(op: Op, lines: Sequence[Line]) -> list[list[Part]]:
    """The lots each line names (resolved, refused when unknown); a line naming none
    leaves the choice to picking."""
    plans = [_split(op, ln, incoming=False) for ln in lines]
    wanted = {(ln.item.id, p[0]) for ln, parts in zip(lines, plans, strict=True)
              for p in parts if p[0] is not None}
    found = _existing(op, wanted)
    out: list[list[Part]] = []
    for ln, parts in zip(lines, plans, strict=True):
        row: list[Part] = []
        for number, qty, fld, _ in parts:
            if number is None:
                row.append(Part(None, qty, fld))
                continue
            batch = found.get((ln.item.id, number))
            if batch is None:
                kind = "serial number" if ln.item.serial_tracked else "lot"
                raise NotFound(f"{ln.item.sku} has no {kind} {number!r}",
                               field=fld if "serials" in fld else f"{fld}.lot")
            row.append(Part(batch, qty, fld))
        out.append(row)
    return out


def _shelf_life(item: Tracked, today: date) -> date | None:
    return today + timedelta(days=item.shelf_life_days) if item.shelf_life_days else None



def may_stop_tracking(op: Op, item: Any, fields: dict[str, Any]) -> None:
    """Turning tracking off while lots hold stock would strand it in lots nothing reads."""
    batch = fields.get("batch_tracked", item.batch_tracked)
    serial = fields.get("serial_tracked", item.serial_tracked)
    if (batch or serial) or not tracked(item):
        return
    held = op.session.execute(select(LOTS.c.id).where(LOTS.c.item_id == item.id,
                                                      LOTS.c.on_hand != 0).limit(1)).first()
    if held is not None:
        fld = "serial_tracked" if item.serial_tracked else "batch_tracked"
        raise Conflict(still_in_lots(item.sku), field=fld)


def still_in_lots(sku: str) -> str:
    return (f"{sku} still has stock in lots; move it out of them (ship, consume or adjust) "
            "before turning tracking off")
