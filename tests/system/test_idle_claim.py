"""An idle worker looks for work with a read: while another writer holds SQLite's write
lock (a long import, a big receipt), its poll answers at once instead of queueing behind
the lock for up to the busy timeout, and it never takes the lock itself to find nothing."""

from __future__ import annotations

import sqlite3
import time

import pytest

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.store import queue

pytestmark = pytest.mark.quick


def test_an_idle_poll_does_not_wait_for_the_write_lock(sqlite_url: str) -> None:
    reg = open_registry(Settings(database_url=sqlite_url))
    holder = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        assert queue.claim(reg.store, "w1") is None
        assert time.monotonic() - started < 5  # the busy timeout is 30 s
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        reg.store.dispose()
