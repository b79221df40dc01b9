"""The partners: the suppliers' and the customers' lists, and one partner's page with its
details, open orders and their totals, and (a supplier) the items it supplies on its terms;
each action a link to the tool's own form (edit it, order from it, set an item's terms)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled

# slug -> (title, one partner's title, its list tool, its list key, its read, its orders)
KINDS = {"suppliers": ("Suppliers", "Supplier", "list_suppliers", "suppliers", "get_supplier",
                       "purchase-orders"),
         "customers": ("Customers", "Customer", "list_customers", "customers", "get_customer",
                       "sales-orders")}


def routes(admin: Admin) -> list[BaseRoute]:
    return [r for slug in KINDS for r in (
        admin.page(f"/{slug}", partners, slug),
        admin.page(f"/{slug}/{{name:path}}", partner, slug))]


async def partners(a: Admin, slug: str, request: Request, actor: Actor) -> Response:
    title, one, list_tool, key, _, _ = KINDS[slug]
    query = request.query_params.get("query", "").strip()
    found = await a.call(actor, list_tool, {"query": query} if query else {})
    new = "create_supplier" if slug == "suppliers" else "create_customer"
    return a.render(request, "partners.html", actor, slug=slug, title=title, one=one,
                    rows=found.get(key, []), query=query, new_tool=new)


def actions(slug: str, found: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, tool, url) of what can be done with this partner."""
    name = found["name"]
    if slug == "suppliers":
        return [("Edit", "modify_supplier", prefilled("modify_supplier", {"id": found["id"]})),
                ("New purchase order", "create_purchase_order",
                 prefilled("create_purchase_order", {"supplier": name})),
                ("Set an item's terms", "set_supplier_item",
                 prefilled("set_supplier_item", {"supplier": name}))]
    return [("Edit", "modify_customer", prefilled("modify_customer", {"id": found["id"]})),
            ("New sales order", "create_sales_order",
             prefilled("create_sales_order", {"customer": name}))]


async def partner(a: Admin, slug: str, request: Request, actor: Actor) -> Response:
    title, one, _, _, read, orders = KINDS[slug]
    found = await a.call(actor, read, {"name": request.path_params["name"]})
    acts = [act for act in actions(slug, found) if a.may(actor, act[1])]
    offers = (await a.read(actor, "list_supplier_items", {"supplier": found["name"]})).get(
        "supplier_items", []) if slug == "suppliers" else []
    return a.render(request, "partner.html", actor, slug=slug, title=title, one=one,
                    partner=found, actions=acts, orders=orders, offers=offers,
                    money=found.get("currency"))
