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

from sqlalchemy import TextualSelect, bindparam, select, text, update
from sqlalchemy.exc import IntegrityError

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.sequences import reserve
from shopfloor.domain.stock import ledger as stock
from shopfloor.domain.stock.counted import exact
from shopfloor.domain.stock.lot_ledger import BATCHES, LOTS, tracked
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.bulk import executemany, insert_returning
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.tracking import reads_of, remember

__all__ = ["Line", "LotIn", "Moved", "Part", "check_rule", "incoming", "outgoing", "tracked"]

PLACEHOLDERS = re.compile(r"\{(\w+)\}")
_NEW = ("id", "item_id", "lot_number")
_EXPIRY = (update(BATCHES)
           .where(BATCHES.c.id == bindparam("b_id"), BATCHES.c.version == bindparam("b_version"))
           .values(expiry=bindparam("b_expiry"), version=bindparam("b_next")))


class Tracked(stock.Stocked, Protocol):
    """A stocked item with its lot rules."""

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
    change_expiry: bool = False
    """An existing lot named with another expiry takes it (else that is refused)."""
    expiry_field: str | None = None
    """Where the caller wrote `expiry`, when not on the lot (a document's one lot)."""


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


class _Plan(NamedTuple):
    """One part of a line before its lot is resolved: a None number is one to generate
    (incoming) or to pick (outgoing)."""

    number: str | None
    quantity: Decimal
    field: str
    expiry: date | None = None
    change_expiry: bool = False
    expiry_field: str | None = None


class _Found(NamedTuple):
    id: int
    expiry: date | None
    held: bool
    version: int


_JOINED = ("SELECT b.id, b.item_id, b.lot_number, b.version, b.expiry, b.held "
           f"FROM wanted JOIN {BATCHES.name} b "
           "ON b.item_id = wanted.item_id AND b.lot_number = wanted.lot_number")


@functools.cache
def _find(n: int) -> TextualSelect:
    """The lots of n (item, lot number) pairs, joined from the pairs to the lots' unique
    key: one index probe a pair. `item_id IN (...) AND lot_number IN (...)` had SQLite
    probe every combination of the two lists (40,000 probes, 4.5 ms, for a 200-line
    receipt). Text, since SQLAlchemy does not cache a statement over VALUES (compiling
    one took longer than the probes it saved)."""
    pairs = ", ".join(f"(:i_{k}, :n_{k})" for k in range(n))
    return text(f"WITH wanted (item_id, lot_number) AS (VALUES {pairs}) {_JOINED}"
                ).columns(BATCHES.c.id, BATCHES.c.item_id, BATCHES.c.lot_number,
                          BATCHES.c.version, BATCHES.c.expiry, BATCHES.c.held)


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


def _untracked(lines: Sequence[Line]) -> list[list[Part]] | None:
    """Where no line's item is tracked and none names a lot or serial (most documents):
    each line one part outside any lot, as `_split` would plan it, with nothing to read."""
    if any(ln.lots or ln.serials or tracked(ln.item) for ln in lines):
        return None
    return [[Part(None, ln.quantity, ln.field)] for ln in lines]


def _split(op: Op, line: Line, incoming: bool) -> list[_Plan]:
    """The parts of one line, by the lots it names (or leaves to generate or pick)."""
    item, fld = line.item, line.field
    if not tracked(item):
        if line.lots or line.serials:
            raise ValidationFailed(f"{item.sku} is not lot- or serial-tracked; leave out lots "
                                   "and serials", field=f"{fld}.lots" if line.lots
                                   else f"{fld}.serials")
        return [_Plan(None, line.quantity, fld)]
    if item.serial_tracked:
        return _serial_parts(op, line, incoming)
    if line.serials:
        raise ValidationFailed(f"{item.sku} is tracked by lot, not serial number",
                               field=f"{fld}.serials")
    if not line.lots:
        if incoming and not item.lot_numbering:
            raise ValidationFailed(f"{item.sku} is lot-tracked and has no numbering rule: name "
                                   "the lot", field=f"{fld}.lots")
        return [_Plan(None, line.quantity, fld, line.expiry)]
    parts: list[_Plan] = []
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
        if lot.quantity is not None:
            exact(lot.quantity, item, f"{where}.quantity")
        parts.append(_Plan(lot.lot, qty, where, lot.expiry, lot.change_expiry,
                           lot.expiry_field or f"{where}.expiry"))
    total = sum((p.quantity for p in parts), ZERO)
    if total != line.quantity:
        raise ValidationFailed(f"{item.sku}: the lots add up to {fmt(total)}, the line is "
                               f"{fmt(line.quantity)}", field=f"{fld}.lots")
    return parts


