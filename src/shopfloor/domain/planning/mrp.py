"""MRP: the whole company netted item by item, from the top of the bills down.

Items are taken in low-level-code order (an item comes after every item whose recipe uses
it), so when an item is netted every planned order of its parents has already added its
dependent demand, dated at the parent's start. Everything is read in a few bulk queries
first (data.py); the walk itself touches no database.

The plan says what it planned: one location's stock, demand and supply (orders go there)
or the company as one pool (orders go to the first location).
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import date
from decimal import Decimal
from itertools import count
from typing import Any

from sqlalchemy import select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.base.limits import LIMIT
from shopfloor.domain.buying import choice, currencies
from shopfloor.domain.floor import scheduling
from shopfloor.domain.planning import data, lot_sizing, messages, netting
from shopfloor.domain.planning.data import MADE, PLANNED, ItemData, Need
from shopfloor.domain.stock.yields import PLAIN, gross, stored
from shopfloor.kernel import units
from shopfloor.kernel.numbers import ZERO, cost, fmt
from shopfloor.store.tables import Location

Progress = Callable[[float, str], None]


def low_level_codes(items: dict[int, ItemData],
                    recipes: dict[int, list[tuple[int, Decimal]]]) -> list[ItemData]:
    """Items parents-first, each with its level (one below its lowest parent): a
    topological walk of the recipes of live items, O(items + recipe lines)."""
    parents = dict.fromkeys(items, 0)
    for product, lines in recipes.items():
        if product in items:
            for component, _ in lines:
                if component in parents:
                    parents[component] += 1
    ready = [i for i, n in parents.items() if n == 0]
    seen = 0
    while seen < len(ready):
        product = ready[seen]
        seen += 1
        level = items[product].level + 1
        for component, _ in recipes.get(product, ()):
            child = items.get(component)
            if child is None:
                continue
            child.level = max(child.level, level)
            parents[component] -= 1
            if parents[component] == 0:
                ready.append(component)
    if seen < len(items):  # a cycle (recipes refuse them): plan those items last
        ready += [i for i, n in parents.items() if n > 0]
    return sorted((items[i] for i in ready), key=lambda it: (it.level, it.sku))


def scope(op: Op, location: str | None) -> tuple[int | None, str, str]:
    """(location id to plan, where orders go, the plan's scope in words)."""
    if location:
        loc = lookup.location(op, location)
        return loc.id, loc.code, f"location {loc.code} only: its stock, demand and supply"
    first = op.session.scalars(select(Location.code).order_by(Location.id)).first()
    return None, first or "", "all locations as one pool; orders go to " + (first or "-")


def plan(op: Op, *, today: date, location: str | None = None,
         progress: Progress | None = None) -> dict[str, Any]:
    """The plan. The cyclic garbage collector is paused while it is built: a big plan
    makes hundreds of thousands of small objects (none in cycles, all freed by reference
    counting), and the collector's full passes over them cost as much as the planning,
    growing faster than the company (measured: 2x the time at 20k items).

    The plan it returns is still in the youngest generation, so the collector's next
    passes would walk all of it twice (young, then middle: 0.4 s at 20k items) before the
    worker has even stored it. Freezing and unfreezing moves every tracked object to the
    oldest generation without a pass; it is done only when nothing else froze objects
    (`shopfloor mcp` freezes its start-up, which unfreezing would hand back)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _plan(op, today, location, progress or (lambda fraction, message: None))
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if collecting:
            gc.enable()


def _plan(op: Op, today: date, location: str | None, report: Progress) -> dict[str, Any]:
    location_id, deliver_to, said = scope(op, location)
    report(0.02, "reading items, recipes, stock and open orders")
    home = currencies.company(op)
    company = data.read_company(op.session.connection(), today, location_id, report, home)
    rates = currencies.rates_on(op, today)
    ordered = low_level_codes(company.items, company.recipes)
    depth = max((it.level for it in ordered), default=0) + 1
    report(0.3, f"{len(ordered)} items, {depth} levels: netting")
    refs: Iterator[int] = count(1)
    dater = scheduling.Dater(op)

    def next_ref() -> str:
        return f"P{next(refs)}"

    step = 200  # a call is a time check; the worker saves progress at most every 0.2 s
    made: list[dict[str, Any]] = []
    bought: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    flags: list[dict[str, Any]] = []
    all_needs, all_receipts, stock = company.needs, company.receipts, company.on_hand
    items, recipes = company.items, company.recipes
    for n, item in enumerate(ordered):
        if n % step == 0:  # a checkpoint: cancel stops here; progress is saved (a write)
            report(0.3 + 0.65 * n / max(len(ordered), 1),
                   f"level {item.level + 1} of {depth}: {item.sku}")
        needs = all_needs.get(item.id, [])
        receipts = all_receipts.get(item.id, [])
        on_hand = stock.get(item.id, ZERO)
        if not needs and not receipts and item.safety <= 0 and on_hand >= 0:
            continue
        recipe = recipes.get(item.id)
        make = bool(recipe) and item.kind != "material"
        routed = make and dater.routed(item.id)
        if routed:  # netted by day; its routing, not its lead time, says when it starts
            item.lead = 0
        buy = None if make or not item.offers else choice.Buyer(item.offers, today, rates)
        netted = netting.net(item, on_hand, receipts, needs, today, next_ref, buy)
        if make:  # dependent demand goes to these components, per unit made
            assert recipe is not None
            parts = [(all_needs[c], per, company.yields.get((item.id, c), PLAIN), items[c])
                     for c, per in recipe if c in items]
        for layer in netted.planned:
            if layer.quantity >= LIMIT:  # no order Shopfloor could store: a planner looks
                flags.append({"sku": item.sku, "action": "review", "document": layer.document,
                              "quantity": fmt(layer.quantity), "need": None,
                              "reason": "the need is beyond what Shopfloor stores (10^12); "
                                        "check the recipe and order sizes"})
                continue
            if routed:
                _date_by_routing(dater, item, layer, today)
            out = _order_out(item, layer)
            if make:
                out["due_date"] = iso(layer.date)
                # each component is needed on the order's start
                start, ref, quantity, sku = layer.start, layer.document, layer.quantity, item.sku
                assert start is not None
                for component_needs, per, y, part in parts:
                    need = gross(per, quantity, y)
                    component_needs.append(Need(start, need, PLANNED, ref, start, sku))
                    if not units.fits(stored(need), part.places):
                        flags.append(_part_of_a_piece(item, layer, part, need))
                made.append(out)
            else:
                out["need_date"] = iso(layer.date)
                bought[_bought(out, item, layer, home, rates)].append(out)
        if netted.placed:
            flags.extend(messages.for_item(netted, today))
    report(0.95, "plan ready")
    return {
        "location": location,
        "scope": said,
        "deliver_to": deliver_to or None,
        "planned_on": today.isoformat(),
        "cover_fields": COVER_FIELDS,
        "manufacturing_orders": made,
        "purchase_orders": [{"supplier": s or None, "currency": c, "lines": lines,
                             "warning": None if s else "no default supplier: choose one"}
                            for (s, c), lines in sorted(bought.items())],
        "messages": flags,
    }


def _part_of_a_piece(item: ItemData, layer: netting.Layer, part: ItemData,
                     need: Decimal) -> dict[str, Any]:
    """A planned order its recipe would make take part of a piece: applying it is refused
    (as making it by hand is), so the planner is told before, beside the plan."""
    return {"sku": item.sku, "action": "review", "document": layer.document,
            "quantity": fmt(layer.quantity), "need": None,
            "reason": f"it would take {fmt(stored(need))} of {part.sku}, counted to "
                      f"{units.said_precision(part.places)}: give the recipe line a rounding "
                      "multiple, or leave the order out"}


def _date_by_routing(dater: scheduling.Dater, item: ItemData, layer: netting.Layer,
                     today: date) -> None:
    """Backward from the end of its due date through the routing and the calendars; an
    order that would have to start before today starts today and is due when it can be."""
    start = dater.start(item.id, layer.quantity, layer.date)
    if start >= today:
        layer.start = start
        return
    layer.start = today
    finish = dater.finish(item.id, layer.quantity, today)
    if finish > layer.date:
        layer.needed_by = layer.needed_by or layer.date
        layer.date, layer.late = finish, True


iso, num = messages.iso, messages.num
COVER_FIELDS = ["kind", "document", "date", "quantity", "for"]
"""A planned order's `covers`: one row per need, [kind, document, date, quantity] and, for
a placed parent order, the item it makes. Rows, not objects: a big plan has a hundred
thousand of them, and as rows it is stored (JSON) in half the time and 3/4 the size."""


def _bought(out: dict[str, Any], item: ItemData, layer: netting.Layer, home: str,
            rates: dict[str, Decimal]) -> tuple[str, str]:
    """A planned purchase line in its supplier's terms, and the (supplier, currency) it
    is grouped under: the chosen supplier item's unit and price, else the item's default
    supplier at the item's price in stock units."""
    picked: choice.Choice | None = layer.choice
    out["late"] = layer.late  # said on every purchase line, as the plan has it
    if picked is None:  # the item's price is the company's: in the supplier's at the rate
        currency = item.currency or home
        rate = rates.get(currency)
        out["unit"], out["why"] = None, "the item's default supplier" if item.supplier else None
        if rate is None:  # no rate: the price stays the company's, and says so
            out["why"] = f"{out['why'] or 'no supplier'}; no {currency} rate, priced in {home}"
            currency = home
        out["unit_price"] = num(cost(item.price / rate) if rate else item.price)
        return item.supplier or "", currency
    offer = picked.offer
    if picked.stock_quantity > layer.net:
        out.setdefault("sizing", []).append(f"{num(picked.units)} {offer.unit} of "
                                            f"{num(offer.per)}")
    out["stock_quantity"] = out["quantity"]
    out["unit"], out["quantity"] = offer.unit, num(picked.units)
    out["unit_price"], out["why"] = num(picked.unit_price), picked.why
    if layer.late:
        out["needed_by"] = iso(layer.needed_by)
    return offer.supplier, offer.currency


def _order_out(item: ItemData, layer: netting.Layer) -> dict[str, Any]:
    quantity = layer.quantity
    out: dict[str, Any] = {
        "ref": layer.document, "sku": item.sku, "quantity": num(quantity),
        "start_date": iso(layer.start), "covers": [
            (n.kind, n.document, iso(n.due or n.date), num(q)) if n.kind != MADE
            else (n.kind, n.document, iso(n.due or n.date), num(q), n.parent)
            for n, q in layer.pegs]}
    if quantity > layer.net:
        out["sizing"] = lot_sizing.why(layer.net, quantity, item)
    if layer.late:  # said only when true: most orders are not, and a plan is big
        out["late"] = True
        out["needed_by"] = iso(layer.needed_by)
    return out
