"""The returns: a list of customer and supplier returns, and one return's page with its
order, partner, reason, notes, the partner's reference, its lines in their order lines'
units ("1 pc of a box of 3") and their value, and its printed return note."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages
from shopfloor.ui import paper

# a return's kind -> (the page of its order's kind, what its partner is called)
ORDER_PAGES = {"supplier": ("purchase-orders", "Supplier"),
               "customer": ("sales-orders", "Customer")}


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/returns", returns),
            admin.page("/returns/{number:path}", one)]


async def returns(a: Admin, request: Request, actor: Actor) -> Response:
    found = await a.call(actor, "list_returns", listing(request, "order"))
    return a.render(request, "returns.html", actor, rows=found.get("returns", []),
                    order=request.query_params.get("order", ""), orders=ORDER_PAGES,
                    **pages(request, found.get("next_cursor")))


async def one(a: Admin, request: Request, actor: Actor) -> Response:
    found = await a.call(actor, "get_return", {"number": request.path_params["number"]})
    slug, partner = ORDER_PAGES[found["kind"]]
    return a.render(request, "return.html", actor, ret=found, order_slug=slug,
                    partner_word=partner, money_in=found.get("currency"),
                    prints=[("Return note", paper.link("return_note", found["number"]))])
