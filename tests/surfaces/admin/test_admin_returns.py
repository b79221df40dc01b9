"""A return's own page and its printed note (issue 29) over HTTP on both databases: the
order page's returns list links each return; /returns lists them; a return's page and
its PDF (read back with pypdf) say its partner, reference, notes, its lines in their
order lines' unit ("1 pc of a box of 3", "2 box (6 pcs)") and its value in the books'
currency, under the company's letterhead."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pypdf
import pytest
from starlette.testclient import TestClient

from shopfloor.registry.registry import Registry
from shopfloor.ui.paper import link
from tests.given import Given
from tests.helpers import apply
from tests.servers import admin_client

pytestmark = pytest.mark.quick


@pytest.fixture
def client(registry: Registry, given: Given, db_url: str) -> Iterator[TestClient]:
    given.company()
    given.supplier("Hinge Works", email="rma@hinge.test", address="4 Quay St\nBristol")
    given.item("HINGE", name="Brass hinge 35 mm")
    given.offer("HINGE", "Hinge Works", purchase_unit="box", units_per_purchase_unit="3",
                price_breaks=[{"min_quantity": "1", "unit_price": "6"}])
    given.apply("set_company_profile", name="Brightwood Joinery Ltd",
                address="Unit 4, Mill Lane\nLeeds")
    with admin_client(registry, db_url) as c:
        yield c


def _pdf_text(pdf: bytes) -> str:
    assert pdf.startswith(b"%PDF-")
    pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
    return " ".join(" ".join(p.extract_text() for p in pages).split())


def _returned(registry: Registry) -> tuple[str, str, str]:
    po = apply(registry, "create_purchase_order", supplier="Hinge Works", location="MAIN",
               lines=[{"sku": "HINGE", "unit": "box", "quantity": "4"}])["number"]
    apply(registry, "receive_purchase_order", number=po,
          lines=[{"sku": "HINGE", "quantity": "3"}])
    piece = apply(registry, "create_supplier_return", number=po, reason="one hinge bent",
                  notes="Photo sent to Dana", reference="RMA-5531",
                  lines=[{"sku": "HINGE", "quantity": "1"}])["number"]
    boxes = apply(registry, "create_supplier_return", number=po, reason="wet boxes",
                  lines=[{"sku": "HINGE", "quantity": "2", "unit": "box"}])["number"]
    return po, piece, boxes


def test_a_returns_page_from_its_order_and_the_list(client: TestClient,
                                                   registry: Registry) -> None:
    po, piece, boxes = _returned(registry)
    order = client.get(f"/purchase-orders/{po}").text
    listed = order.split('id="returns"', 1)[1].split("</table>", 1)[0]
    assert f'href="/returns/{piece}"' in listed and f'href="/returns/{boxes}"' in listed
    assert "1 pc of a box of 3 HINGE" in listed and "2 box (6 pcs) HINGE" in listed
    assert "0.333333" not in listed and "€2.00" in listed  # a pc at 6/3, the books' euros
    everything = client.get("/returns").text
    assert 'href="/returns"' in everything  # in the nav
    rows = everything.split('id="returns"', 1)[1].split("</table>", 1)[0]
    assert rows.index(boxes) < rows.index(piece)  # newest first
    assert "Hinge Works" in rows and f'href="/purchase-orders/{po}"' in rows
    assert piece not in client.get("/returns?order=PO-99999").text.split("<main", 1)[1]
    page = client.get(f"/returns/{piece}").text
    main = page.split("<main", 1)[1]
    for said in ("Hinge Works", "RMA-5531", "Photo sent to Dana", "one hinge bent",
                 "1 pc of a box of 3", "€2.00", f'href="/purchase-orders/{po}"',
                 f'href="{link("return_note", piece)}"'):
        assert said in main, (said, main)
    assert "0.333333" not in main
    assert "2 box (6 pcs)" in client.get(f"/returns/{boxes}").text
    missing = client.get("/returns/RET-99999")
    assert missing.status_code == 404 and "RET-99999" in missing.text


def test_a_return_note_prints_its_lines_in_their_unit(client: TestClient,
                                                      registry: Registry) -> None:
    _, piece, boxes = _returned(registry)
    got = client.get(link("return_note", piece))
    assert got.headers["content-type"] == "application/pdf"
    text = _pdf_text(got.content)
    for said in (f"Return note {piece}", "Brightwood Joinery Ltd", "Unit 4, Mill Lane",
                 "Hinge Works", "4 Quay St", "rma@hinge.test", "RMA-5531",
                 "Photo sent to Dana", "one hinge bent", "Brass hinge 35 mm",
                 "1 pc of a box of 3", "Total EUR €2.00"):
        assert said in text, (said, text)
    assert "0.333333" not in text
    text = _pdf_text(client.get(link("return_note", boxes)).content)
    assert "2 box (6 pcs)" in text and "Total EUR €12.00" in text, text
