"""Printed documents: each PDF's text read back with pypdf, a lot label's barcode read back
from a 300 dpi rendering by zxing-cpp (a third-party decoder), and the same documents over
HTTP (bearer token and admin cookie) and as MCP resources.

On SQLite only: the documents' data are read tools the reliability suite runs on both
databases; what is tested here is the paper.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import anyio
import pypdf
import pypdfium2
import pytest
import zxingcpp
from mcp import Client
from starlette.testclient import TestClient

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.http import create_app
from shopfloor.surfaces.mcp.surface import build_server, settings_actor
from shopfloor.surfaces.paper import Printer
from shopfloor.ui.paper import link, path_of
from tests.given import Given
from tests.helpers import apply

TODAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
GTIN = "09501101530003"
VIEWER = Actor.of("vera", "viewer")


@pytest.fixture
def reg(sqlite_url: str) -> Iterator[Registry]:
    reg = open_registry(Settings(database_url=sqlite_url))
    reg.clock = lambda: TODAY
    yield reg
    reg.store.dispose()


def company(reg: Registry) -> dict[str, str]:
    given = Given(reg)
    given.location(name="Main warehouse")
    given.supplier("Acme Mills", email="orders@acme.test")
    given.customer("Cafe Bleu", phone="+33 1 23")
    given.item("FLOUR", name="Flour type 550", batch_tracked=True, gtin=GTIN, uom="kg")
    given.item("SALT", name="Sea salt", uom="kg")
    given.item("BREAD", "product", name="Country loaf")
    given.recipe("BREAD", {"FLOUR": "0.5", "SALT": "0.01"})
    po = given.po({"FLOUR": ("120", "3.1671"), "SALT": ("3", "0.335")}, "Acme Mills")
    received = given.po({"FLOUR": ("30", "3"), "SALT": ("10", "1")}, "Acme Mills")
    apply(reg, "receive_purchase_order", number=received["number"], lines=[
        {"sku": "FLOUR", "quantity": "30", "lots": [
            {"lot": "L-LATE", "quantity": "20", "expiry": "2027-03-01"},
            {"lot": "L-SOON", "quantity": "10", "expiry": "2026-12-31"}]},
        {"sku": "SALT", "quantity": "10"}])
    so = given.so({"FLOUR": "15", "SALT": "2"}, "Cafe Bleu")
    mo = given.mo("BREAD", "40")
    return {"po": po["number"], "so": so["number"], "mo": mo["number"]}


def text_of(pdf: bytes) -> str:
    assert pdf.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


def printed(reg: Registry, kind: str, *keys: str) -> tuple[bytes, str]:
    pdf = Printer(reg, Settings(currency="EUR")).pdf(VIEWER, path_of(kind, *keys))
    return pdf, text_of(pdf)


def headed(reg: Registry, kind: str, number: str, title: str) -> str:
    """The text of `kind` printed for document `number`, headed by `title` and the
    number."""
    _, text = printed(reg, kind, number)
    assert f"{title} {number}" in text
    return text


def test_purchase_order_prints_lines_and_a_total_rounded_per_line(reg: Registry) -> None:
    numbers = company(reg)
    text = headed(reg, "purchase_order", numbers["po"], "Purchase order")
    assert "Acme Mills" in text and "orders@acme.test" in text and "Main warehouse" in text
    assert "Flour type 550" in text and "Sea salt" in text
    assert re.search(r"120\s+kg", text)
    assert "€3.1671" in text  # a price as agreed, in the order's currency
    assert "€380.05" in text  # 120 x 3.1671 = 380.052
    assert re.search(r"€0.335\s+€1.01", text)  # 3 x 0.335 = 1.005, half up
    assert re.search(r"Total EUR\s+€381.06", text)  # the printed lines' sum
    assert "23 Nov 2026" in text  # the order's date: no language named, the admin's English
    assert "380.052" not in text and "2026-11-23" not in text


def supplier_order(reg: Registry, currency: str, price: str) -> str:
    """A purchase order to a supplier billing in `currency` (a rate is for receipts)."""
    given = Given(reg)
    given.location(name="Main warehouse")
    given.supplier("Far Away Co", currency=currency)
    given.item("BOLT", name="Hex bolt", uom="pcs")
    given.item("NUT", name="Hex nut", uom="pcs")
    po = given.po({"BOLT": ("1200", price), "NUT": ("3", "0.335")}, "Far Away Co")
    assert po["currency"] == currency
    return str(po["number"])


def test_a_purchase_order_prints_in_its_own_currency(reg: Registry) -> None:
    number = supplier_order(reg, "USD", "1.0475")
    _, text = printed(reg, "purchase_order", number)
    assert "$1.0475" in text and "$1,257.00" in text  # 1200 x 1.0475, grouped
    assert re.search(r"Total USD\s+US\$1,258.01", text)  # + 3 x 0.335 = 1.005 -> 1.01
    assert "EUR" not in text and "€" not in text


def test_a_purchase_order_in_the_suppliers_unit_prints_that_unit(reg: Registry) -> None:
    """Boxes on the order are boxes on its paper: 11 box at 3.50 a box, not 11 pcs."""
    given = Given(reg)
    given.location(name="Main warehouse")
    given.supplier("Alpha")
    given.item("RESA", name="Resistor 10k", uom="pcs")
    given.offer("RESA", "Alpha", purchase_unit="box", units_per_purchase_unit="100",
                price_breaks=[{"min_quantity": "1", "unit_price": "3.50"}])
    po = apply(reg, "create_purchase_order", supplier="Alpha", location="MAIN", lines=[
        {"sku": "RESA", "quantity": "11", "unit": "box", "unit_price": "3.50"}])
    _, text = printed(reg, "purchase_order", po["number"])
    # the pack beside the unit: the supplier's box, as the buyer's screen says it
    assert re.search(r"11\s+box of 100 pcs\s+€3.50\s+€38.50", text), text
    assert not re.search(r"11\s+pcs", text)


def test_yen_has_no_decimals_on_paper(reg: Registry) -> None:
    number = supplier_order(reg, "JPY", "12.5")
    _, text = printed(reg, "purchase_order", number)
    assert "¥12.5" in text  # the price as agreed
    assert "¥15,000" in text  # 1200 x 12.5
    assert re.search(r"JP¥0.335\s+JP¥1\s", text)  # 3 x 0.335 = 1.005: whole yen, ¥1
    assert re.search(r"Total JPY\s+JP¥15,001\b", text)
    assert "15,000.00" not in text and "EUR" not in text


def test_paper_reads_in_the_readers_language_over_http(reg: Registry,
                                                      sqlite_url: str) -> None:
    numbers = company(reg)
    app = create_app(reg, Settings(database_url=sqlite_url, currency="EUR"))
    token = app.state.auth.mint("vera", ["viewer"], 600)
    with TestClient(app) as client:
        r = client.get(link("purchase_order", numbers["po"]), headers={
            "Authorization": f"Bearer {token}", "Accept-Language": "de-DE,de;q=0.9"})
    text = text_of(r.content)
    assert "380,05\xa0€" in text and "3,1671\xa0€" in text and "23.11.2026" in text


def test_packing_slip_and_pick_list(reg: Registry) -> None:
    numbers = company(reg)
    slip = headed(reg, "packing_slip", numbers["so"], "Packing slip")
    assert "Cafe Bleu" in slip and "Flour type 550" in slip and "Sea salt" in slip
    assert re.search(r"15\s+0\s+15\s+kg", slip)
    picks = headed(reg, "pick_list", numbers["so"], "Pick list")
    assert "Cafe Bleu" in picks
    # first expiring first: 10 from L-SOON, then 5 from L-LATE, at MAIN
    soon, late = picks.index("L-SOON"), picks.index("L-LATE")
    assert soon < late
    assert re.search(r"MAIN\s+L-SOON\s+31 Dec 2026\s+10\s+kg", picks)
    assert re.search(r"MAIN\s+L-LATE\s+1 Mar 2027\s+5\s+kg", picks)


def test_traveller_lists_components_for_the_whole_order(reg: Registry) -> None:
    numbers = company(reg)
    text = headed(reg, "traveller", numbers["mo"], "MO traveller")
    assert "Country loaf" in text and "Flour type 550" in text and "Sea salt" in text
    assert re.search(r"FLOUR\s+Flour type 550\s+0.5\s+20\s+kg", text)
    assert re.search(r"SALT\s+Sea salt\s+0.01\s+0.4\s+kg", text)
    assert "Steps" in text


def test_traveller_prints_each_operations_times(reg: Registry) -> None:
    company(reg)
    apply(reg, "create_work_centre", code="MIX", name="Mixer")
    apply(reg, "create_work_centre", code="OVEN", name="Deck oven")
    apply(reg, "update_routing", sku="BREAD", operations=[
        {"sequence": 10, "name": "Mix dough", "work_centre": "MIX", "setup_minutes": "15",
         "run_minutes": "0.5"},
        {"sequence": 20, "name": "Bake", "work_centre": "OVEN", "setup_minutes": "10",
         "run_minutes": "1.5"}])
    mo = apply(reg, "create_manufacturing_order", sku="BREAD", quantity="40", location="MAIN",
               start="2026-11-24T08:00:00Z")
    planned = [(o["name"], Decimal(o["planned_minutes"])) for o in reg.invoke(
        "get_manufacturing_order", {"number": mo["number"]}, VIEWER)["operations"]]
    assert planned == [("Mix dough", 35), ("Bake", 70)]
    _, text = printed(reg, "traveller", mo["number"])
    assert "Operations" in text and "Steps" not in text
    flat = " ".join(text.split())  # cells wrap; a time's space is a narrow one
    # 15 + 40 x 0.5 = 35 min at the mixer from 08:00, then 10 + 40 x 1.5 = 70 in the oven
    assert ("10 Mix dough MIX 35 24 Nov 2026, 08:00:00 UTC 24 Nov 2026, 08:35:00 UTC 0"
            in flat), flat
    assert "20 Bake OVEN 70 24 Nov 2026, 08:35:00 UTC 24 Nov 2026, 09:45:00 UTC 0" in flat


def test_item_and_location_labels_carry_their_key(reg: Registry) -> None:
    company(reg)
    pdf, text = printed(reg, "item_label", "FLOUR")
    assert "Flour type 550" in text and "FLOUR" in text and GTIN in text
    assert decoded(pdf) == [("Code128", "FLOUR")]
    pdf, text = printed(reg, "location_label", "MAIN")
    assert "Main warehouse" in text
    assert decoded(pdf) == [("Code128", "MAIN")]


def decoded(pdf: bytes) -> list[tuple[str, str]]:
    """Every barcode zxing-cpp reads on the first page, rendered at 300 dpi."""
    page = pypdfium2.PdfDocument(pdf)[0]
    image = page.render(scale=300 / 72).to_pil()
    return [(r.format.name, r.text) for r in zxingcpp.read_barcodes(image)]


def test_a_lot_label_scans_back_to_its_lot(reg: Registry) -> None:
    company(reg)
    pdf, text = printed(reg, "lot_label", "FLOUR", "L-SOON")
    assert "L-SOON" in text and "31 Dec 2026" in text and "Flour type 550" in text
    page = pypdfium2.PdfDocument(pdf)[0]
    found = zxingcpp.read_barcodes(page.render(scale=300 / 72).to_pil())
    assert len(found) == 1
    scan = found[0]
    assert scan.content_type == zxingcpp.ContentType.GS1  # FNC1 first: GS1-128
    assert scan.text == f"(01){GTIN}(17)261231(10)L-SOON"
    lot = reg.invoke("find_by_code", {"code": scan.text}, VIEWER)
    assert lot["matches"] == [{"kind": "lot", "key": "L-SOON", "sku": "FLOUR",
                               "name": "Flour type 550", "expiry": "2026-12-31"}]
    raw = zxingcpp.read_barcodes(page.render(scale=300 / 72).to_pil(),
                                 text_mode=zxingcpp.TextMode.Plain)[0].text
    assert "\x1d" not in raw or raw.index("\x1d") > 0  # (10) is last: no separator needed
    assert reg.invoke("find_by_code", {"code": raw}, VIEWER)["matches"] == lot["matches"]


def test_http_prints_for_a_bearer_token_and_the_admin_cookie(reg: Registry,
                                                              sqlite_url: str) -> None:
    numbers = company(reg)
    app = create_app(reg, Settings(database_url=sqlite_url))
    token = app.state.auth.mint("vera", ["viewer"], 600)
    url = link("purchase_order", numbers["po"])
    assert url == f"/print/purchase-orders/{numbers['po']}.pdf"
    with TestClient(app) as client:
        r = client.get(url, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
        assert "380.05" in text_of(r.content)
        assert client.get(url).status_code == 401
        client.cookies.set("shopfloor_session", token)
        assert "Cafe Bleu" in text_of(client.get(link("pick_list", numbers["so"])).content)
        client.cookies.set("shopfloor_session", "expired.or.forged")
        back = client.get(url, follow_redirects=False)
        assert back.status_code == 303 and back.headers["location"].startswith("/sign-in?")
        client.cookies.set("shopfloor_session", token)
        missing = client.get("/print/purchase-orders/PO-NONE.pdf")
        assert missing.status_code == 404 and missing.json()["error"]["field"] == "number"
        assert client.get("/print/nothing.pdf").status_code == 404


def test_a_key_with_a_slash_makes_one_path_segment(reg: Registry) -> None:
    company(reg)
    apply(reg, "create_item", sku="BOX/10", name="Box of ten")
    assert path_of("item_label", "BOX/10") == "labels/items/BOX%2F10.pdf"
    _, text = printed(reg, "item_label", "BOX/10")
    assert "Box of ten" in text


def test_documents_are_mcp_resources(reg: Registry) -> None:
    numbers = company(reg)
    settings = Settings(local_role="viewer", local_actor="vera")

    async def run() -> tuple[list[Any], Any]:
        async with Client(build_server(reg, settings_actor(settings))) as client:
            templates = (await client.list_resource_templates()).resource_templates
            uri = "shopfloor://documents/" + path_of("traveller", numbers["mo"])
            return templates, (await client.read_resource(uri)).contents[0]

    templates, content = anyio.run(run)
    uris = {t.uri_template for t in templates}
    assert "shopfloor://documents/labels/lots/{sku}/{lot}.pdf" in uris
    assert "shopfloor://documents/purchase-orders/{number}.pdf" in uris
    assert all(t.mime_type == "application/pdf" for t in templates
               if t.uri_template.startswith("shopfloor://documents/"))
    assert content.mime_type == "application/pdf"
    assert "Country loaf" in text_of(base64.b64decode(content.blob))


def test_admin_pages_link_their_documents(reg: Registry, sqlite_url: str) -> None:
    numbers = company(reg)
    app = create_app(reg, Settings(database_url=sqlite_url))
    with TestClient(app) as client:
        client.cookies.set("shopfloor_session", app.state.auth.mint("vera", ["viewer"], 600))
        item = client.get("/items/FLOUR").text
        for kind, keys in (("item_label", ("FLOUR",)), ("lot_label", ("FLOUR", "L-SOON")),
                           ("lot_label", ("FLOUR", "L-LATE")), ("location_label", ("MAIN",))):
            assert f'href="{link(kind, *keys)}"' in item
        pages = {"purchase-orders": ("po", "purchase_order"), "sales-orders": ("so", "pick_list"),
                 "manufacturing-orders": ("mo", "traveller")}
        for slug, (which, kind) in pages.items():
            page = client.get(f"/{slug}/{numbers[which]}").text
            assert f'href="{link(kind, numbers[which])}"' in page
            assert client.get(link(kind, numbers[which])).status_code == 200


def test_paper_without_a_language_dates_as_the_admin_does(reg: Registry,
                                                          sqlite_url: str) -> None:
    """Issue 29: a PDF fetched with no language (a script, an MCP host) printed US dates,
    "Nov 23, 2026", beside the admin's "23 Nov 2026": both fall back to one English."""
    numbers = company(reg)
    app = create_app(reg, Settings(database_url=sqlite_url, currency="EUR"))
    with TestClient(app) as client:  # no Accept-Language on either
        client.cookies.set("shopfloor_session", app.state.auth.mint("vera", ["viewer"], 600))
        page = client.get(f"/purchase-orders/{numbers['po']}").text
        pdf = client.get(link("purchase_order", numbers["po"])).content
    shown = re.search(r"\b\d{1,2} [A-Z][a-z]{2} 20\d\d\b", page.split("<main", 1)[1])
    assert shown and shown.group() == "23 Nov 2026", page
    text = " ".join(text_of(pdf).split())
    assert shown.group() in text and "Nov 23, 2026" not in text, text
    mcp = Printer(reg, Settings(currency="EUR")).pdf(VIEWER, path_of("purchase_order",
                                                                     numbers["po"]))
    assert shown.group() in text_of(mcp)  # a resource read names no language either