def _serial_parts(op: Op, line: Line, incoming: bool) -> list[_Plan]:
    item, fld = line.item, line.field
    if line.lots:
        raise ValidationFailed(f"{item.sku} is serial-tracked: give serials, not lots",
                               field=f"{fld}.lots")
    if line.quantity != line.quantity.to_integral_value():
        raise ValidationFailed(f"{item.sku} is serial-tracked: quantities are whole units",
                               field=f"{fld}.quantity")
    if not line.serials:
        if incoming and item.lot_numbering:
            return [_Plan(None, Decimal(1), f"{fld}.serials", line.expiry)
                    for _ in range(int(line.quantity))]
        raise ValidationFailed(f"{item.sku} is serial-tracked: name its {fmt(line.quantity)} "
                               "serial numbers", field=f"{fld}.serials")
    if len(line.serials) != line.quantity:
        raise ValidationFailed(f"{item.sku}: {len(line.serials)} serial numbers for a quantity "
                               f"of {fmt(line.quantity)}", field=f"{fld}.serials")
    if len(set(line.serials)) != len(line.serials):
        raise ValidationFailed("a serial number appears twice", field=f"{fld}.serials")
    return [_Plan(s, Decimal(1), f"{fld}.serials[{j}]", line.expiry)
            for j, s in enumerate(line.serials)]


def _existing(op: Op, pairs: set[tuple[int, str]]) -> dict[tuple[int, str], _Found]:
    found: dict[tuple[int, str], _Found] = {}
    if not pairs:
        return found
    conn = op.session.connection()
    ordered = sorted(pairs)
    if conn.dialect.name == "postgresql":
        for r in conn.exec_driver_sql(_FIND_PG, {"items": [i for i, _ in ordered],
                                                 "lots": [n for _, n in ordered]}):
            found[(r.item_id, r.lot_number)] = _Found(r.id, r.expiry, r.held, r.version)
        return found
    for start in range(0, len(ordered), 400):
        chunk = ordered[start:start + 400]
        params: dict[str, Any] = {}
        for k, (item_id, number) in enumerate(chunk):
            params[f"i_{k}"], params[f"n_{k}"] = item_id, number
        for r in conn.execute(_find(len(chunk)), params):
            found[(r.item_id, r.lot_number)] = _Found(r.id, r.expiry, r.held, r.version)
    return found


def incoming(op: Op, lines: Sequence[Line]) -> list[list[Part]]:
    """The lots each line's stock comes in as: named lots found or created, new serials
    created (a serial that exists is refused), missing numbers generated by the rule. An
    existing lot keeps its expiry unless a line asks to change it; coming in expired or
    into a held lot is said, not refused."""
    plain = _untracked(lines)
    if plain is not None:
        return plain
    plans = [_split(op, ln, incoming=True) for ln in lines]
    today = op.now.date()
    for ln, parts in zip(lines, plans, strict=True):
        blank = [k for k, p in enumerate(parts) if p.number is None and tracked(ln.item)]
        if blank:
            rule = ln.item.lot_numbering or ""
            seqs = reserve(op, f"LOT:{ln.item.id}", len(blank))
            for k, seq in zip(blank, seqs, strict=True):
                parts[k] = parts[k]._replace(number=_render(rule, ln.item.sku, today, seq))
    wanted = {(ln.item.id, p.number) for ln, parts in zip(lines, plans, strict=True)
              for p in parts if p.number is not None}
    found = _existing(op, wanted)
    seen = reads_of(op.session)
    new: dict[tuple[int, str], date | None] = {}
    changed: dict[tuple[int, str], tuple[date, str]] = {}
    for ln, parts in zip(lines, plans, strict=True):
        for p in parts:
            if p.number is None:
                continue
            key = (ln.item.id, p.number)
            lot = found.get(key)
            if lot is not None and ln.item.serial_tracked:
                raise Conflict(f"serial number {p.number} of {ln.item.sku} already exists",
                               field=p.field, details={"sku": ln.item.sku, "serial": p.number})
            if lot is None:
                new[key] = p.expiry or _shelf_life(ln.item, today)
                continue
            remember(seen, "batches", str(lot.id), lot.version)
            if _new_expiry(lot, p, ln.item.sku):
                assert p.expiry is not None
                changed[key] = (p.expiry, ln.item.sku)
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
            found[(r.item_id, r.lot_number)] = _Found(r.id, expires, False, 1)
            book.fresh[r.id] = (r.lot_number, expires)
            op.change("lot", f"{skus[r.item_id]}/{r.lot_number}", "created", None,
                      f"expires {expires}" if expires else "no expiry")
    if changed:
        _change_expiries(op, found, changed)
    _say_blocked(op, lines, plans, found, today)
    return [[Part(found[(ln.item.id, p.number)].id if p.number is not None else None,
                  p.quantity, p.field)
             for p in parts] for ln, parts in zip(lines, plans, strict=True)]


