"""Barcodes drawn as SVG, for printed labels and documents.

Code 128 throughout: a record's own key as plain Code 128, a lot as GS1-128 (FNC1 in
first position makes it GS1; FNC1 again ends a variable-length field that is not the
last). Bars are vectors in the PDF, so a label prints sharp at any printer's resolution.
A key Code 128 cannot carry (a character outside ASCII) gets no bars: the label prints
the key itself, and a scanner never reads something else.

A lot of an item with no GTIN is a GS1-128 of the item's SKU as (240), the additional
product identification, and the lot as (10) or the serial as (21): the scan names both,
so a lot number two items share still resolves to one lot.
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass
from datetime import date

from barcode import Code128  # type: ignore[import-untyped]
from barcode.writer import SVGWriter  # type: ignore[import-untyped]

from shopfloor.kernel import gs1

MODULE_MM = 0.3  # X-dimension: GS1-128 allows 0.25 mm up, and reads at 300 dpi with margin
HEIGHT_MM = 13.0


@dataclass(frozen=True)
class Barcode:
    svg: str  # an SVG document
    text: str  # what is printed under it (GS1: the AIs in parentheses)

    @property
    def src(self) -> str:
        """A data: URL of the SVG. An image, not inline SVG: inline, each bar would be an
        element the HTML cascade styles and lays out (most of a PDF's time)."""
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg.encode()).decode()


def _svg(data: str, module_mm: float, height_mm: float) -> str:
    out = io.BytesIO()
    Code128(data, writer=SVGWriter()).write(out, options={
        "module_width": module_mm, "module_height": height_mm, "write_text": False,
        "quiet_zone": 10 * module_mm})
    return out.getvalue().decode("utf-8")


def code128(key: str, *, module_mm: float = MODULE_MM,
            height_mm: float = HEIGHT_MM) -> Barcode | None:
    """A record's key as Code 128, or None if the key has a character it cannot carry."""
    if not key.isascii() or any(ord(c) < 32 or ord(c) == 127 for c in key):
        return None
    return Barcode(_svg(key, module_mm, height_mm), key)


def gs1_fields(gtin: str, lot: str | None = None, expiry: date | None = None,
               serial: bool = False) -> list[tuple[str, str]]:
    """(01) GTIN, then (17) expiry (fixed length), then (10) lot or (21) serial last,
    so the variable-length field needs no separator after it."""
    fields = [("01", gs1.gtin14(gtin))]
    if expiry is not None:
        fields.append(("17", gs1.yymmdd(expiry)))
    if lot is not None:
        fields.append(("21" if serial else "10", lot))
    return fields


# GS1's character set 82 (General Specifications 7.11), less the parentheses: a value with
# them could not be read back from the text printed under the bars.
_CSET82 = re.compile(r"^[!\"%&'*+,\-./0-9:;<=>?A-Z_a-z]+$")


def own_fields(sku: str, lot: str, serial: bool = False) -> list[tuple[str, str]] | None:
    """(240) SKU then (10) lot or (21) serial, or None if either cannot be said in GS1
    (too long, or a character outside its set)."""
    if len(sku) > 30 or len(lot) > 20 or not (_CSET82.match(sku) and _CSET82.match(lot)):
        return None
    return [("240", sku), ("21" if serial else "10", lot)]


def gs1_128(fields: list[tuple[str, str]], *, module_mm: float = MODULE_MM,
            height_mm: float = HEIGHT_MM) -> Barcode | None:
    """A GS1-128 symbol for the fields, or None if a value is not GS1's character set
    (a subset of ASCII: printable, no control)."""
    if not all(v.isascii() and v.isprintable() for _, v in fields):
        return None
    return Barcode(_svg(gs1.element_string(fields), module_mm, height_mm), gs1.human(fields))
