"""MRP: net requirements, exploded level by level, into suggested orders.

For each item, from the top of the bills of materials down (low-level codes):

    projected = on hand - committed + on order - planned dependent demand

Committed already holds open sales orders and the components of open manufacturing
orders, and on order holds open purchase lines and open manufacturing orders of the item,
so every existing demand and supply is counted exactly once. An item is short when its
projected stock is at or below its reorder point (or below zero); it is then made (it has
a recipe: a manufacturing order, whose components inherit the demand) or bought (a
purchase line, grouped by default supplier). An item with a reorder point is ordered up
to its reorder point plus its reorder quantity (min/max: a plan applied and run again
orders nothing more); a plain shortage orders the net need, at least the reorder quantity.

Dates run backwards: a need date is the due date of what the order covers (a reorder
point alone: as soon as the lead time allows), the order starts its lead time earlier; a
start before today is flagged late, keeps the date it was needed by, and is due when its
lead time from today allows. Totals can net to enough while a dated need comes before an
order already placed arrives: the plan's exceptions name that order to expedite.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from shopfloor.domain.catalog import OPEN_MO, OPEN_PO, OPEN_SO
from shopfloor.domain.context import Op
from shopfloor.domain.limits import LIMIT
from shopfloor.domain.numbers import ZERO, fmt
from shopfloor.store.tables import (
    Balance,
    Item,
    ManufacturingOrder,
    PurchaseOrder,
    PurchaseOrderLine,
    RecipeLine,
    SalesOrder,
    SalesOrderLine,
)

Progress = Callable[[float, str], None]


@dataclass
class Need:
    quantity: Decimal
    due: date
    reason: str
    committed: bool = False  # a sales order line: already inside the balance's committed


@dataclass
class Receipt:
    """Supply already on order: an open purchase line or manufacturing order."""

    quantity: Decimal
    due: date
    document: str


@dataclass
class Position:
    item: Item
    on_hand: Decimal = ZERO
    committed: Decimal = ZERO
    on_order: Decimal = ZERO
    dependent: Decimal = ZERO
    needs: list[Need] = field(default_factory=list)
    level: int = 0

    @property
    def projected(self) -> Decimal:
        return self.on_hand - self.committed + self.on_order - self.dependent


def _low_level_codes(items: dict[int, Item],
                     recipes: dict[int, list[RecipeLine]]) -> dict[int, int]:
    """0 for items nothing uses; otherwise one below the lowest parent (recipes are acyclic)."""
    level = dict.fromkeys(items, 0)
    changed = True
    while changed:
        changed = False
        for parent, lines in recipes.items():
            for line in lines:
                if level.get(line.component_id, 0) < level.get(parent, 0) + 1:
                    level[line.component_id] = level.get(parent, 0) + 1
                    changed = True
    return level


def plan(op: Op, *, today: date, location: str | None = None,
         progress: Progress | None = None) -> dict[str, Any]:
    report = progress or (lambda fraction, message: None)
    report(0.02, "reading items")
    items = {i.id: i for i in op.session.scalars(select(Item).where(Item.archived.is_(False)))
             .unique()}
    report(0.1, f"reading recipes of {len(items)} items")
    recipes: dict[int, list[RecipeLine]] = defaultdict(list)
    for line in op.session.scalars(select(RecipeLine).order_by(RecipeLine.position)).unique():
        recipes[line.product_id].append(line)
    levels = _low_level_codes(items, recipes)
    report(0.15, f"{len(items)} items, {max(levels.values(), default=0) + 1} levels; "
                 "reading stock and orders")

    pos = {i: Position(item, level=levels[i]) for i, item in items.items()}
    for item_id, on_hand, committed in op.session.execute(
            select(Balance.item_id, func.sum(Balance.on_hand), func.sum(Balance.committed))
            .group_by(Balance.item_id)).all():
        if item_id in pos:
            pos[item_id].on_hand, pos[item_id].committed = Decimal(on_hand), Decimal(committed)
    # Supply already on order, per document (its date matters for expediting); on order
    # is their sum.
    receipts: dict[int, list[Receipt]] = defaultdict(list)
    for item_id, number, due, qty in [
        *op.session.execute(
            select(PurchaseOrderLine.item_id, PurchaseOrder.number, PurchaseOrder.expected_date,
                   PurchaseOrderLine.quantity - PurchaseOrderLine.received_quantity)
            .join(PurchaseOrder).where(PurchaseOrder.status.in_(OPEN_PO))).all(),
        *op.session.execute(
            select(ManufacturingOrder.item_id, ManufacturingOrder.number,
                   ManufacturingOrder.due_date,
                   ManufacturingOrder.quantity - ManufacturingOrder.completed_quantity)
            .where(ManufacturingOrder.status.in_(OPEN_MO))).all(),
    ]:
        if qty > 0:
            receipts[item_id].append(Receipt(Decimal(qty), due or today, number))
    for item_id, p in pos.items():
        p.on_order = sum((r.quantity for r in receipts.get(item_id, [])), ZERO)
    for number, due, item_id, outstanding in op.session.execute(
            select(SalesOrder.number, SalesOrder.due_date, SalesOrderLine.item_id,
                   SalesOrderLine.quantity - SalesOrderLine.fulfilled_quantity)
            .join(SalesOrderLine).where(SalesOrder.status.in_(OPEN_SO))).all():
        if item_id in pos and outstanding > 0:
            pos[item_id].needs.append(Need(Decimal(outstanding), due or today,
                                           f"{number} (due {due or today})", committed=True))
    report(0.3, "positions read")

    manufacture: list[dict[str, Any]] = []
    purchase: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows: list[dict[str, Any]] = []
    exceptions: list[dict[str, Any]] = []
    ordered = sorted(pos.values(), key=lambda p: (p.level, p.item.sku))
    depth = max(levels.values(), default=0) + 1
    for n, p in enumerate(ordered):
        item = p.item
        projected = p.projected
        rp, rq = item.reorder_point, item.reorder_quantity
        quantity = ZERO
        if rp > 0 and projected <= rp:
            # min/max: back up to the reorder point plus the reorder quantity, so the next
            # run does not find the item sitting on its reorder point and order it again
            quantity = rp + rq - projected
        elif projected < 0:  # a plain shortage: the net need, at least the minimum order
            quantity = max(-projected, rq)
        if quantity >= LIMIT:  # no order Shopfloor could store: a planner must look
            exceptions.append({"sku": item.sku, "action": "review", "document": None,
                               "short": fmt(quantity), "reason": "the need is beyond what "
                               "Shopfloor stores (10^12); check the recipe and order sizes"})
            quantity = ZERO
        if quantity > 0:  # the net requirement behind each suggestion (bounded by the plan)
            rows.append({"sku": item.sku, "level": p.level, "on_hand": fmt(p.on_hand),
                         "committed": fmt(p.committed), "on_order": fmt(p.on_order),
                         "dependent_demand": fmt(p.dependent), "projected": fmt(projected),
                         "reorder_point": fmt(item.reorder_point), "planned": fmt(quantity)})
        if quantity > 0:
            lead = timedelta(days=item.lead_time_days)
            # Dated demand sets the need date; a reorder point alone asks for stock as soon
            # as it can come (today + lead time), which is not late.
            need_by = min((nd.due for nd in p.needs), default=today + lead)
            start = need_by - lead
            # A late order still takes its lead time: due no earlier than it can be done.
            finish = max(need_by, max(start, today) + lead)
            reasons = [nd.reason for nd in p.needs]
            if rp > 0:
                reasons.append(f"reorder point {fmt(rp)}: up to {fmt(rp + rq)}")
            elif rq > -projected:
                reasons.append(f"minimum order {fmt(rq)}")
            suggestion: dict[str, Any] = {
                "sku": item.sku, "name": item.name, "quantity": fmt(quantity),
                "start_date": max(start, today).isoformat(), "late": start < today,
                "reasons": reasons}
            if start < today:
                suggestion["needed_by"] = need_by.isoformat()
            if recipes.get(item.id) and item.kind != "material":  # old data: bought
                suggestion["due_date"] = finish.isoformat()
                manufacture.append(suggestion)
                for comp in recipes[item.id]:
                    child = pos.get(comp.component_id)
                    if child is None:
                        continue
                    demand = comp.quantity * quantity
                    child.dependent += demand
                    child.needs.append(Need(demand, max(start, today),
                                            f"planned MO for {item.sku} ({fmt(quantity)})"))
            else:
                supplier = item.default_supplier.name if item.default_supplier else ""
                suggestion["need_date"] = finish.isoformat()
                suggestion["unit_price"] = fmt(item.purchase_price)
                purchase[supplier].append(suggestion)
        planned = Receipt(quantity, finish, "planned") if quantity > 0 else None
        exceptions.extend(_expedite(p, receipts.get(item.id, []), planned, today))
        if n % 200 == 0:
            report(0.3 + 0.65 * n / len(ordered), f"level {p.level + 1} of {depth}: {item.sku}")
    report(0.95, "plan ready")
    return {
        "location": location,
        "planned_on": today.isoformat(),
        "manufacturing_orders": manufacture,
        "purchase_orders": [{"supplier": s or None, "lines": lines,
                             "warning": None if s else "no default supplier: choose one"}
                            for s, lines in sorted(purchase.items())],
        "items": rows,
        "exceptions": exceptions,
    }


def _expedite(p: Position, receipts: list[Receipt], planned: Receipt | None,
              today: date) -> list[dict[str, Any]]:
    """Orders already placed that arrive after the stock runs out: the totals can net to
    enough while a dated need still comes first. Walks the item's dated demand and supply
    (supply first on a day) and names each receipt to bring forward, and by when."""
    dated = sum((nd.quantity for nd in p.needs if nd.committed), ZERO)
    balance = p.on_hand - max(ZERO, p.committed - dated)  # undated commitments: due now
    supply = sorted([*receipts, *([planned] if planned else [])], key=lambda r: r.due)
    arrived = 0
    out: list[dict[str, Any]] = []
    flagged: set[str] = set()
    for need in sorted(p.needs, key=lambda nd: nd.due):
        while arrived < len(supply) and supply[arrived].due <= need.due:
            balance += supply[arrived].quantity
            arrived += 1
        balance -= need.quantity
        if balance >= 0:
            continue
        late = [r for r in supply[arrived:]
                if r.document != "planned" and r.document not in flagged]
        if late:
            first = late[0]
            flagged.add(first.document)
            out.append({"sku": p.item.sku, "action": "expedite", "document": first.document,
                        "expected": first.due.isoformat(), "needed_by": need.due.isoformat(),
                        "short": fmt(-balance), "reason": need.reason})
    return out