def _new_expiry(lot: _Found, part: _Plan, sku: str) -> bool:
    """Whether the part changes an existing lot's expiry. A lot has one expiry: another
    one named without asking is refused, not silently dropped (the old one kept)."""
    if part.expiry is None or part.expiry == lot.expiry:
        return False
    if not part.change_expiry:
        raise ValidationFailed(
            f"lot {part.number} of {sku} expires {lot.expiry or 'never (no expiry)'}, not "
            f"{part.expiry}: give its expiry or none, or set change_expiry to change the lot's",
            field=part.expiry_field or f"{part.field}.expiry")
    return True


def _change_expiries(op: Op, found: dict[tuple[int, str], _Found],
                     changed: dict[tuple[int, str], tuple[date, str]]) -> None:
    """One versioned update for every lot whose expiry a document changes; the lots this
    operation already read carry the new date too."""
    params = []
    for key, (expiry, sku) in changed.items():
        lot = found[key]
        op.change("lot", f"{sku}/{key[1]}", "expiry", lot.expiry, expiry)
        params.append({"b_id": lot.id, "b_version": lot.version, "b_expiry": expiry,
                       "b_next": lot.version + 1})
        found[key] = lot._replace(expiry=expiry, version=lot.version + 1)
    if executemany(op.session.connection(), _EXPIRY, params) not in (-1, len(params)):
        raise RetryTransaction
    now = {lot.id: lot.expiry for lot in found.values()}
    for place in stock.ledger(op).lots.known.values():
        for slot in place.values():
            if slot.batch_id in now:
                slot.expiry = now[slot.batch_id]


def _say_blocked(op: Op, lines: Sequence[Line], plans: Sequence[Sequence[_Plan]],
                 found: dict[tuple[int, str], _Found], today: date) -> None:
    """Stock coming into a held or expired lot is real and booked, but picking will skip
    it: the person confirming should know before they do."""
    said: set[tuple[str, int]] = set()
    for ln, parts in zip(lines, plans, strict=True):
        for p in parts:
            if p.number is None:
                continue
            lot = found[(ln.item.id, p.number)]
            if not lot.held and (lot.expiry is None or lot.expiry >= today):
                continue  # the common case: a usable lot, nothing to say
            kind = "serial number" if ln.item.serial_tracked else "lot"
            where = f"{kind} {p.number} of {ln.item.sku}"
            if lot.held and ("held", lot.id) not in said:
                said.add(("held", lot.id))
                op.warn("held_lot", f"{where} is on hold: what comes in stays held, not "
                        "picked, shipped or consumed until the lot is released", fld=p.field)
            if lot.expiry is not None and lot.expiry < today and ("expired", lot.id) not in said:
                said.add(("expired", lot.id))
                op.warn("expired_lot", f"{where} expired on {lot.expiry}: what comes in is "
                        "not picked for shipping or consumption",
                        fld=p.expiry_field if p.expiry is not None and p.expiry_field
                        else p.field)


def outgoing(op: Op, lines: Sequence[Line]) -> list[list[Part]]:
    """The lots each line names (resolved, refused when unknown); a line naming none
    leaves the choice to picking."""
    plain = _untracked(lines)
    if plain is not None:
        return plain
    plans = [_split(op, ln, incoming=False) for ln in lines]
    wanted = {(ln.item.id, p.number) for ln, parts in zip(lines, plans, strict=True)
              for p in parts if p.number is not None}
    found = _existing(op, wanted)
    out: list[list[Part]] = []
    for ln, parts in zip(lines, plans, strict=True):
        row: list[Part] = []
        for p in parts:
            if p.number is None:
                row.append(Part(None, p.quantity, p.field))
                continue
            lot = found.get((ln.item.id, p.number))
            if lot is None:
                kind = "serial number" if ln.item.serial_tracked else "lot"
                raise NotFound(f"{ln.item.sku} has no {kind} {p.number!r}",
                               field=p.field if "serials" in p.field else f"{p.field}.lot")
            row.append(Part(lot.id, p.quantity, p.field))
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
