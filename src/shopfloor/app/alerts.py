"""Alerts: what needs attention, as resources an MCP client reads and subscribes to.

Each alert is built from the catalogue's own reads (low stock, expiring lots, open
orders past their date), so it says exactly what those tools say. The workers check
them after writes (and once a minute, since time alone makes an order late): when what
an alert shows has changed, they record its new digest and an `alert.changed` event in
one transaction, under the lock of one cursor row, so one change is one event however
many workers there are. Servers tell their listening MCP clients from those events.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from shopfloor.kernel.events import EventType
from shopfloor.kernel.statuses import OPEN_MO, OPEN_PO, OPEN_SO
from shopfloor.registry.actor import Actor
from shopfloor.store import deliveries, outbox
from shopfloor.store.tables import AlertState, EventCursor

if TYPE_CHECKING:
    from shopfloor.registry.registry import Registry

PREFIX = "shopfloor://alerts/"
CURSOR = "alerts"
WATCHER = Actor.of("shopfloor-alerts", "viewer")
EXPIRY_DAYS = 30
LOAD_DAYS = 28


def _pages(registry: Registry, tool: str, args: dict[str, Any], actor: Actor,
           key: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = registry.invoke(tool, {**args, "limit": 500, "cursor": cursor}
                               if cursor else {**args, "limit": 500}, actor)
        rows += page.get(key, [])
        cursor = page.get("next_cursor")
        if not cursor or len(rows) >= 5000:
            return rows


def low_stock(registry: Registry, actor: Actor) -> list[dict[str, Any]]:
    return _pages(registry, "list_low_stock", {}, actor, "items")


def expiring_lots(registry: Registry, actor: Actor) -> list[dict[str, Any]]:
    got = registry.invoke("list_expiring", {"days": EXPIRY_DAYS}, actor)
    return list(got.get("lots", []))


def late_orders(registry: Registry, actor: Actor) -> list[dict[str, Any]]:
    today = registry.clock().date().isoformat()  # the tools' clock, not the process's
    late: list[dict[str, Any]] = []
    for kind, tool, statuses in (("purchase_order", "list_purchase_orders", OPEN_PO),
                                 ("sales_order", "list_sales_orders", OPEN_SO),
                                 ("manufacturing_order", "list_manufacturing_orders",
                                  OPEN_MO)):
        for status in statuses:
            for o in _pages(registry, tool, {"status": str(status)}, actor, "orders"):
                if o.get("due_date") and o["due_date"] < today:
                    late.append({"kind": kind, "number": o["number"], "status": o["status"],
                                 "partner": o.get("partner") or o.get("sku"),
                                 "due_date": o["due_date"]})
    late.sort(key=lambda o: (o["due_date"], o["number"]))
    return late


def overloaded_centres(registry: Registry, actor: Actor) -> list[dict[str, Any]]:
    """Days in the coming weeks on which a work centre has more planned than it can do."""
    start = registry.clock().date()
    got = registry.invoke("get_work_centre_load", {
        "start": start.isoformat(), "end": (start + timedelta(days=LOAD_DAYS)).isoformat(),
        "bucket": "day"}, actor)
    return [r for r in got.get("rows", []) if r.get("load_percent") is not None
            and Decimal(r["load_percent"]) > 100]


ALERTS: dict[str, tuple[str, Callable[[Registry, Actor], list[dict[str, Any]]]]] = {
    "low-stock": ("Items at or below their reorder point", low_stock),
    "expiring-lots": (f"Lots expired or expiring within {EXPIRY_DAYS} days", expiring_lots),
    "late-orders": ("Open orders past their due date", late_orders),
    "overloaded-centres": (f"Work-centre days over capacity in the next {LOAD_DAYS} days",
                           overloaded_centres),
}


def uri_of(name: str) -> str:
    return PREFIX + name


def name_of(uri: str) -> str | None:
    name = uri.removeprefix(PREFIX)
    return name if uri.startswith(PREFIX) and name in ALERTS else None


def content(registry: Registry, name: str, actor: Actor) -> dict[str, Any]:
    """What the alert resource shows: JSON, the same for every reader with the role."""
    title, build = ALERTS[name]
    rows = build(registry, actor)
    return {"alert": name, "title": title, "count": len(rows), "rows": rows}


def digest(shown: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()


class AlertCheck:
    """Called beside the delivery loop: checks the alerts when something was written since
    the last check (at most every `every` seconds), and once a minute regardless. An
    unchanged check writes nothing (an idle worker takes no write lock)."""

    def __init__(self, registry: Registry, *, every: float = 1.0, anyway: float = 60.0
                 ) -> None:
        self.registry = registry
        self.every = every
        self.anyway = anyway
        self._last = 0.0
        self._seen = (0, 0)

    def __call__(self, stop: threading.Event | None = None) -> int:
        elapsed = time.monotonic() - self._last
        if elapsed < self.every:
            return 0
        store = self.registry.store
        with store.reading() as s:
            row = s.execute(select(EventCursor.tx, EventCursor.seq, EventCursor.checked_at)
                            .where(EventCursor.name == CURSOR)).first()
            if row is not None and row.checked_at is not None and datetime.now(UTC) - \
                    row.checked_at < timedelta(seconds=self.every):
                return 0  # another worker recorded a change a moment ago
            if row is not None:
                self._seen = max(self._seen, (int(row.tx), int(row.seq)))
            if elapsed < self.anyway and not outbox.events_after(s.connection(), self._seen, 1):
                return 0
        self._last = time.monotonic()
        changed, seen = check(self.registry, stop)
        if seen is not None:
            self._seen = seen
        return changed


def check(registry: Registry, stop: threading.Event | None = None
          ) -> tuple[int, tuple[int, int] | None]:
    """Recompute every alert; record the changed ones (state and event together). Returns
    how many changed, and the outbox position the check saw (None when `stop` was set
    between two alerts: on a large company one alert takes seconds, and a worker told to
    stop must not finish the round first)."""
    store = registry.store
    with store.reading() as s:
        seen = outbox.last(s.connection())
        states = {a.name: a.digest for a in s.scalars(select(AlertState))}
    shown: dict[str, dict[str, Any]] = {}
    for name in ALERTS:
        if stop is not None and stop.is_set():
            return 0, None
        shown[name] = content(registry, name, WATCHER)
    if all(states.get(name) == digest(v) or (name not in states and not v["count"])
           for name, v in shown.items()) and len(states) == len(shown):
        return 0, seen

    def attempt() -> int:
        with store.writing() as s:
            if deliveries.cursor_row(s, CURSOR, lock=store.locks_rows) is None:
                return 0  # another worker is recording
            stamp = datetime.now(UTC)
            states = {a.name: a for a in s.scalars(select(AlertState))}
            changed = 0
            for name, now_shown in shown.items():
                d = digest(now_shown)
                state = states.get(name)
                if state is not None and state.digest == d:
                    continue
                if state is None:
                    s.add(AlertState(name=name, digest=d, count=now_shown["count"],
                                     changed_at=stamp))
                    if not now_shown["count"]:
                        continue  # nothing to attend to yet: no news
                else:
                    state.digest, state.count, state.changed_at = d, now_shown["count"], stamp
                outbox.emit(s.connection(), EventType.alert_changed, {
                    "alert": name, "uri": uri_of(name), "count": now_shown["count"]}, stamp)
                changed += 1
            deliveries.move_cursor(s, CURSOR, seen, stamp)
            s.commit()
            return changed

    return store.retrying(attempt), seen


class AlertFeed:
    """Which alerts changed since this feed started, from the outbox: what a server
    tells its listening MCP clients. Every server reads the same events, so a change
    seen by any worker reaches the clients of every server."""

    def __init__(self, registry: Registry) -> None:
        self.store = registry.store
        with self.store.reading() as s:
            self.position = outbox.last(s.connection())

    def changed(self) -> list[str]:
        """The URIs of the alerts changed since the last call (each once, in order)."""
        with self.store.reading() as s:
            rows = outbox.events_after(s.connection(), self.position, 500,
                               [EventType.alert_changed])
        if not rows:
            return []
        self.position = (int(rows[-1].tx), int(rows[-1].seq))
        return list(dict.fromkeys(str(r.data.get("uri")) for r in rows))
