"""Stock per lot inside one operation: read with the balances, moved in memory, written
once, like the balances themselves (see `stock.Ledger`, which owns one of these).

Picking is first-expiring-first-out: lots that expire soonest leave first, lots without an
expiry after every dated one, ties by age. A held lot and an expired lot are never picked
on their own; naming one is the only way to move it (an expired one needs
`allow_expired`; a held one can be moved or scrapped, never shipped or consumed). Stock
of a tracked item that predates its tracking (the balance minus its lots) leaves last.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Literal, NamedTuple

from sqlalchemy import ColumnElement, Select, and_, bindparam, select, update
from sqlalchemy.exc import IntegrityError

from shopfloor.domain.base.context import Op
from shopfloor.domain.base.resolve import keyed, values
from shopfloor.kernel.errors import Conflict, InsufficientStock
from shopfloor.kernel.numbers import ZERO, fmt
from shopfloor.store.bulk import executemany, insert_returning
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.tables import Batch, LotBalance, table
from shopfloor.store.tracking import saw_row

LOTS = table(LotBalance)
BATCHES = table(Batch)
USES = frozenset({"shipment", "consumption"})
"""Reasons that put stock to use: a held lot may be moved or scrapped, not used."""

_COLUMNS = (LOTS.c.id, LOTS.c.item_id, LOTS.c.batch_id, LOTS.c.on_hand, LOTS.c.version,
            BATCHES.c.lot_number, BATCHES.c.expiry, BATCHES.c.held,
            BATCHES.c.version.label("batch_version"))
_UPDATE = (update(LOTS)
           .where(LOTS.c.id == bindparam("l_id"), LOTS.c.version == bindparam("l_version"))
           .values(on_hand=bindparam("l_on_hand"), version=bindparam("l_next")))
_INSERT = ("id", "item_id", "location_id", "batch_id")
_ONE = (select(BATCHES.c.id, BATCHES.c.lot_number, BATCHES.c.expiry, BATCHES.c.held,
               BATCHES.c.version, LOTS.c.id.label("lot_id"), LOTS.c.on_hand,
               LOTS.c.version.label("lot_version"))
        .select_from(BATCHES.outerjoin(LOTS, (LOTS.c.batch_id == BATCHES.c.id)
                                       & (LOTS.c.location_id == bindparam("location_id"))))
        .where(BATCHES.c.id == bindparam("batch_id")))


@functools.cache
def _load(n: int) -> Select[Any]:
    """The lots with stock of many items at one location: what picking chooses from."""
    return (select(*_COLUMNS).join(BATCHES, BATCHES.c.id == LOTS.c.batch_id)
            .where(LOTS.c.location_id == bindparam("location_id"), keyed(LOTS.c.item_id, n),
                   LOTS.c.on_hand != 0))


@dataclass
class LotSlot:
    id: int | None
    item_id: int
    location_id: int
    batch_id: int
    lot_number: str
    expiry: date | None
    held: bool
    on_hand: Decimal
    version: int
    dirty: bool = False

    def expired(self, today: date) -> bool:
        return self.expiry is not None and self.expiry < today

    def blocked(self, today: date) -> BlockedBy | None:
        return blocked(self.held, self.expiry, today)


BlockedBy = Literal["held", "expired"]


def blocked(held: bool, expiry: date | None, today: date) -> BlockedBy | None:
    """Why picking may not take a lot's stock (None: it may). The one rule: picking skips
    these lots, so availability, promises, planning and warnings leave their stock out;
    `blocked_sql` is the same rule for a query. A held lot that has also expired counts as
    held (releasing it would not make it usable)."""
    if held:
        return "held"
    if expiry is not None and expiry < today:
        return "expired"
    return None


def blocked_sql(today: date) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """`blocked` as conditions on BATCHES: (held, expired and not held)."""
    return (BATCHES.c.held.is_(True),
            and_(BATCHES.c.held.is_(False), BATCHES.c.expiry < today))


def describe(slots: Iterable[LotSlot]) -> str:
    """'lot L2 6 on hold, lot L3 2 expired 2026-11-01': the lots picking skips, for a
    message."""
    return ", ".join(f"lot {s.lot_number} {fmt(s.on_hand)} "
                     + ("on hold" if s.held else f"expired {s.expiry}") for s in slots)


class Picked(NamedTuple):
    """One lot a movement took or gave: what a preview shows and a result reports."""

    sku: str
    location: str
    lot: str | None
    expiry: date | None
    quantity: Decimal
    field: str | None
    batch_id: int | None = None
    value: Decimal = Decimal(0)
    """The signed value the row moved (a transfer carries it to the other side)."""


def tracked(item: Any) -> bool:
    try:  # an item row or an `Item` (asked four times a document line)
        return bool(item.batch_tracked or item.serial_tracked)
    except AttributeError:
        return bool(getattr(item, "batch_tracked", False)
                    or getattr(item, "serial_tracked", False))


class LotBook:
    """Lots are read lazily: a document that only brings stock in never reads the lots it
    does not touch. The first time picking needs the lots of an item at a location, the
    lots of every tracked item the document prefetched there are read in one query."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.known: dict[tuple[int, int], dict[int, LotSlot]] = {}
        """Every lot slot seen, per (item, location); complete where `loaded`."""
        self.loaded: set[tuple[int, int]] = set()
        self.wanted: dict[int, set[int]] = {}
        """Per location, the tracked items the document will move there."""
        self.fresh: dict[int, tuple[str, date | None]] = {}
        """Batches created by this operation (lot number, expiry): no stock anywhere yet."""
        self.picked: list[Picked] = []

    def _slots(self) -> Iterable[LotSlot]:
        return (s for place in self.known.values() for s in place.values())

    @property
    def pending(self) -> bool:
        return any(s.dirty for s in self._slots())

    def want(self, item_ids: Iterable[int], location_id: int) -> None:
        self.wanted.setdefault(location_id, set()).update(item_ids)

    def load(self, item_ids: Iterable[int], location_id: int) -> None:
        ids = sorted({i for i in item_ids if (i, location_id) not in self.loaded})
        conn = self.op.session.connection()
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            for r in conn.execute(_load(len(chunk)),
                                  {"location_id": location_id, **values(LOTS.c.item_id, chunk)}):
                place = self.known.setdefault((r.item_id, location_id), {})
                if r.batch_id in place:
                    continue  # already read (or moved) by this operation: keep that
                saw_row(self.op.session, "batches", str(r.batch_id), r.batch_version)
                place[r.batch_id] = LotSlot(r.id, r.item_id, location_id, r.batch_id,
                                            r.lot_number, r.expiry, r.held, r.on_hand, r.version)
            self.loaded.update((i, location_id) for i in chunk)

    def lots(self, item_id: int, location_id: int) -> dict[int, LotSlot]:
        if (item_id, location_id) not in self.loaded:
            self.load({item_id, *self.wanted.get(location_id, ())}, location_id)
        return self.known.setdefault((item_id, location_id), {})

    def slot(self, item_id: int, location_id: int, batch_id: int) -> LotSlot:
        """A lot at a location, even one with no stock there (one query, unless this
        operation created the lot or has read it)."""
        place = self.known.setdefault((item_id, location_id), {})
        found = place.get(batch_id)
        if found is not None:
            return found
        if batch_id in self.fresh:
            number, expiry = self.fresh[batch_id]
            found = place[batch_id] = LotSlot(None, item_id, location_id, batch_id, number,
                                              expiry, False, ZERO, 1)
            return found
        r = self.op.session.connection().execute(
            _ONE, {"batch_id": batch_id, "location_id": location_id}).one()
        saw_row(self.op.session, "batches", str(r.id), r.version)
        if r.lot_id is None:
            found = LotSlot(None, item_id, location_id, batch_id, r.lot_number, r.expiry, r.held,
                            ZERO, 1)
        else:
            found = LotSlot(r.lot_id, item_id, location_id, batch_id, r.lot_number, r.expiry,
                            r.held, r.on_hand, r.lot_version)
        place[batch_id] = found
        return found

    def fefo(self, item_id: int, location_id: int) -> list[LotSlot]:
        """The lots picking may take, in the order it takes them."""
        today = self.op.now.date()
        usable = [s for s in self.lots(item_id, location_id).values()
                  if s.on_hand > 0 and s.blocked(today) is None]
        return sorted(usable, key=lambda s: (s.expiry or date.max, s.batch_id))

    def unusable(self, item_id: int, location_id: int) -> list[LotSlot]:
        today = self.op.now.date()
        return [s for s in self.lots(item_id, location_id).values()
                if s.on_hand > 0 and s.blocked(today) is not None]

    def held_back(self, item: Any, location_id: int) -> tuple[Decimal, str]:
        """An item's stock at a location that picking would skip (held or expired lots),
        and those lots described for a warning: (0, "") for an untracked item."""
        if not tracked(item):
            return ZERO, ""
        slots = self.unusable(item.id, location_id)
        return sum((s.on_hand for s in slots), ZERO), describe(slots)

    def in_lots(self, item_id: int, location_id: int) -> Decimal:
        return sum((s.on_hand for s in self.lots(item_id, location_id).values()), ZERO)

    def check_named(self, lot: LotSlot, quantity: Decimal, reason: str, sku: str,
                    location: str, allow_expired: bool, fld: str | None) -> None:
        """A lot named for an outgoing movement: it must hold the quantity, and be usable."""
        where = f"lot {lot.lot_number} of {sku} at {location}"
        if lot.held and reason in USES:
            self.op.refuse(Conflict(f"{where} is on hold and cannot be {_used(reason)}",
                                    field=fld, details={"lot": lot.lot_number}))
        if lot.expired(self.op.now.date()) and not allow_expired and reason in USES:
            self.op.refuse(Conflict(
                f"{where} expired on {lot.expiry}; name it with allow_expired to use it",
                field=fld, details={"lot": lot.lot_number}))
        if lot.on_hand < quantity:
            self.op.refuse(InsufficientStock(
                f"{where}: on hand {fmt(lot.on_hand)}, needs {fmt(quantity)}", field=fld,
                details={"sku": sku, "location": location, "lot": lot.lot_number,
                         "on_hand": fmt(lot.on_hand), "requested": fmt(quantity)}))

    def move(self, lot: LotSlot, quantity: Decimal, where: str) -> None:
        before = lot.on_hand
        lot.on_hand = before + quantity
        lot.dirty = True
        self.op.change("lot", f"{where}/{lot.lot_number}", "on_hand", before, lot.on_hand)

    def flush(self) -> None:
        dirty = [s for s in self._slots() if s.dirty]
        if not dirty:
            return
        conn = self.op.session.connection()
        old = [s for s in dirty if s.id is not None]
        new = [s for s in dirty if s.id is None]
        if old:
            params = [{"l_id": s.id, "l_version": s.version, "l_on_hand": s.on_hand,
                       "l_next": s.version + 1} for s in old]
            if executemany(conn, _UPDATE, params) not in (-1, len(params)):
                raise RetryTransaction
            for s in old:
                s.version += 1
        if new:
            try:
                created = insert_returning(conn, LOTS, [
                    {"item_id": s.item_id, "location_id": s.location_id, "batch_id": s.batch_id,
                     "on_hand": s.on_hand, "version": 1} for s in new], _INSERT)
            except IntegrityError:
                raise RetryTransaction from None
            ids = {(r.item_id, r.location_id, r.batch_id): r.id for r in created}
            for s in new:
                s.id = ids[(s.item_id, s.location_id, s.batch_id)]
        for s in dirty:
            s.dirty = False


def _used(reason: str) -> str:
    return "shipped" if reason == "shipment" else "consumed"
