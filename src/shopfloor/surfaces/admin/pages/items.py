"""The items: the searchable list, and one item's page with its stock movements and what
can be done to it."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    g = admin.guarded
    return [Route("/items", g(partial(items, admin))),
            Route("/items/{sku:path}", g(partial(item, admin)))]


async def items(a: Admin, request: Request, actor: Actor) -> Response:
    q = request.query_params
    args = listing(request, "query", "kind")
    result = await a.call(actor, "search_items", args)
    return a.render(request, "items.html", actor, result=result, q=q,
                    **pages(request, result.get("next_cursor")))


async def item(a: Admin, request: Request, actor: Actor) -> Response:
    sku = request.path_params["sku"]
    found = await a.call(actor, "get_item", {"sku": sku})
    moves = await a.read(actor, "list_stock_movements", {"sku": sku, **listing(request)})
    acts = [(label, tool, prefilled(tool, targs)) for label, tool, targs in (
        ("Edit item", "modify_item", {"sku": sku}),
        ("Adjust stock", "create_stock_adjustment", {"lines": [{"sku": sku}]}),
        ("Move stock", "create_stock_transfer", {"lines": [{"sku": sku}]}),
        ("Order from supplier", "create_purchase_order",
         {"supplier": found.get("default_supplier"),
          "lines": [{"sku": sku, "quantity": found.get("reorder_quantity") or "1"}]}),
        ("Make", "create_manufacturing_order", {"sku": sku}),
        ("Edit recipe", "update_recipe", {"sku": sku}),
        ("Edit routing", "update_routing", {"sku": sku}),
    ) if a.may(actor, tool)]
    routing = await a.read(actor, "get_routing", {"sku": sku})
    return a.render(request, "item.html", actor, item=found, moves=moves, actions=acts,
                    routing=routing.get("operations") or [],
                    **pages(request, moves.get("next_cursor")))
