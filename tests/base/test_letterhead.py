"""Paper with a letterhead (issue 29): every PDF carries the company's name, address,
contacts and logo; a purchase order prints the supplier's SKU, the purchase unit, the
currency, the supplier's reference and the notes; a lot label carries a barcode a scanner
reads back to its lot, with a GTIN (GS1-128: (01), (17), (10)) or without one ((240) the
SKU, (10) the lot), and never words telling the reader what to do. PDFs are read back with
pypdf, barcodes decoded by zxing-cpp from a pypdfium2 rendering (as test_paper does).

On SQLite only, as test_paper: the documents' data are read tools the reliability suite
runs on both databases; what is tested here is the paper."""

from __future__ import annotations

import base64
import io

import pypdf
import pytest

from shopfloor.registry.registry import Registry
from tests.base.test_company_profile import SVG, png
from tests.base.test_paper import VIEWER, company, decoded, printed, reg
from tests.helpers import apply

__all__ = ["reg"]  # the fixture, shared with test_paper

LETTERHEAD = {"name": "Brightwood Bakery Ltd", "address": "Unit 4, Mill Lane\nLeeds LS1 4AB",
              "tax_id": "GB 123 4567 89", "email": "office@brightwood.example",
              "phone": "+44 113 496 0000"}


def _images(pdf: bytes) -> int:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return sum(len(page.images) for page in reader.pages)


@pytest.mark.parametrize("logo", ["png", "svg"])
def test_every_document_carries_the_letterhead(reg: Registry, logo: str) -> None:
    numbers = company(reg)
    data = png(40, 20) if logo == "png" else SVG
    apply(reg, "set_company_profile", **LETTERHEAD, logo=base64.b64encode(data).decode())
    apply(reg, "create_item", sku="RYE", name="Rye", batch_tracked=True)
    for kind, keys in (("purchase_order", [numbers["po"]]), ("packing_slip", [numbers["so"]]),
                       ("pick_list", [numbers["so"]]), ("traveller", [numbers["mo"]])):
        pdf, text = printed(reg, kind, *keys)
        flat = " ".join(text.split())
        assert "Brightwood Bakery Ltd" in flat and "Unit 4, Mill Lane" in flat, (kind, flat)
        assert "Leeds LS1 4AB" in flat and "GB 123 4567 89" in flat, kind
        assert "office@brightwood.example" in flat, kind
        if logo == "png":
            assert _images(pdf) >= 1, kind  # the logo (the number's barcode is vector)
    for kind, keys in (("item_label", ["FLOUR"]), ("lot_label", ["FLOUR", "L-SOON"]),
                       ("location_label", ["MAIN"])):
        assert "Brightwood Bakery Ltd" in printed(reg, kind, *keys)[1], kind


def test_without_a_letterhead_documents_still_print(reg: Registry) -> None:
    numbers = company(reg)
    _, text = printed(reg, "purchase_order", numbers["po"])
    assert "Purchase order" in text and "Brightwood" not in text


def test_a_purchase_order_prints_the_suppliers_terms_reference_and_notes(
        reg: Registry) -> None:
    company(reg)
    apply(reg, "create_supplier", name="Far Away Co", currency="USD", contact="Dana Lee",
          address="9 Harbour Rd\nPortland, OR 97201", tax_id="US-99-1234567",
          payment_terms_days=45)
    apply(reg, "set_supplier_item", sku="FLOUR", supplier="Far Away Co",
          supplier_sku="FA-FL-25", purchase_unit="sack", units_per_purchase_unit="25",
          price_breaks=[{"min_quantity": "1", "unit_price": "31.5"}])
    po = apply(reg, "create_purchase_order", supplier="Far Away Co", location="MAIN",
               reference="FA-ORD-7781", notes="Deliver to gate 2.\nCall Dana before noon.",
               lines=[{"sku": "FLOUR", "quantity": "4", "unit": "sack"},
                      {"sku": "SALT", "quantity": "3", "unit_price": "2"}])
    _, text = printed(reg, "purchase_order", po["number"])
    flat = " ".join(text.split())
    assert "FA-FL-25" in flat and "sack" in flat, flat
    assert "Unit price (USD)" in flat and "Total USD" in flat
    assert "$126.00" in flat and "$132.00" in flat
    assert "FA-ORD-7781" in flat and "Deliver to gate 2." in flat
    assert "Call Dana before noon." in flat
    assert "Dana Lee" in flat and "9 Harbour Rd" in flat and "US-99-1234567" in flat
    assert "45 days" in flat


def test_a_lot_label_without_a_gtin_scans_back_to_its_lot(reg: Registry) -> None:
    company(reg)
    apply(reg, "create_item", sku="YEAST", name="Yeast", batch_tracked=True)
    apply(reg, "create_item", sku="SUGAR", name="Sugar", batch_tracked=True)
    po = apply(reg, "create_purchase_order", supplier="Acme Mills", location="MAIN",
               lines=[{"sku": "YEAST", "quantity": "1", "unit_price": "1"},
                      {"sku": "SUGAR", "quantity": "1", "unit_price": "1"}])
    apply(reg, "receive_purchase_order", number=po["number"], lines=[
        {"sku": "YEAST", "quantity": "1", "lots": [{"lot": "Y1"}]},
        {"sku": "SUGAR", "quantity": "1", "lots": [{"lot": "Y1"}]}])  # one lot number, two items
    pdf, text = printed(reg, "lot_label", "YEAST", "Y1")
    assert "GTIN" not in text and "give" not in text.lower()
    scans = decoded(pdf)
    assert scans == [("Code128", "(240)YEAST(10)Y1")], scans
    found = reg.invoke("find_by_code", {"code": scans[0][1]}, VIEWER)["matches"]
    assert found == [{"kind": "lot", "key": "Y1", "sku": "YEAST", "name": "Yeast",
                      "expiry": None}]
    # a scanner's raw bytes: FNC1 as the group separator after the variable (240)
    assert reg.invoke("find_by_code", {"code": "]C1240YEAST\x1d10Y1"},
                      VIEWER)["matches"] == found


def test_a_lot_label_with_a_gtin_is_gs1_and_says_nothing_to_do(reg: Registry) -> None:
    company(reg)
    pdf, text = printed(reg, "lot_label", "FLOUR", "L-SOON")
    assert decoded(pdf) == [("Code128", "(01)09501101530003(17)261231(10)L-SOON")]
    assert "give" not in text.lower()


def test_a_lot_no_gs1_symbol_can_carry_prints_its_key_alone(reg: Registry) -> None:
    company(reg)
    apply(reg, "create_item", sku="HONEY", name="Honey", batch_tracked=True)
    po = apply(reg, "create_purchase_order", supplier="Acme Mills", location="MAIN",
               lines=[{"sku": "HONEY", "quantity": "1", "unit_price": "1"}])
    apply(reg, "receive_purchase_order", number=po["number"], lines=[
        {"sku": "HONEY", "quantity": "1", "lots": [{"lot": "Ernte 2026 Süd"}]}])
    pdf, text = printed(reg, "lot_label", "HONEY", "Ernte 2026 Süd")
    assert "Ernte 2026 Süd" in text and decoded(pdf) == []
    assert "give" not in text.lower() and "cannot" not in text.lower()
