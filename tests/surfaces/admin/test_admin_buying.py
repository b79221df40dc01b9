"""The admin in the supplier's terms (issue 23), over HTTP on both databases: a purchase
order in boxes from a supplier in dollars reads in boxes and dollars, its return link asks
for boxes and says so, and the MRP page shows each purchase's supplier, unit, price in
the supplier's currency, why that supplier, and which are late."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from shopfloor.registry.registry import Registry
from tests.buying.test_buying import alpha_and_beta, world
from tests.buying.test_buying_mrp import need
from tests.helpers import apply
from tests.planning.test_mrp import TODAY, day, run_job
from tests.surfaces.admin.test_admin_office import _client


@pytest.fixture
def client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    world(registry)
    alpha_and_beta(registry)
    apply(registry, "set_supplier_item", sku="WIRE", supplier="Wires Inc", purchase_unit="box",
          units_per_purchase_unit="100", lead_time_days=5,
          price_breaks=[{"min_quantity": "1", "unit_price": "2.00"}])
    yield from _client(registry, db_url)


def _between(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def test_a_dollar_order_in_boxes_reads_in_dollars_and_boxes(client: httpx.Client,
                                                            registry: Registry) -> None:
    po = apply(registry, "create_purchase_order", supplier="Wires Inc", location="MAIN",
               lines=[{"sku": "WIRE", "unit": "box", "quantity": "11"}])
    page = unescape(client.get(f"/purchase-orders/{po['number']}").text)
    fields = _between(page, '<dl class="fields">', "</dl>")
    assert "USD" in fields and "$22.00" in fields and "€" not in fields
    lines = _between(page, "<h2>Lines</h2>", "</table>")
    assert "$2.00" in lines and "€" not in lines
    assert re.search(r'data-value="11"[^<]*</span> <span class="unit">box</span>', lines)
    assert '<td data-label="Unit">box</td>' in lines
    listed = unescape(client.get("/purchase-orders").text)
    row = _between(listed, f">{po['number']}</a>", "</tr>")
    assert "$22.00" in row and "€" not in row
    # its landed costs are the company's money: 10 USD at 0.92 = €9.20
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from="2000-01-01")
    apply(registry, "receive_purchase_order", number=po["number"])
    apply(registry, "add_landed_cost", number=po["number"], amount="10", description="Freight")
    page = unescape(client.get(f"/purchase-orders/{po['number']}").text)
    assert "€9.20" in _between(page, 'id="landed-costs"', "</dl>")


def test_the_return_link_of_a_line_in_boxes_asks_for_boxes(client: httpx.Client,
                                                           registry: Registry) -> None:
    po = apply(registry, "create_purchase_order", supplier="Alpha", location="MAIN",
               lines=[{"sku": "RESA", "unit": "box", "quantity": "11"}])
    number = po["number"]
    apply(registry, "receive_purchase_order", number=number,
          lines=[{"sku": "RESA", "quantity": "4"}])
    apply(registry, "create_supplier_return", number=number, reason="crushed",
          lines=[{"sku": "RESA", "quantity": "1", "unit": "box"}])
    page = unescape(client.get(f"/purchase-orders/{number}").text)
    link = re.search(r'href="(/tools/create_supplier_return\?[^"]+)"', page)
    assert link, page
    query = parse_qs(urlsplit(link.group(1)).query)
    # what is left to send back (4 received, 1 returned), in the line's unit, saying so
    assert (query["lines.0.quantity"], query["lines.0.unit"]) == (["3"], ["box"])
    form = client.get(link.group(1)).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form)
    assert csrf
    preview = client.post("/tools/create_supplier_return/preview", data={
        "csrf": csrf.group(1), "number": number, "reason": "wrong value",
        **{k: v[0] for k, v in query.items() if k.startswith("lines.")}})
    assert preview.status_code == 200 and 'id="confirm"' in preview.text, preview.text[-800:]
    shown = re.search(r"data-preview='([^']+)'", preview.text)
    assert shown
    payload = json.loads(unescape(shown.group(1)))["payload"]
    said = {c["field"]: (c["before"], c["after"]) for c in payload["changes"]}
    assert said["line RESA returned"] == ("1 box (100 pcs)", "4 box (400 pcs)")
    # 300 pcs leave, never 3
    assert [(ln["quantity"], ln["unit"]) for ln in payload["document"]["lines"]] == \
        [("300", "pcs")]


def test_the_mrp_page_shows_each_purchase_in_its_suppliers_terms(
        client: httpx.Client, registry: Registry) -> None:
    apply(registry, "set_exchange_rate", currency="USD", rate="0.92", valid_from=day(-1))
    need(registry, "1030", 2)               # none in time: Beta, the fastest, late
    need(registry, "150", 20, "WIRE")       # Wires Inc in dollars, 2 boxes
    run_job(registry, "run_mrp", today=TODAY.isoformat())
    page = unescape(client.get("/mrp").text)
    cards = _between(page, 'id="plan-orders"', "</ul>\n")
    rows = {re.search(r'<span class="muted">([A-Z]+)</span>', r).group(1): r  # type: ignore[union-attr]
            for r in cards.split('<li class="plan-card')[1:]}
    resa, wire = rows["RESA"], rows["WIRE"]
    assert " bag" in resa and "€1.25" in resa and "/ bag" in resa and "Beta" in resa
    assert "none in time" in resa and "s-late" in resa
    assert "2 box" in wire and "$2.00" in wire and "/ box" in wire
    assert "Wires Inc" in wire and "s-late" not in wire
