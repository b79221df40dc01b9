"""The MRP page a planner ticks (issue 29), over HTTP on both databases: orders by ref,
in words; two of three orders of one item previewed and applied, the documents made
linked, the third still there to tick; the job's page leads there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import httpx
import pytest

from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN
from tests.planning.test_mrp import TODAY, _world, run_job, sell
from tests.surfaces.admin.test_admin_office import _client


@pytest.fixture
def mrp_client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    _world(registry)
    sell(registry, "P", "3", 60)  # a third wave: three orders make P
    yield from _client(registry, db_url)


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found
    return found.group(1)


def _card(page: str, ref: str) -> str:
    return page.split(f'id="order-{ref}"', 1)[1].split("</li>\n", 1)[0]


def test_two_of_three_orders_of_one_item_ticked_by_ref_applied_and_linked(
        mrp_client: httpx.Client, registry: Registry) -> None:
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    plan = job["result"]
    first, second, third = (m for m in plan["manufacturing_orders"] if m["sku"] == "P")
    total = len(plan["manufacturing_orders"]) + sum(len(g["lines"])
                                                    for g in plan["purchase_orders"])
    page = unescape(mrp_client.get("/mrp").text)
    assert page.count('name="refs"') == total
    card = _card(page, first["ref"])
    so = first["covers"][0][1]
    # the item's name, its quantity, the date, and why in words: no codes, no ISO dates
    assert "Product" in card and f'value="{first["ref"]}"' in card
    assert re.search(rf"for {so} due \d+ Dec: 4", card), card  # in the plan's year, no year
    for code in ("sales_order", "safety_stock", "planned_order", first["due_date"]):
        assert code not in re.sub(r'<[^>]+>', "", page), code
    buy = _card(page, plan["purchase_orders"][0]["lines"][0]["ref"])
    assert "Acme" in buy and "€1.50" in buy

    csrf = _csrf(page)
    shown = mrp_client.post("/mrp/preview", data={
        "csrf": csrf, "job_id": job["job_id"], "refs": [first["ref"], third["ref"]]})
    assert shown.status_code == 200 and 'id="confirm-plan"' in shown.text, shown.text[-600:]
    token = re.search(r'name="preview_token" value="([^"]+)"', shown.text)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', shown.text)
    assert token and key
    applied = mrp_client.post("/mrp/apply", data={
        "csrf": csrf, "job_id": job["job_id"], "refs": [first["ref"], third["ref"]],
        "preview_token": token.group(1), "idempotency_key": key.group(1)})
    # back to the plan (a page that reloads without applying again), naming what was made
    assert applied.status_code == 303, applied.text[-600:]
    done = unescape(mrp_client.get(applied.headers["location"]).text)
    made = re.findall(r'href="/manufacturing-orders/(MO-\d+)"',
                      done.split('id="made-documents"', 1)[1].split("</ul>", 1)[0])
    assert len(made) == 2
    dues = {registry.invoke("get_manufacturing_order", {"number": n}, ADMIN)["due_date"]
            for n in made}
    assert dues == {first["due_date"], third["due_date"]}
    # the rest of the plan is still there: the second P order can be ticked, the two not
    assert done.count('name="refs"') == total - 2
    assert f'id="tick-{second["ref"]}"' in _card(done, second["ref"])
    assert f'id="tick-{first["ref"]}"' not in _card(done, first["ref"])
    assert f'href="/manufacturing-orders/{made[0]}"' in done.split('id="plan-orders"', 1)[1]

    # nothing ticked: said, nothing applied
    empty = mrp_client.post("/mrp/preview", data={"csrf": csrf, "job_id": job["job_id"]})
    assert empty.status_code == 422 and 'id="mrp-error"' in empty.text


def test_the_mrp_jobs_page_leads_to_the_mrp_page_and_reads_in_words(
        mrp_client: httpx.Client, registry: Registry) -> None:
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())
    page = unescape(mrp_client.get(f"/jobs/{job['job_id']}").text)
    link = re.search(r'id="apply-plan" href="([^"]+)"', page)
    assert link and link.group(1) == f"/mrp?job={job['job_id']}"
    assert "/tools/apply_mrp_plan" not in page
    assert 'id="plan-orders"' in page and "<table" not in page.split('id="job"', 1)[1]
    text = re.sub(r"<[^>]+>", "", page)
    assert "safety_stock" not in text and "Kind:" not in text
    assert re.search(r"for SO-\d+ due \d+ Dec: \d", text)
    assert re.search(r"for SO-\d+ due \d+ Jan 2027: 3", text)  # another year: said
    assert 'name="refs"' in unescape(mrp_client.get(link.group(1)).text)
