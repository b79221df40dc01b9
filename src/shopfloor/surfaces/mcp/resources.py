"""MCP resources: the cards (MCP Apps) and the documents, by URI template.

The cards are fixed resources (`ui://shopfloor/...`). A document is read through its own
read tool, as the caller: `shopfloor://items/{sku}` is `get_item` with that SKU, so what
a resource shows is what the tool answers, with the same role check. A URI nothing
answers to is invalid params (-32602) with the URI in `data`, as MCP asks (SEP-2164);
so is a page cursor, since no list here is paged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import anyio.to_thread
import mcp_types as types
from mcp.server.apps import APP_MIME_TYPE
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from shopfloor.kernel.errors import NotFound, ShopfloorError
from shopfloor.surfaces.mcp import alerts as mcp_alerts
from shopfloor.ui import cards

if TYPE_CHECKING:
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry

DOCUMENTS = "shopfloor://documents/"
"""Where printed documents live (ui/paper.py's URI_PREFIX, held equal by a test): said
here so that listing resources does not load the printing stack."""

JSON_MIME = "application/json"


@dataclass(frozen=True)
class Template:
    """A family of document resources and the read tool (and its one argument) behind it."""

    uri_template: str
    name: str
    title: str
    description: str
    tool: str
    argument: str

    @property
    def pattern(self) -> re.Pattern[str]:
        head, _, tail = self.uri_template.partition("{" + self.argument + "}")
        return re.compile(re.escape(head) + r"([^/?#]+)" + re.escape(tail) + r"\Z")


TEMPLATES = (
    Template("shopfloor://items/{sku}", "item", "Item",
             "An item with its stock per location.", "get_item", "sku"),
    Template("shopfloor://purchase-orders/{number}", "purchase-order", "Purchase order",
             "A purchase order and its lines.", "get_purchase_order", "number"),
    Template("shopfloor://sales-orders/{number}", "sales-order", "Sales order",
             "A sales order and its lines.", "get_sales_order", "number"),
    Template("shopfloor://manufacturing-orders/{number}", "manufacturing-order",
             "Manufacturing order", "A manufacturing order and its components.",
             "get_manufacturing_order", "number"),
    Template("shopfloor://jobs/{job_id}", "job", "Job",
             "A background job: status, progress, result.", "get_job", "job_id"),
    Template("shopfloor://proposals/{proposal_id}", "proposal", "Proposal",
             "A write held for approval: its request, preview and decision.",
             "get_proposal", "proposal_id"),
)
PENDING = "shopfloor://proposals/pending"
CARD_URIS = frozenset({cards.PREVIEW_URI, cards.JOB_URI})
"""The approval inbox as one resource: `list_proposals` of what is pending."""



def not_found(uri: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=f"Resource not found: {uri}",
                    data={"uri": uri})


def no_cursor(params: types.PaginatedRequestParams | None) -> None:
    """Nothing here is paged, so no cursor was ever handed out: any cursor is invalid."""
    if params is not None and params.cursor is not None:
        raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor: nothing is paged",
                       data={"cursor": params.cursor})


def _matched(uri: str) -> tuple[Template, str] | None:
    for t in TEMPLATES:
        found = t.pattern.match(uri)
        if found is not None:
            return t, unquote(found.group(1))
    return None


class Resources:
    """The server's resource handlers, reading documents through `registry_of()` as
    `actor_for()`."""

    def __init__(self, registry_of: Callable[[], Awaitable[Registry]],
                 actor_for: Callable[[], Actor]) -> None:
        self.registry_of = registry_of
        self.actor_for = actor_for

    async def list_resources(self, ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        no_cursor(params)
        return types.ListResourcesResult(resources=[*(types.Resource(
            uri=c.uri, name=c.name, title=c.title, description=c.description,
            mime_type=APP_MIME_TYPE, meta=c.meta) for c in cards.resources()),
            types.Resource(uri=PENDING, name="proposals-pending", title="Pending proposals",
                           description="Writes waiting for approval, oldest first.",
                           mime_type=JSON_MIME), *mcp_alerts.resources()])

    async def list_templates(self, ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        no_cursor(params)
        from shopfloor.surfaces import paper
        from shopfloor.ui.paper import MEDIA_TYPE as PDF

        return types.ListResourceTemplatesResult(resource_templates=[*(types.ResourceTemplate(
            uri_template=t.uri_template, name=t.name, title=t.title,
            description=t.description, mime_type=JSON_MIME) for t in TEMPLATES), *(
            types.ResourceTemplate(uri_template=uri, name=name, title=title,
                                   description=text, mime_type=PDF)
            for uri, name, title, text in paper.resource_templates())])

    async def read(self, ctx: ServerRequestContext[Any],
                   params: types.ReadResourceRequestParams
                   ) -> types.ReadResourceResult | types.InputRequiredResult:
        uri = str(params.uri)
        if uri in CARD_URIS:
            books = (await self.registry_of()).options.get("company_currency")
            card = next(c for c in cards.resources(books) if c.uri == uri)
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=card.uri, mime_type=APP_MIME_TYPE, text=card.html, meta=card.meta)])
        if uri.startswith(DOCUMENTS):
            return await self._printed(uri)
        if mcp_alerts.is_alert(uri):
            return await mcp_alerts.alert_resource(await self.registry_of(), uri, self.actor_for())
        matched = ((None, "") if uri == PENDING else _matched(uri))
        if matched is None:
            raise not_found(uri)
        template, value = matched
        tool, args = ("list_proposals", {"status": "pending"}) if template is None \
            else (template.tool, {template.argument: value})
        try:
            actor = self.actor_for()
            registry = await self.registry_of()
            document = await anyio.to_thread.run_sync(registry.invoke, tool, args, actor)
        except NotFound:
            raise not_found(uri) from None
        except ShopfloorError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=exc.message,
                           data={"uri": uri, **exc.to_payload()}) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type=JSON_MIME, text=json.dumps(document, ensure_ascii=False))])

    async def _printed(self, uri: str) -> types.ReadResourceResult:
        """A printed document (surfaces/paper.py), drawn as the caller: a PDF blob. (The
        printing stack loads here, when a document is first read, not at start-up.)"""
        from shopfloor.surfaces import paper
        from shopfloor.ui.paper import MEDIA_TYPE as PDF

        if not paper.is_document(uri):
            raise not_found(uri)
        try:
            registry = await self.registry_of()
            blob = await anyio.to_thread.run_sync(paper.read_document, registry,
                                                  self.actor_for(), uri)
        except NotFound:
            raise not_found(uri) from None
        return types.ReadResourceResult(contents=[types.BlobResourceContents(
            uri=uri, mime_type=PDF, blob=blob)])
