"""The pegs an applied plan leaves on its orders, and reading them back.

A planned order's needs are kept as they were planned: a sales order or safety stock by
name, a parent planned order by the number it got when the same apply created it (or, if
the apply left the parent out, as the planned order it was).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from shopfloor.domain.base.context import Op
from shopfloor.domain.planning.data import MADE, PLANNED, SAFETY
from shopfloor.kernel.numbers import fmt
from shopfloor.store.tables import Item, Peg


@dataclass(frozen=True)
class PegRow:
    kind: str
    document: str | None
    date: date
    quantity: Decimal
    sku: str


def needs(plan_covers: list[Any]) -> list[dict[str, Any]]:
    """A plan's `covers` rows ([kind, document, date, quantity, ...]) as named needs."""
    return [dict(zip(("kind", "document", "date", "quantity"), c, strict=False))
            if isinstance(c, list) else c for c in plan_covers]


def rows(plan_covers: list[Any], made: dict[str, str], item_id: int, *,
         purchase_order_id: int | None = None, manufacturing_order_id: int | None = None
         ) -> list[dict[str, Any]]:
    """Peg rows for one created order from the plan's `covers`; `made` maps planned
    order refs to the numbers this apply gave them."""
    out = []
    for need in needs(plan_covers):
        kind, document = need["kind"], need["document"]
        if kind == PLANNED and document in made:
            kind, document = MADE, made[document]
        out.append({"purchase_order_id": purchase_order_id,
                    "manufacturing_order_id": manufacturing_order_id, "item_id": item_id,
                    "need_kind": kind, "need_number": document,
                    "need_date": date.fromisoformat(need["date"]),
                    "quantity": Decimal(need["quantity"])})
    return out


def write(op: Op, pegs: list[dict[str, Any]]) -> None:
    if pegs:
        op.session.execute(insert(Peg), pegs)


def summary(plan_covers: list[Any], made: dict[str, str]) -> str:
    """What a preview card shows an order is for: 'SO-00007 2026-12-18 5; ...'."""
    parts = []
    for need in needs(plan_covers):
        document = made.get(need["document"], need["document"]) if need["document"] else None
        label = "safety stock" if need["kind"] == SAFETY else (document or need["kind"])
        parts.append(f"{label} {need['date']} {need['quantity']}")
    return "; ".join(parts)


def of_order(op: Op, *, purchase_order_id: int | None = None,
             manufacturing_order_id: int | None = None) -> list[PegRow]:
    """The needs an order was placed for, in date order (one query)."""
    stmt = select(Peg.need_kind, Peg.need_number, Peg.need_date, Peg.quantity, Item.sku) \
        .join(Item, Item.id == Peg.item_id)
    if purchase_order_id is not None:
        stmt = stmt.where(Peg.purchase_order_id == purchase_order_id)
    else:
        stmt = stmt.where(Peg.manufacturing_order_id == manufacturing_order_id)
    return [PegRow(*r) for r in op.session.execute(stmt.order_by(Peg.need_date, Peg.id))]


def text(peg: PegRow) -> str:
    label = "safety stock" if peg.kind == SAFETY else (peg.document or "a planned order")
    return f"{label} {peg.date.isoformat()}: {fmt(peg.quantity)}"
