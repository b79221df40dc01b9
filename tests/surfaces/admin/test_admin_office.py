"""The office's pages over HTTP on both databases (no browser): the pages for the day,
each row linking to its action; an order's page showing the stock it can count on; the
MRP page's last plan, applied in parts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from html import unescape

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import TODAY, _world, run_job
from tests.servers import serving

PASSWORD = "office password"


def _client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    Accounts(registry.store).create("pat", PASSWORD, "admin")
    with serving(build_app(registry, Settings(database_url=db_url, currency="EUR"),
                           run_worker=False)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={
                "Origin": url, "Accept-Language": "en-GB,en;q=0.8"}) as c:
        c.post("/sign-in", data={"username": "pat", "password": PASSWORD, "next": "/"})
        yield c


@pytest.fixture
def client(registry: Registry, given: Given, db_url: str) -> Iterator[httpx.Client]:
    given.company()
    yield from _client(registry, db_url)


def _section(html: str, start: str) -> str:
    return html.split(start, 1)[1]


def test_the_pages_for_the_day_link_to_their_actions(client: httpx.Client,
                                                     registry: Registry, given: Given) -> None:
    apply(registry, "modify_item", sku="M1", reorder_point="10", default_supplier="Acme")
    given.po({"M2": "12"}, expected_date="2020-01-06")
    given.stock({"P1": ("5", "2")})
    so = given.so({"P1": ("2", "9.87654")})
    future = given.so({"P1": "1"}, due_date="2999-01-01")
    index = client.get("/today").text
    assert all(f'href="/today/{s}"' in index for s in
               ("buy", "make", "ship", "receive", "late", "expiring"))
    buy = unescape(client.get("/today/buy").text)
    assert "/tools/create_purchase_order?supplier=Acme&lines.0.sku=M1" in buy
    receive = unescape(client.get("/today/receive").text)
    assert "PO-00001" in receive and "/tools/receive_purchase_order?number=PO-00001" in receive
    ship = unescape(client.get("/today/ship").text)
    assert so["number"] in ship and future["number"] not in ship
    assert f"/tools/fulfill_order?number={so['number']}&lines.0.sku=P1&lines.0.quantity=2" \
        in ship
    late = client.get("/today/late").text
    assert "PO-00001" in late and so["number"] not in late  # no date: due, not late
    assert 'id="day-empty"' in client.get("/today/expiring").text
    assert client.get("/today/nonsense").status_code == 404
    # money reads as money: the currency's two decimals, never 9.87654
    order = client.get(f"/sales-orders/{so['number']}").text
    assert "€9.88" in order and "9.87654</" not in order
    stock = _section(order, 'id="order-stock"')
    assert "P1" in stock and 'data-value="5"' in stock


@pytest.fixture
def lots_client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    from tests.lots.test_available_lots import _world as lots_world
    lots_world(registry)
    registry.clock = lambda: datetime.now(UTC)
    yield from _client(registry, db_url)


def test_an_order_page_names_held_stock_and_its_reason(lots_client: httpx.Client,
                                                       registry: Registry, given: Given) -> None:
    so = given.so({"FLOUR": "3"}, customer="Cafe")
    stock = _section(lots_client.get(f"/sales-orders/{so['number']}").text, 'id="order-stock"')
    for text in ("L1", "L2", "lab test pending", 'data-value="6"'):
        assert text in stock, text
    item = lots_client.get("/items/FLOUR").text
    assert "lab test pending" in _section(item, 'id="lots"')


@pytest.fixture
def mrp_client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    _world(registry)
    yield from _client(registry, db_url)


def test_the_mrp_page_applies_the_checked_orders_and_keeps_the_rest(
        mrp_client: httpx.Client, registry: Registry) -> None:
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())["job_id"]
    page = mrp_client.get("/mrp").text
    assert page.count('name="refs"') == 6  # 4 to make, 2 to buy (M twice)
    assert re.search(r'name="refs" value="P\d+"[^>]*checked', page)
    form = mrp_client.get(f"/tools/apply_mrp_plan?job_id={job}&only=M").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form)
    assert csrf and ">M</textarea>" in form
    shown = mrp_client.post("/tools/apply_mrp_plan/preview",
                            data={"csrf": csrf.group(1), "job_id": job, "only": "M"})
    token = re.search(r'name="preview_token" value="([^"]+)"', shown.text)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', shown.text)
    assert token and key
    done = mrp_client.post("/tools/apply_mrp_plan/apply", data={
        "csrf": csrf.group(1), "job_id": job, "only": "M", "preview_token": token.group(1),
        "idempotency_key": key.group(1)})
    assert 'id="applied"' in done.text
    after = mrp_client.get("/mrp").text
    assert after.count('name="refs"') == 4 and after.count("s-applied") == 2
    assert registry.invoke("get_job", {"job_id": job}, ADMIN)["result"]["applied"] == ["M"]


def test_the_users_page_lists_accounts_with_their_actions(client: httpx.Client,
                                                          registry: Registry) -> None:
    Accounts(registry.store).create("vic", "vic's password", "viewer")
    page = unescape(client.get("/users").text)
    assert 'href="/users"' in page and "vic" in page
    assert "/tools/set_user_role?username=vic&role=viewer" in page
    assert "/tools/disable_user?username=vic&disabled=true" in page
    form = client.get("/tools/reset_user_password?username=vic").text
    assert 'type="password" autocomplete="new-password"' in form
    with httpx.Client(base_url=str(client.base_url), headers=dict(client.headers)) as other:
        other.post("/sign-in", data={"username": "vic", "password": "vic's password",
                                     "next": "/"})
        assert other.get("/users").status_code == 403
        assert 'href="/users"' not in other.get("/").text
