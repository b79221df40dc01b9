"""The admin's pages over HTTP on both databases (no browser): every tool in the catalogue
has a working page, whoever added it; lists page past the first page; the home page
counts what is on order; forms without the session's CSRF token change nothing; signing
out ends the session for good."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot
from tests.servers import serving

PASSWORD = "pages password"


@pytest.fixture
def client(registry: Registry, given: Given, db_url: str) -> Iterator[httpx.Client]:
    given.company()
    Accounts(registry.store).create("pat", PASSWORD, "admin")
    with serving(build_app(registry, Settings(database_url=db_url, currency="USD"),
                           run_worker=False)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        signed = c.post("/sign-in", data={"username": "pat", "password": PASSWORD,
                                          "next": "/items"})
        assert signed.status_code == 303 and signed.headers["location"] == "/items"
        yield c


def _csrf(c: httpx.Client) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', c.get("/tools/create_item").text)
    assert match
    return match.group(1)


def test_every_tool_has_a_page(client: httpx.Client, registry: Registry) -> None:
    for tool in registry.tools():
        if tool.app_only:
            continue
        page = client.get(f"/tools/{tool.name}")
        assert page.status_code == 200, tool.name
        assert 'id="tool-form"' in page.text, tool.name
        assert tool.title in page.text
        if tool.facts.writes:
            assert f'action="/tools/{tool.name}/preview"' in page.text
        elif not tool.facts.job:
            shown = client.get(f"/tools/{tool.name}?run=1")
            assert shown.status_code == 200, (tool.name, shown.text[-500:])
            assert 'id="result"' in shown.text or 'id="outcome-error"' in shown.text
    assert client.get("/tools/no_such_tool").status_code == 404


def test_lists_page_and_home_counts_what_is_on_order(client: httpx.Client,
                                                     registry: Registry, given: Given) -> None:
    for i in range(30):
        apply(registry, "create_item", sku=f"PAGE-{i:02d}", name=f"Paged {i}")
    first = client.get("/items?query=PAGE-")
    assert first.text.count('href="/items/PAGE-') == 25
    nxt = re.search(r'id="next-page" rel="next" href="|href="([^"]+)" id="next-page"',
                    first.text)
    assert nxt and nxt.group(1)
    second = client.get(nxt.group(1).replace("&amp;", "&"))
    assert second.text.count('href="/items/PAGE-') == 5
    assert 'id="prev-page"' in second.text and 'id="next-page"' not in second.text
    back = re.search(r'href="([^"]+)" id="prev-page"', second.text)
    assert back and client.get(back.group(1).replace("&amp;", "&")).text.count(
        'href="/items/PAGE-') == 25  # page 2's previous is page 1 (so no separate First)

    apply(registry, "modify_item", sku="M1", reorder_point="10")
    apply(registry, "modify_item", sku="M2", reorder_point="10")
    given.po({"M2": "12"}, expected_date="2020-01-06")
    home = client.get("/").text
    low = home.split('id="h-low"')[1].split("</section>")[0]
    assert "M1" in low and "M2" not in low  # M2's shortfall is covered by its order
    late = home.split('id="h-late"')[1].split("</section>")[0]
    assert "PO-" in late and "2020-01-06" in late
    order = client.get("/purchase-orders/" + re.findall(r"PO-\d+", late)[0]).text
    # the order's own currency (the company's, EUR), not the admin's display default
    assert "Receive" in order and 'data-value="12">€12.00<' in order
    assert client.get("/purchase-orders/PO-NOPE").status_code == 404


def test_forms_need_the_session_csrf_token_and_sign_out_ends_it(
        client: httpx.Client, registry: Registry) -> None:
    quiet = snapshot(registry)
    form = {"sku": "X-1", "name": "Forged", "preview_token": "x", "idempotency_key": "k"}
    assert client.post("/tools/create_item/apply", data=form).status_code == 403
    assert client.post("/tools/create_item/apply",
                       data={**form, "csrf": "0" * 32}).status_code == 403
    assert snapshot(registry) == quiet

    csrf = _csrf(client)
    preview = client.post("/tools/create_item/preview",
                          data={"csrf": csrf, "sku": "X-1", "name": "Real one"})
    assert preview.status_code == 200 and 'id="confirm"' in preview.text
    assert registry.invoke("search_items", {"query": "X-1"}, ADMIN)["items"] == []

    token = client.cookies["shopfloor_session"]
    out = client.post("/sign-out", data={"csrf": csrf})
    assert out.status_code == 303 and "reason=signed_out" in out.headers["location"]
    with httpx.Client(base_url=str(client.base_url), cookies={"shopfloor_session": token}) as old:
        gone = old.get("/items")
    assert gone.status_code == 303
    assert gone.headers["location"].startswith("/sign-in?reason=signed_out&next=%2Fitems")


def test_the_approval_inbox_approves_through_the_tool_form(client: httpx.Client,
                                                           registry: Registry) -> None:
    from shopfloor.registry.actor import Actor
    agent = Actor.of("agent", "operator", needs_approval=True)
    held = apply(registry, "create_stock_adjustment", agent, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": "4", "unit_cost": "2"}])
    pid = held["proposal_id"]
    inbox = client.get("/proposals").text
    assert f'href="/proposals/{pid}"' in inbox and "agent" in inbox
    today = client.get("/today").text
    assert re.search(r'href="/proposals">Proposals waiting</a> <span class="count">1<', today)
    page = client.get(f"/proposals/{pid}").text
    approve = re.search(r'href="(/tools/approve_proposal\?[^"]+)"', page)
    assert approve and "on_hand" in page
    csrf = _csrf(client)
    preview = client.post("/tools/approve_proposal/preview",
                          data={"csrf": csrf, "proposal_id": pid})
    assert preview.status_code == 200 and 'id="confirm"' in preview.text
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token
    done = client.post("/tools/approve_proposal/apply", data={
        "csrf": csrf, "proposal_id": pid, "preview_token": token.group(1)})
    assert done.status_code == 200, done.text[-800:]
    stock = registry.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    assert stock[0]["on_hand"] == "4"
    assert "Nothing waits for approval" in client.get("/proposals").text
