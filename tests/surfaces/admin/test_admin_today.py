"""The pages for the day count days by the deployment's date: the registry's clock in the
deployment's time zone, not the server process's local date. At 23:30 UTC on 10 January
it is already the 11th in Auckland, so an order due on the 11th is to ship today there
and not yet in UTC; neither is late, and the process's own calendar plays no part."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.servers import serving

PASSWORD = "office password"
CLOCK = datetime(2026, 1, 10, 23, 30, tzinfo=UTC)


def _day(registry: Registry, db_url: str, zone: str) -> Iterator[httpx.Client]:
    settings = Settings(database_url=db_url, currency="EUR", time_zone=zone)
    with serving(build_app(registry, settings, run_worker=False)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "pat", "password": PASSWORD, "next": "/"})
        yield c


@pytest.fixture
def orders(registry: Registry, given: Given) -> dict[str, str]:
    registry.clock = lambda: CLOCK
    given.company()
    Accounts(registry.store).create("pat", PASSWORD, "admin")
    out = {}
    for due in ("2026-01-09", "2026-01-11", "2026-01-12"):
        out[due] = given.so({"P1": "1"}, due_date=due)["number"]
    return out


def _rows(client: httpx.Client, what: str) -> str:
    page = client.get(f"/today/{what}")
    assert page.status_code == 200
    return page.text.split('id="day-rows"', 1)[1] if 'id="day-rows"' in page.text else ""


@pytest.mark.parametrize(("zone", "to_ship"), [
    ("Pacific/Auckland", ("2026-01-09", "2026-01-11")),  # the 11th there already
    ("", ("2026-01-09",)),                                 # no zone: UTC, still the 10th
])
def test_today_is_the_deployments_date(registry: Registry, db_url: str,
                                       orders: dict[str, str], zone: str,
                                       to_ship: tuple[str, ...]) -> None:
    for client in _day(registry, db_url, zone):
        ship, late = _rows(client, "ship"), _rows(client, "late")
        assert [due for due, number in orders.items() if number in ship] == list(to_ship)
        assert [due for due, number in orders.items() if number in late] == ["2026-01-09"]
