"""Printed documents and labels: PDFs under /print/ (HTTP) and shopfloor://documents/ (MCP).

One path names a document on both surfaces: `/print/purchase-orders/PO-1.pdf` is
`shopfloor://documents/purchase-orders/PO-1.pdf`. Keys in it are percent-encoded one
segment at a time (a SKU may hold a slash). A document's data comes from read tools
invoked as the caller, so the registry's role check is the guard and a viewer may print
whatever a viewer may read; ui.paper lays it out and WeasyPrint makes the PDF. Figures
read in the reader's formats (`ui.formats`, their Accept-Language over HTTP), and a
purchase order's money in the order's own currency, the one its supplier is billed in.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.app.settings import Settings
from shopfloor.kernel.errors import Forbidden, NotFound, ShopfloorError
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import label as status_label
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.admin.session import SignInNeeded, bearer, current_actor, to_sign_in
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.openapi import STATUS
from shopfloor.ui import barcodes, paper
from shopfloor.ui.formats import Formats, formats_for
from shopfloor.ui.paper import HTTP_PREFIX, KINDS, MEDIA_TYPE, URI_PREFIX, parse


def _number_code(number: str) -> barcodes.Barcode | None:
    """A document's number in its heading, small: scanned at a desk, not across a shelf."""
    return barcodes.code128(number, module_mm=0.25, height_mm=10)


Drawn = tuple[str, dict[str, Any]]  # a template and what it is handed


