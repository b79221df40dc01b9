"""Printed documents: Jinja2 templates with print CSS, made into PDF by WeasyPrint.

A document is drawn from the plain results of read tools (the surface fetched them); this
module only lays them out. Money is rounded once per line, half up, to the currency's own
decimals, and the total is the sum of the printed lines, so the page adds up the way a
reader checks it (120 x 3.1671 prints 380.05, and a column of such lines sums to its
printed total).

The words on paper are the admin's (`ui.formats`, Babel): a template is handed `fmt`,
the reader's formats, and says `fmt.money(...)`, `fmt.quantity(...)`, `fmt.date(...)`,
so a figure reads the same on screen and on paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from importlib import resources as package_files
from typing import Any
from urllib.parse import quote, unquote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from shopfloor.kernel.errors import NotFound
from shopfloor.ui.formats import Formats

URI_PREFIX = "shopfloor://documents/"
HTTP_PREFIX = "/print/"


@dataclass(frozen=True)
class Kind:
    template: str  # RFC 6570, after the prefix
    title: str
    description: str


KINDS: dict[str, Kind] = {
    "purchase_order": Kind("purchase-orders/{number}.pdf", "Purchase order",
                           "A purchase order to send to its supplier"),
    "packing_slip": Kind("sales-orders/{number}/packing-slip.pdf", "Packing slip",
                         "What a sales order ships"),
    "pick_list": Kind("sales-orders/{number}/pick-list.pdf", "Pick list",
                      "A sales order's lots to pick, first expiring first"),
    "traveller": Kind("manufacturing-orders/{number}/traveller.pdf", "MO traveller",
                      "A manufacturing order's components and steps"),
    "return_note": Kind("returns/{number}.pdf", "Return note",
                        "A customer or supplier return: its lines, value and reference"),
    "item_label": Kind("labels/items/{sku}.pdf", "Item label", "Code 128 of the SKU"),
    "lot_label": Kind("labels/lots/{sku}/{lot}.pdf", "Lot label",
                      "GS1-128: (01) GTIN, (17) expiry, (10) lot"),
    "location_label": Kind("labels/locations/{code}.pdf", "Location label",
                           "Code 128 of the location code"),
}


def path_of(kind: str, *keys: str) -> str:
    """The encoded path (after the prefix) of a document: each key one segment."""
    shape = KINDS[kind].template
    for key in keys:
        start = shape.index("{")
        shape = shape[:start] + quote(key, safe="") + shape[shape.index("}") + 1:]
    return shape


def link(kind: str, *keys: str) -> str:
    return HTTP_PREFIX + path_of(kind, *keys)


def parse(path: str) -> tuple[str, list[str]]:
    """(kind, keys) of an encoded document path; NotFound if it names none."""
    segments = path.split("/")
    for kind, spec in KINDS.items():
        shape = spec.template.split("/")
        if len(shape) != len(segments):
            continue
        keys: list[str] = []
        for want, got in zip(shape, segments, strict=True):
            if want.startswith("{"):
                tail = want[want.index("}") + 1:]
                if not got.endswith(tail) or len(got) == len(tail):
                    break
                keys.append(unquote(got[:len(got) - len(tail)]))
            elif want != got:
                break
        else:
            return kind, keys
    raise NotFound(f"no document at {path!r}", field="path")


MEDIA_TYPE = "application/pdf"


def line_total(quantity: Decimal | str, unit_price: Decimal | str, digits: int = 2) -> Decimal:
    """A line's amount as printed: rounded half up to the currency's decimals."""
    exact = Decimal(str(quantity)) * Decimal(str(unit_price))
    return exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def total(lines: Iterable[Mapping[str, Any]], digits: int = 2) -> Decimal:
    """The sum of the lines as printed (each rounded), not the rounded exact sum."""
    return sum((line_total(ln["quantity"], ln["unit_price"], digits) for ln in lines),
               Decimal(0))


@cache
def _env() -> Environment:
    env = Environment(loader=PackageLoader("shopfloor.ui", "print"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.globals["css"] = Markup(
        package_files.files("shopfloor.ui").joinpath("print/print.css").read_text("utf-8"))
    return env


def html(template: str, fmt: Formats, **context: Any) -> str:
    """A document's page, its figures in the reader's formats."""
    return _env().get_template(template).render(fmt=fmt, **context)


def pdf(page: str) -> bytes:
    """The PDF of an HTML page (the page carries its own print CSS)."""
    from weasyprint import HTML  # type: ignore[import-untyped]  # ~0.3 s: only when printing

    out: bytes = HTML(string=page, base_url=None).write_pdf()
    return out
