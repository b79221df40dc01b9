"""The orders: purchase, sales and manufacturing order lists, one order's page with its
history, and what can be done to it now (receive, ship, complete, edit, cancel, close
short, correct, return), each a pre-filled link to the tool's own form."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.kernel import units
from shopfloor.kernel.statuses import BY_KIND, PO, SO
from shopfloor.kernel.text import fmt
from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import listing, pages, prefilled
from shopfloor.surfaces.admin.kinds import ORDERS, OrderKind, left_to_make, outstanding
from shopfloor.ui import paper

MAX_SKUS = 40  # an order's items whose stock its page shows
# An open order's first action, by its kind: its goods received or shipped (a
# manufacturing order's completion and operations are its own), then edit and cancel.
MOVES = {"purchase-orders": ("Receive", "receive_purchase_order"),
         "sales-orders": ("Ship", "fulfill_order")}
CHANGES = {"purchase-orders": ("modify_purchase_order", "delete_purchase_order"),
           "sales-orders": ("modify_sales_order", "delete_sales_order"),
           "manufacturing-orders": ("modify_manufacturing_order", "delete_manufacturing_order")}


def routes(admin: Admin) -> list[BaseRoute]:
    return [r for slug in ORDERS for r in (
        admin.page(f"/{slug}", orders, name=f"{slug}"),
        admin.page(f"/{slug}/{{number:path}}", order, name=f"{slug}-one"))]


def actions(kind: OrderKind, order: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, tool, url) of what can be done to this order now."""
    status, number = order.get("status"), order.get("number")
    out: list[tuple[str, str, str]] = []
    if status in kind.open_statuses:
        if kind.slug in MOVES:
            text, tool = MOVES[kind.slug]
            out.append((text, tool, prefilled(
                tool, {"number": number, "lines": outstanding(order)})))
        else:
            out.append(("Complete", "complete_manufacturing_order", prefilled(
                "complete_manufacturing_order",
                {"number": number, "quantity": left_to_make(order)})))
            # one link per operation still to do, named, so time lands on the right one
            out += [(f"Log time: {o['sequence']} {o['name']}", "record_operation_time",
                     prefilled("record_operation_time", {"number": number,
                                                         "sequence": o["sequence"]}))
                    for o in order.get("operations") or []
                    if o.get("status") in BY_KIND["operation"].open]
        out += [(text, tool, prefilled(tool, {"number": number}))
                for text, tool in zip(("Edit", "Cancel order"), CHANGES[kind.slug], strict=True)]
    # Corrections and returns (issue 12's tools), offered where the order has moved goods.
    done_lines = [{"sku": line["sku"], "quantity": line.get("done_quantity")}
                  for line in order.get("lines") or [] if _positive(line.get("done_quantity"))]
    back = returnable(order)
    follow = {
        "purchase-orders": [
            ("Close short", "close_purchase_order", {"number": number},
             status == PO.partially_received),
            ("Correct a receipt", "correct_purchase_receipt", {"number": number},
             bool(done_lines)),
            ("Return to supplier", "create_supplier_return",
             {"number": number, "lines": back}, bool(back))],
        "sales-orders": [
            ("Close short", "close_sales_order", {"number": number},
             status == SO.partially_fulfilled),
            ("Correct a shipment", "correct_shipment", {"number": number}, bool(done_lines)),
            ("Customer return", "create_customer_return",
             {"number": number, "lines": [{k: v for k, v in ln.items() if k != "unit"}
                                          for ln in back]}, bool(back))],
        "manufacturing-orders": [
            ("Correct quantity made", "correct_manufacturing_order", {"number": number},
             _positive(order.get("completed_quantity")))],
    }
    out += [(text, tool, prefilled(tool, args))
            for text, tool, args, when in follow[kind.slug] if when]
    return out


def returnable(order: dict[str, Any]) -> list[dict[str, Any]]:
    """What could still go back, line by line: moved less already returned, in the line's
    own unit and saying so (a purchase line in boxes is returned in boxes, never read as
    pieces)."""
    out = []
    for line in order.get("lines") or []:
        try:
            left = Decimal(str(line.get("done_quantity"))) - Decimal(
                str(line.get("returned_quantity") or 0))
        except ArithmeticError:
            continue
        if left > 0:
            out.append({"sku": line["sku"], "quantity": fmt(left), "unit": line.get("unit")})
    return out