class Printer:
    """Reads a document's data through the registry as the caller, then draws it."""

    def __init__(self, registry: Registry, settings: Settings | None = None) -> None:
        from shopfloor.app.wiring import shown_as_booked

        self.registry = registry
        self.settings = shown_as_booked(registry, settings or Settings.load())
        self._draw: dict[str, Callable[[Actor, list[str], Formats], Drawn]] = {
            "purchase_order": self._purchase_order, "packing_slip": self._packing_slip,
            "pick_list": self._pick_list, "traveller": self._traveller,
            "return_note": self._return_note,
            "item_label": self._item_label, "lot_label": self._lot_label,
            "location_label": self._location_label}

    def read(self, actor: Actor, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.registry.invoke(tool, args, actor)

    def formats(self, accept_language: str | None = None) -> Formats:
        """The reader's formats: their language, the deployment's currency and zone."""
        return formats_for(accept_language, self.settings.currency, self.settings.time_zone)

    def html(self, actor: Actor, path: str, fmt: Formats | None = None) -> str:
        kind, keys = parse(path)
        fmt = fmt or self.formats()
        template, ctx = self._draw[kind](actor, keys, fmt)
        return paper.html(template, fmt, letterhead=self._letterhead(actor), **ctx)

    def pdf(self, actor: Actor, path: str, fmt: Formats | None = None) -> bytes:
        if not actor.may(Role.viewer):
            raise Forbidden("printing needs the viewer role")
        return paper.pdf(self.html(actor, path, fmt))

    # -- what each document reads ------------------------------------------------------
    def _items(self, actor: Actor, skus: list[str]) -> dict[str, dict[str, Any]]:
        if not skus:
            return {}
        found = self.read(actor, "search_items", {"skus": sorted(set(skus)), "limit": 500})
        return {i["sku"]: i for i in found["items"]}

    def _letterhead(self, actor: Actor) -> dict[str, Any]:
        """The company's name, address, contacts and logo (as a data: URL, so the page
        fetches nothing); none until it is set."""
        try:
            got = self.read(actor, "get_company_profile", {})
        except ShopfloorError:
            return {}
        contacts = [(n, got[k]) for n, k in (("Tax ID", "tax_id"), ("Email", "email"),
                                             ("Phone", "phone")) if got.get(k)]
        logo = f"data:{got['logo_type']};base64,{got['logo']}" if got.get("logo") else None
        return {"name": got.get("name"), "logo_src": logo, "contacts": contacts,
                "address_lines": [ln for ln in (got.get("address") or "").split("\n") if ln]}

    def _partner(self, actor: Actor, tool: str, key: str, name: str) -> dict[str, Any]:
        """A supplier's or customer's contact lines; none for a viewer who may not read
        them (the name is on the order)."""
        try:
            return self.read(actor, tool, {key: name})
        except ShopfloorError:
            return {}

    def _location(self, actor: Actor, code: str) -> dict[str, Any]:
        rows = self.read(actor, "list_locations", {"query": code})["locations"]
        found: dict[str, Any] | None = next((r for r in rows if r["code"] == code), None)
        if found is None:
            raise NotFound(f"no location {code!r}", field="code")
        return found

    def _order(self, actor: Actor, tool: str, number: str, title: str,
               partners: tuple[str, str]) -> dict[str, Any]:
        order = self.read(actor, tool, {"number": number})
        return {"order": order, "title": title, "number": order["number"],
                "status": status_label(order["status"]),
                "currency": order.get("currency") or self.settings.currency,
                "items": self._items(actor, [ln["sku"] for ln in order["lines"]]),
                "partner": self._partner(actor, *partners, order["partner"]),
                "location": self._location(actor, order["location"]),
                "code": _number_code(order["number"])}

    def _purchase_order(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        ctx = self._order(actor, "get_purchase_order", keys[0], "Purchase order",
                          ("get_supplier", "name"))
        digits = fmt.digits(ctx["currency"])
        amounts = [paper.line_total(ln["quantity"], ln["unit_price"], digits)
                   for ln in ctx["order"]["lines"]]
        try:  # the supplier's own SKUs, where the reader may see its terms
            offers = self.read(actor, "list_supplier_items",
                               {"supplier": ctx["order"]["partner"]})["supplier_items"]
        except ShopfloorError:
            offers = []
        return "purchase_order.html", {**ctx, "amounts": amounts,
                                       "total": sum(amounts, Decimal(0)),
                                       "their_skus": {o["sku"]: o["supplier_sku"]
                                                      for o in offers if o["supplier_sku"]}}

    def _packing_slip(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        ctx = self._order(actor, "get_sales_order", keys[0], "Packing slip",
                          ("get_customer", "name"))
        remaining = [max(Decimal(ln["quantity"]) - Decimal(ln["done_quantity"]), Decimal(0))
                     for ln in ctx["order"]["lines"]]
        return "packing_slip.html", {**ctx, "remaining": remaining}

    def _pick_list(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        picks = self.read(actor, "get_pick_list", {"number": keys[0]})
        return "pick_list.html", {"picks": picks, "title": "Pick list",
                                  "number": picks["number"],
                                  "code": _number_code(picks["number"])}

    def _traveller(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        mo = self.read(actor, "get_manufacturing_order", {"number": keys[0]})
        items = self._items(actor, [mo["sku"], *(c["sku"] for c in mo["components"])])
        needed = [Decimal(c["quantity"]) * Decimal(mo["quantity"]) for c in mo["components"]]
        steps = [f"Pick the components to {mo['location']}",
                 f"Make {fmt.quantity(mo['quantity'])} {mo['sku']}",
                 "Count good and scrapped units; record the completion"]
        return "traveller.html", {
            "order": mo, "title": "MO traveller", "number": mo["number"],
            "status": status_label(mo["status"]), "product": items.get(mo["sku"], {}),
            "items": items, "needed": needed, "operations": mo.get("operations") or [],
            "steps": steps, "code": _number_code(mo["number"])}

    def _return_note(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        """Its lines in their order lines' units; its value is the stock's, in the books'
        currency (what the goods were booked at), not a price the partner agreed."""
        ret = self.read(actor, "get_return", {"number": keys[0]})
        supplier = ret["kind"] == "supplier"
        digits = fmt.digits(ret["currency"])  # printed lines add up to the printed total
        amounts = [paper.line_total(ln["quantity"], ln["unit_cost"], digits)
                   for ln in ret["lines"]]
        partner = self._partner(actor, "get_supplier" if supplier else "get_customer",
                                "name", ret["partner"])
        return "return_note.html", {
            "ret": ret, "order": ret, "title": "Return note", "number": ret["number"],
            "partner": partner, "currency": ret["currency"], "amounts": amounts,
            "total": sum(amounts, Decimal(0)),
            "partner_word": "Supplier" if supplier else "Customer",
            "items": self._items(actor, [ln["sku"] for ln in ret["lines"]]),
            "code": _number_code(ret["number"])}

    def _item_label(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        item = self.read(actor, "get_item", {"sku": keys[0]})
        return "label.html", {"title": item["name"], "key": item["sku"],
                              "facts": [("GTIN", item.get("gtin")), ("Unit", item["uom"])],
                              "code": barcodes.code128(item["sku"])}

    def _lot_label(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        sku, lot = keys
        item = self.read(actor, "get_item", {"sku": sku})
        found = self.read(actor, "find_by_code", {"code": lot})["matches"]
        match = next((m for m in found if m["kind"] in ("lot", "serial")
                      and m["sku"] == item["sku"] and m["key"] == lot), None)
        if match is None:
            raise NotFound(f"{item['sku']} has no lot {lot!r}", field="lot")
        gtin = item.get("gtin")
        expiry = date.fromisoformat(match["expiry"][:10]) if match["expiry"] else None
        serial = match["kind"] == "serial"
        fields = barcodes.gs1_fields(gtin, lot, expiry, serial=serial) if gtin else \
            barcodes.own_fields(item["sku"], lot, serial)
        return "label.html", {
            "title": item["name"], "key": lot,
            "code": barcodes.gs1_128(fields) if fields else None,
            "facts": [("SKU", item["sku"]), ("Expiry", fmt.date(expiry) if expiry else None),
                      ("GTIN", gtin)]}

    def _location_label(self, actor: Actor, keys: list[str], fmt: Formats) -> Drawn:
        loc = self._location(actor, keys[0])
        return "label.html", {"title": loc["name"], "key": loc["code"], "facts": [],
                              "code": barcodes.code128(loc["code"], height_mm=18)}


# -- the surfaces ----------------------------------------------------------------------
def routes(registry: Registry, settings: Settings, auth: Authenticator) -> list[BaseRoute]:
    """GET /print/...: a bearer token (the API's) or the admin's session cookie."""
    printer = Printer(registry, settings)

    async def printed(request: Request) -> Response:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        path = raw.decode("latin-1").partition("?")[0][len(HTTP_PREFIX):]
        header = request.headers.get("authorization")
        try:
            if header is None and bearer(request) is not None:  # a person, from the admin
                actor = await current_actor(request, auth)
            else:
                actor = await run_in_threadpool(auth.actor, header)
            fmt = printer.formats(request.headers.get("accept-language"))
            body = await run_in_threadpool(printer.pdf, actor, path, fmt)
        except SignInNeeded as need:  # their session ended: sign in, then back here
            return to_sign_in(request, need.reason)
        except ShopfloorError as exc:
            return JSONResponse(exc.to_payload(), status_code=STATUS.get(exc.code, 500))
        name = path.rsplit("/", 1)[-1]
        return Response(body, media_type=MEDIA_TYPE, headers={
            "Content-Disposition": f'inline; filename="{name}"', "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff"})

    return [Route(HTTP_PREFIX + "{path:path}", printed, methods=["GET"])]


def resource_templates() -> list[tuple[str, str, str, str]]:
    """(uri template, name, title, description) of each document, for resources/templates."""
    return [(URI_PREFIX + k.template, name, k.title, k.description)
            for name, k in KINDS.items()]


def is_document(uri: str) -> bool:
    return uri.startswith(URI_PREFIX)


def read_document(registry: Registry, actor: Actor, uri: str) -> str:
    """The PDF at a shopfloor://documents/ URI, base64 (a resource's blob)."""
    body = Printer(registry).pdf(actor, uri[len(URI_PREFIX):])
    return base64.b64encode(body).decode("ascii")
