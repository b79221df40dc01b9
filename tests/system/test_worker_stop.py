"""A worker told to stop stops, even while an alert check is in the middle of its reads.

On a large company one alert check takes seconds (under load, tens); a deploy's SIGTERM
must not wait for it, and a check cut short records nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from shopfloor.app import alerts
from shopfloor.app.delivery import Deliverer
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry, worker_for
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import AlertState
from tests.given import Given
from tests.helpers import apply


@pytest.fixture
def reg(sqlite_url: str) -> Iterator[Registry]:
    registry = open_registry(Settings(database_url=sqlite_url))
    yield registry
    registry.store.dispose()


def test_a_worker_stops_while_its_alert_check_is_still_reading(reg: Registry) -> None:
    started, never = threading.Event(), threading.Event()

    def stuck_check(stop: threading.Event) -> None:
        started.set()
        never.wait(120)  # a check that does not look at `stop` at all

    delivery = Deliverer(reg.store, name="w", poll=0.05, also=stuck_check)
    worker = worker_for(reg, poll=0.05, delivery=delivery)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()
    assert started.wait(30), "the alert check never ran"
    stop.set()
    thread.join(30)  # a bound on a broken stop only: the check alone would hold it 120 s
    never.set()
    assert not thread.is_alive(), "the worker waited for the alert check to finish"


def test_a_check_told_to_stop_records_nothing(reg: Registry) -> None:
    Given(reg).company()
    apply(reg, "modify_item", sku="M1", reorder_point="100")  # low stock: news to record
    stop = threading.Event()
    stop.set()
    assert alerts.check(reg, stop) == (0, None)
    with reg.store.reading() as s:
        assert s.execute(select(func.count()).select_from(AlertState)).scalar_one() == 0
    changed, seen = alerts.check(reg)
    assert changed >= 1 and seen is not None
