"""An MRP plan as a planner reads it, for the MRP page and an MRP job's page alike: one
card per planned order (its ref, the item's name, quantity and unit, supplier, price in
its currency, date, late, and why in words), and the action messages in words. The plan
itself keeps codes and ISO dates for programs; nothing here is shown in them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from babel.core import UnknownLocaleError
from babel.dates import format_skeleton

from shopfloor.kernel.statuses import label
from shopfloor.ui.formats import Formats

SHOWN = 300
"""Orders drawn as cards: a plan may hold thousands; the rest are counted."""

DOCUMENTS = {"sales_order": "/sales-orders/", "purchase_order": "/purchase-orders/",
             "manufacturing_order": "/manufacturing-orders/"}


def planned(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The plan's orders, made before bought (its own order: top of the bills down)."""
    return [*({**m, "_make": True} for m in plan.get("manufacturing_orders") or []),
            *({**ln, "_make": False, "_supplier": g.get("supplier"),
               "_currency": g.get("currency")}
              for g in plan.get("purchase_orders") or [] for ln in g.get("lines") or [])]


def skus(plan: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(str(o["sku"]) for o in planned(plan)))


class Words:
    """One plan's words: item names, which planned order makes which item."""

    def __init__(self, plan: Mapping[str, Any], items: Mapping[str, Mapping[str, Any]],
                 fmt: Formats) -> None:
        self.fmt = fmt
        self.items = items
        self.makes = {m.get("ref"): m["sku"] for m in plan.get("manufacturing_orders") or []}
        planned_on = str(plan.get("planned_on") or "")
        self.year = int(planned_on[:4]) if planned_on[:4].isdigit() else date.today().year

    def day(self, value: Any) -> str:
        """A date in a sentence: `17 Dec` in the plan's year (`Dec 17` in en-US), with
        the year in another."""
        try:
            day = date.fromisoformat(str(value))
            if day.year == self.year:
                return format_skeleton("MMMd", day, locale=self.fmt.locale)
        except (ValueError, UnknownLocaleError):
            pass
        return self.fmt.date(value)

    def name(self, sku: str | None) -> str:
        if not sku:
            return ""
        return str((self.items.get(sku) or {}).get("name") or sku)

    def need(self, row: Any) -> str:
        """A need an order covers: `for SO-00004 due 17 Dec 2026: 3`, `safety stock`."""
        if isinstance(row, Mapping):
            kind, document, day, quantity = (row.get("kind"), row.get("document"),
                                             row.get("date"), row.get("quantity"))
            parent = row.get("for")
        else:
            kind, document, day, quantity, *rest = [*row, None][:5]
            parent = rest[0] if rest else None
        q, when = self.fmt.quantity(quantity), self.day(day)
        if kind == "safety_stock":
            return f"safety stock by {when}: {q}"
        if kind == "sales_order":
            return f"for {document} due {when}: {q}"
        if kind == "planned_order":
            return f"for {document} ({self.name(self.makes.get(document))}) starting {when}: {q}"
        if kind == "manufacturing_order":
            return f"for {document} ({self.name(parent)}) starting {when}: {q}"
        if kind == "negative_stock":
            return f"stock owed now: {q}"
        return f"{str(kind or '').replace('_', ' ')} {document or ''} {when}: {q}".strip()


def _href(make: bool, number: str) -> str:
    return ("/manufacturing-orders/" if make else "/purchase-orders/") + number


def made(plan: Mapping[str, Any]) -> dict[str, str]:
    """Every document the plan's applies made, and where it lives in the admin."""
    numbers: Mapping[str, str] = plan.get("made") or {}
    return {numbers[o["ref"]]: _href(o["_make"], numbers[o["ref"]])
            for o in planned(plan) if o.get("ref") in numbers}


def orders(plan: Mapping[str, Any], words: Words) -> list[dict[str, Any]]:
    """A card per planned order, the ones still to apply first, by date."""
    numbers: Mapping[str, str] = plan.get("made") or {}
    applied_skus = set(plan.get("applied") or ())
    out = []
    for o in planned(plan):
        sku, ref = str(o["sku"]), o.get("ref")
        item = words.items.get(sku) or {}
        unit = o.get("unit") or item.get("uom")
        number = numbers.get(ref) if ref else None
        why = [words.need(c) for c in o.get("covers") or []]
        if o.get("covers_total"):
            why.append(f"and {o['covers_total'] - len(o.get('covers') or [])} more needs")
        why += [str(s) for s in o.get("sizing") or []]
        if o.get("why"):
            why.append(str(o["why"]))
        stock = o.get("stock_quantity")
        out.append({
            "ref": ref, "sku": sku, "name": words.name(sku), "make": o["_make"],
            "what": "Make" if o["_make"] else "Buy",
            "quantity": o.get("quantity"), "unit": unit,
            "stock_quantity": stock if stock and o.get("unit") else None,
            "stock_unit": item.get("uom"),
            "supplier": o.get("_supplier"), "unit_price": o.get("unit_price"),
            "currency": o.get("_currency"),
            "date": o.get("due_date") or o.get("need_date"), "start": o.get("start_date"),
            "late": bool(o.get("late")), "needed_by": o.get("needed_by"), "why": why,
            "made": number,
            "made_href": _href(o["_make"], number) if number else None,
            "applied": bool(number) or sku in applied_skus})
    out.sort(key=lambda r: (r["applied"], str(r["date"] or ""), r["name"].lower()))
    return out


def messages(plan: Mapping[str, Any], words: Words) -> list[dict[str, Any]]:
    """What the plan says about orders already placed, in words."""
    fmt = words.fmt
    out = []
    for m in plan.get("messages") or []:
        action, need = str(m.get("action") or ""), m.get("need")
        for_need = f" {words.need(need)}" if isinstance(need, Mapping) else ""
        if for_need and not for_need.startswith(" for"):
            for_need = " for" + for_need
        arrives = f"arrives {words.day(m['expected'])}" if m.get("expected") else "no date"
        text = {
            "expedite": f"{arrives}; needed {words.day(m.get('move_to'))}{for_need}",
            "defer": f"{arrives}; first needed {words.day(m.get('move_to'))}{for_need}",
            "cancel": f"nothing needs its {fmt.quantity(m.get('quantity'))}",
            "reduce": f"{fmt.quantity(m.get('to'))} of its {fmt.quantity(m.get('quantity'))} "
                      f"are needed{for_need}",
        }.get(action, str(m.get("reason") or ""))
        document = m.get("document")
        href = DOCUMENTS.get(str(m.get("kind"))) if document else None
        out.append({"action": label(action), "slug": action, "document": document,
                    "href": href + str(document) if href else None, "sku": m.get("sku"),
                    "name": words.name(m.get("sku")), "text": text})
    return out


def draw(plan: Mapping[str, Any], items: Mapping[str, Mapping[str, Any]],
         fmt: Formats) -> dict[str, Any]:
    """What the plan's templates take: the cards (the first SHOWN), how many there are,
    the ones still to apply, and the messages."""
    words = Words(plan, items, fmt)
    rows = orders(plan, words)
    return {"planned": rows[:SHOWN], "planned_total": len(rows),
            "waiting": [r for r in rows if not r["applied"]],
            "messages": messages(plan, words)}
