"""The items: the searchable list, and one item's page with its stock movements and what
can be done to it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled
from shopfloor.ui import paper
from shopfloor.ui.charts import projected_stock

WEEKS = 8  # how far ahead the item's chart looks


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/items", items),
            admin.page("/items/{sku:path}", item)]


async def items(a: Admin, request: Request, actor: Actor) -> Response:
    q = request.query_params
    args = listing(request, "query", "kind")
    result = await a.call(actor, "search_items", args)
    return a.render(request, "items.html", actor, result=result, q=q,
                    **pages(request, result.get("next_cursor")))


def prints(item: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, url) of the item's labels: its own, each lot's it holds, each location's."""
    sku = item["sku"]
    rows = item.get("stock") or []
    lots = sorted({lot["lot"] for row in rows for lot in row.get("lots") or []})
    return [("Item label", paper.link("item_label", sku)),
            *((f"Lot {lot} label", paper.link("lot_label", sku, lot)) for lot in lots),
            *((f"{row['location']} label", paper.link("location_label", row["location"]))
              for row in rows)]


async def item(a: Admin, request: Request, actor: Actor) -> Response:
    sku = request.path_params["sku"]
    found = await a.call(actor, "get_item", {"sku": sku})
    moves = await a.read(actor, "list_stock_movements", {"sku": sku, **listing(request)})
    lots = (await a.read(actor, "list_lots", {"sku": sku})).get("lots", []) \
        if found.get("batch_tracked") or found.get("serial_tracked") else []
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
    until = (a.today() + timedelta(weeks=WEEKS)).isoformat()
    projected = await a.read(actor, "get_projected_stock", {"sku": sku, "until": until})
    chart = projected_stock(projected, found.get("reorder_point"), a.formats(request),
                            weeks=WEEKS) if projected.get("today") else None
    routing = await a.read(actor, "get_routing", {"sku": sku})
    offers = (await a.read(actor, "list_supplier_items", {"sku": sku})).get(
        "supplier_items", [])
    money = {p["name"]: p.get("currency") for p in (await a.read(
        actor, "list_suppliers", {})).get("suppliers", [])} if offers else {}
    return a.render(request, "item.html", actor, item=found, moves=moves, actions=acts,
                    routing=routing.get("operations") or [], offers=offers,
                    offer_money=money,
                    lots=lots, chart=chart, projected=projected,
                    prints=prints(found),
                    **pages(request, moves.get("next_cursor")))
