"""The partners' pages (issue 29) over HTTP on both databases: Suppliers and Customers
lists, a supplier's page with its details, open orders with their totals in their own
currency and the items it supplies, its Edit form starting from the record and changing
its currency; the item page lists its supplier items."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import pytest
from starlette.testclient import TestClient

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.servers import admin_client

pytestmark = pytest.mark.quick


@pytest.fixture
def client(registry: Registry, given: Given, db_url: str) -> Iterator[TestClient]:
    given.company()
    given.supplier("Far Away Co", currency="USD", contact="Dana",
                   address="9 Harbour Rd\nPortland, OR")
    given.offer("M1", "Far Away Co", supplier_sku="FA-77", purchase_unit="box",
                units_per_purchase_unit="12", lead_time_days=9,
                price_breaks=[{"min_quantity": "1", "unit_price": "3.5"},
                              {"min_quantity": "20", "unit_price": "3.25"}], preferred=True)
    with admin_client(registry, db_url, Origin="http://testserver") as c:  # a page of its own
        yield c


def _href(page: str, part: str) -> str:
    return next(unescape(x.split('"', 1)[0]) for x in page.split('href="')[1:]
                if part in x.split('"', 1)[0])


def test_the_suppliers_list_and_a_suppliers_page(client: TestClient,
                                                 registry: Registry) -> None:
    po = apply(registry, "create_purchase_order", supplier="Far Away Co", location="MAIN",
               reference="FA-PO-1", lines=[{"sku": "M1", "quantity": "2", "unit": "box"}])
    home = client.get("/").text
    assert 'href="/suppliers"' in home and 'href="/customers"' in home
    listed = client.get("/suppliers").text
    assert 'href="/suppliers/Far%20Away%20Co"' in listed and "Acme" in listed
    assert "Far Away" in client.get("/suppliers?query=far").text
    assert "Acme" not in client.get("/suppliers?query=far").text.split("<main", 1)[1]
    page = client.get("/suppliers/Far%20Away%20Co").text
    assert "9 Harbour Rd<br>Portland, OR" in page and "Dana" in page
    orders = page.split('id="open-orders"', 1)[1].split("</table>", 1)[0]
    assert po["number"] in orders and "FA-PO-1" in orders and "US$7.00" in orders
    assert "US$7.00" in page.split('id="partner-totals"', 1)[1].split("</dl>", 1)[0]
    offers = page.split('id="supplier-items"', 1)[1].split("</table>", 1)[0]
    assert "FA-77" in offers and "box of" in offers and "US$3.25" in offers
    assert "9 days" in offers and "€" not in offers
    customer = client.get("/customers/Bob").text
    assert "No open order." in customer and 'id="supplier-items"' not in customer


def test_a_suppliers_currency_is_changed_from_its_page(client: TestClient,
                                                       registry: Registry) -> None:
    page = client.get("/suppliers/Acme").text
    edit = _href(page, "/tools/modify_supplier")
    form = client.get(edit).text
    assert 'name="currency"' in form
    csrf = form.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    original = unescape(form.split('name="_original" value=\'', 1)[1].split("'", 1)[0])
    assert '"name": "Acme"' in original
    sent = {"csrf": csrf, "_original": original, "id": edit.rsplit("=", 1)[1],
            "name": "Acme", "currency": "CHF"}
    preview = client.post("/tools/modify_supplier/preview", data=sent).text
    assert 'id="confirm"' in preview and "CHF" in preview, preview[-800:]
    token = re.search(r'name="preview_token" value="([^"]+)"', preview)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', preview)
    assert token and key
    done = client.post("/tools/modify_supplier/apply", data={
        **sent, "preview_token": token.group(1), "idempotency_key": key.group(1)})
    assert 'id="applied"' in done.text, done.text[-800:]
    assert registry.invoke("get_supplier", {"name": "Acme"}, ADMIN)["currency"] == "CHF"


def test_the_item_page_lists_its_supplier_items(client: TestClient) -> None:
    page = client.get("/items/M1").text
    offers = page.split('id="supplier-items"', 1)[1].split("</table>", 1)[0]
    assert 'href="/suppliers/Far%20Away%20Co"' in offers
    assert "FA-77" in offers and "US$3.50" in offers and "Yes" in offers
