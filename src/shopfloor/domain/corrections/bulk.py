"""Reverting writes that create or change many things at once: an applied MRP plan, an
item import, item and recipe changes (one at a time or across recipes).

Each puts back what its logged changes say it found, field by field, and only where the
field still holds what it wrote; anything changed since is a blocker, named. Orders an
MRP plan created are cancelled (their commitments released, their pegs removed) unless
one has moved on: received, started, completed, or modified since. Items an import
created are archived (never erased: the ledger points at them) once the stock it counted
in is reversed.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlalchemy import delete, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.corrections.ledger import Original, reverse_moves
from shopfloor.domain.production import manufacturing as production
from shopfloor.domain.purchasing import orders
from shopfloor.domain.stock import items as catalog
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.statuses import MO, PO, said
from shopfloor.store.tables import Item, Job, Peg

CREATED_VERSION = 1
"""An order an MRP apply created and nothing has touched since has its first version."""


def mrp_plan(op: Op, o: Original) -> None:
    made = [lookup.manufacturing_order(op, n, lock=True)
            for n in o.result.get("manufacturing_orders", [])]
    bought = [lookup.purchase_order(op, n, lock=True)
              for n in o.result.get("purchase_orders", [])]
    for mo in made:
        if mo.completed_quantity > 0 or mo.status != MO.planned:
            o.blockers.append(f"manufacturing order {mo.number} is {said(mo.status)} since "
                              f"({fmt(mo.completed_quantity)} made)")
        elif mo.version != CREATED_VERSION:
            o.blockers.append(f"manufacturing order {mo.number} was modified since")
    for po in bought:
        if any(ln.received_quantity > 0 for ln in po.lines):
            o.blockers.append(f"purchase order {po.number} has been received since")
        elif po.status != PO.open:
            o.blockers.append(f"purchase order {po.number} is {said(po.status)} since")
        elif po.version != CREATED_VERSION:
            o.blockers.append(f"purchase order {po.number} was modified since")
    if o.blockers:
        return
    for mo in made:
        production.cancel(op, mo.number)
    for po in bought:
        orders.cancel_purchase_order(op, po)
    mo_ids, po_ids = [mo.id for mo in made], [po.id for po in bought]
    gone = op.session.connection().execute(delete(Peg).where(
        Peg.manufacturing_order_id.in_(mo_ids) | Peg.purchase_order_id.in_(po_ids))).rowcount
    if gone:
        op.change("plan", o.operation_id, "pegs", gone, 0)
    _reopen(op, str(o.arguments.get("job_id") or ""),
            {mo.number for mo in made} | {po.number for po in bought})


def _reopen(op: Op, job_id: str, cancelled: set[str]) -> None:
    """The plan the orders came from forgets them (`made`, and `applied` for their items):
    its page no longer links cancelled orders as made, and they can be applied again."""
    job = op.session.scalars(op.lock(select(Job).where(Job.id == job_id))).one_or_none()
    if job is None or not isinstance(job.result, dict) or not job.result.get("made"):
        return
    plan: dict[str, Any] = job.result
    made = {ref: n for ref, n in plan["made"].items() if n not in cancelled}
    if made == plan["made"]:
        return
    orders_ = [*plan.get("manufacturing_orders", []),
               *(ln for g in plan.get("purchase_orders", []) for ln in g["lines"])]
    open_skus = {o["sku"] for o in orders_ if o.get("ref") not in made}
    op.change("plan", job_id, "made", len(plan["made"]), len(made))
    job.result = {**plan, "made": made,
                  "applied": [s for s in plan.get("applied") or () if s not in open_skus]}
    if not made:
        job.applied_operation = None


def _parse(fld: str, text: str | None) -> Any:
    if text is None:
        return None
    kind = Item.__table__.c[fld].type.python_type
    if kind is bool:
        return text == "True"
    return kind(Decimal(text)) if kind is int else kind(text)


def item_fields(op: Op, o: Original) -> None:
    """Item fields changed one at a time or by an import: fields back, counted stock
    reversed, new items archived."""
    created = [c["key"] for c in o.changes("item") if c["field"] == "created"]
    for c in o.changes("item"):
        sku, fld = c["key"], c["field"]
        if fld in ("created", "deleted") or sku in created:
            continue
        item = lookup.item(op, sku, include_archived=True, lock=True)
        if fld == "default_supplier":
            now = item.default_supplier.name if item.default_supplier else None
        else:
            value = getattr(item, fld)
            now = fmt(value) if isinstance(value, Decimal) else \
                None if value is None else str(value)
        if now != c["after"]:
            o.blockers.append(f"item {sku} {fld} is {now} now, not {c['after']}: it changed "
                              "since")
            continue
        if fld == "default_supplier":
            item.default_supplier = lookup.supplier(op, c["before"]) if c["before"] else None
        else:
            setattr(item, fld, _parse(fld, c["before"]))
        op.change("item", sku, fld, c["after"], c["before"])
    reverse_moves(op, o)
    if o.blockers:
        return
    for sku in created:
        try:
            catalog.delete_item(op, sku)
        except ShopfloorError as exc:
            o.blockers.append(exc.message)


def recipes(op: Op, o: Original) -> None:
    """Recipes changed one at a time or in a batch: each recipe line back to its quantity, a
    replaced component back in place of its replacement."""
    by_product: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in o.changes("recipe"):
        by_product[c["key"]].append(c)
    for sku, changes in by_product.items():
        product = lookup.item(op, sku, lock=True)
        lines = {ln.component.sku: ln.quantity for ln in product.recipe_lines}
        stale = False
        for c in changes:
            now = lines.get(c["field"])
            shown = fmt(now) if now is not None else None
            if shown != c["after"]:
                o.blockers.append(f"recipe of {sku}: {c['field']} is {shown or 'not in it'} "
                                  f"now, not {c['after'] or 'out of it'}: it changed since")
                stale = True
        if stale:
            continue
        for c in changes:
            if c["before"] is None:
                lines.pop(c["field"], None)
            else:
                lines[c["field"]] = Decimal(c["before"])
        catalog.update_recipe(op, sku, [catalog.ComponentSpec(k, q) for k, q in lines.items()])