def in_packs(order: dict[str, Any]) -> dict[str, Any]:
    """The order as its page says it: a line's figure that is part of a supplier's pack
    (a piece of a box returned) in packs and pieces, "1 pc of a box of 3", never
    "0.333333 box"; the pack where a line has one ("3 pcs": what a box holds)."""
    if not order.get("lines"):
        return order
    lines = []
    for line in order["lines"]:
        pack = str(line.get("pack") or "").split(" ", 1)
        if len(pack) != 2:
            lines.append({k: v for k, v in line.items() if k != "pack"})
            continue
        per, uom = Decimal(pack[0]), pack[1]
        shown = dict(line)
        for key in ("quantity", "done_quantity", "returned_quantity"):
            said = units.in_packs(Decimal(str(line.get(key) or 0)), line["unit"], per, uom,
                                  units.default_precision(uom))
            if said:
                shown[key] = said
        lines.append(shown)
    return {**order, "lines": lines}


def _positive(value: Any) -> bool:
    try:
        return Decimal(str(value)) > 0
    except ArithmeticError:
        return False


async def orders(a: Admin, request: Request, actor: Actor) -> Response:
    kind = ORDERS[request.url.path.strip("/").split("/")[0]]
    q = request.query_params
    args = listing(request, "status")
    result = await a.call(actor, kind.list_tool, args)
    new_tool = kind.get_tool.replace("get_", "create_")
    return a.render(request, "orders.html", actor, kind=kind, result=result, q=q,
                    new_tool=new_tool, **pages(request, result.get("next_cursor")))


async def order(a: Admin, request: Request, actor: Actor) -> Response:
    kind = ORDERS[request.url.path.strip("/").split("/")[0]]
    found = await a.call(actor, kind.get_tool, {"number": request.path_params["number"]})
    acts = [act for act in actions(kind, found) if a.may(actor, act[1])]
    log = await a.read(actor, "get_operation_log", {"limit": 200})
    number = found.get("number")
    history = [e for e in log.get("entries", [])
               if number and number in (e.get("summary") or "")]
    back = await a.read(actor, "list_returns", {"order": number, "limit": 50}) \
        if number and kind.slug != "manufacturing-orders" and a.may(actor, "list_returns") \
        else {}
    return a.render(request, "order.html", actor, money_in=found.get("currency"),
                    kind=kind, order=in_packs(found), returns=back.get("returns") or [],
                    actions=acts, history=history, prints=prints(kind, found),
                    stock=await availability(a, actor, found, kind))


async def availability(a: Admin, actor: Actor, order: dict[str, Any],
                       kind: OrderKind) -> list[dict[str, Any]]:
    """What the order's items really have at its location: on hand, committed, held,
    expired and available, and each lot with its expiry and hold (why held), so that
    stock nobody may ship is seen, not counted. Shown while the order is open."""
    if order.get("status") not in kind.open_statuses or not order.get("location"):
        return []
    rows = order.get("lines") or order.get("components") or []
    skus = list(dict.fromkeys(str(r["sku"]) for r in rows if r.get("sku")))[:MAX_SKUS]
    where = str(order["location"])
    out: list[dict[str, Any]] = []
    for sku in skus:
        got = (await a.read(actor, "get_stock", {"sku": sku, "location": where})).get(
            "balances", [])
        row: dict[str, Any] = got[0] if got else {"sku": sku, "on_hand": "0",
                                  "committed": "0", "held": "0", "expired": "0",
                                  "available": "0", "lots": []}
        lots: list[dict[str, Any]] = row.get("lots") or []
        if lots:
            reasons = {(x["lot"]): x.get("hold_reason") for x in (await a.read(
                actor, "list_lots", {"sku": sku, "location": where})).get("lots", [])}
            lots = [{"lot": x["lot"], "expiry": x.get("expiry"), "on_hand": x["on_hand"],
                     "held": x.get("held"), "hold_reason": reasons.get(x["lot"])}
                    for x in lots]
        out.append({k: row.get(k) for k in ("sku", "on_hand", "committed", "held",
                                            "expired", "available")} | {"lots": lots})
    return out


PRINTS = {"purchase-orders": (("Purchase order", "purchase_order"),),
          "sales-orders": (("Packing slip", "packing_slip"), ("Pick list", "pick_list")),
          "manufacturing-orders": (("Traveller", "traveller"),)}


def prints(kind: OrderKind, order: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, url) of the order's printed documents."""
    number = order.get("number")
    return [(text, paper.link(doc, number)) for text, doc in PRINTS.get(kind.slug, ())
            if number]
