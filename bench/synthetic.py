"""A synthetic manufacturer of any size, written in bulk (its creation is not what is
measured): 4-level recipes, stock, reorder points, and open sales, purchase and
manufacturing orders. Committed stock is then derived the way Shopfloor derives it."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, text

from shopfloor.domain.base.context import Op
from shopfloor.domain.stock import rebuild
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import (
    Balance,
    Customer,
    Item,
    Location,
    ManufacturingComponent,
    ManufacturingOrder,
    PurchaseOrder,
    PurchaseOrderLine,
    RecipeLine,
    SalesOrder,
    SalesOrderLine,
    StockMovement,
    Supplier,
)

TODAY = date(2026, 12, 1)
# Share of items per level: products (0), two levels of intermediates (1, 2), materials (3).
SHARES = ((0, "product", 0.10), (1, "intermediate", 0.15), (2, "intermediate", 0.15),
          (3, "material", 0.60))
# Components per recipe, drawn from the next level down (and one material).
FAN_OUT = {0: 3, 1: 2, 2: 3}


def _d(x: float | int) -> Decimal:
    return Decimal(str(x))


def build(reg: Registry, items: int, orders: int, *, seed: int = 7,
          stock: tuple[int, int] = (0, 60)) -> dict[str, int]:
    """Fill an empty database; returns what was made. `stock`: on-hand range per item (a
    high one leaves few shortages: a small plan from a big company)."""
    rnd = random.Random(seed)
    now = datetime.now(UTC)
    by_level: dict[int, list[int]] = {}
    item_rows: list[dict[str, Any]] = []
    next_id = 1
    for level, kind, share in SHARES:
        count = max(1, int(items * share))
        by_level[level] = list(range(next_id, next_id + count))
        for i in by_level[level]:
            buy = kind == "material"
            item_rows.append({
                "id": i, "sku": f"{kind[:3].upper()}-{level}-{i:06d}", "name": f"{kind} {i}",
                "kind": kind, "uom": "pcs", "purchase_price": _d(rnd.randint(1, 500) / 10),
                "sales_price": _d(rnd.randint(50, 5000) / 10),
                "reorder_point": _d(rnd.choice([0, 0, 10, 25])) if buy else _d(0),
                "reorder_quantity": _d(rnd.choice([0, 50, 100])) if buy else _d(0),
                "lead_time_days": rnd.randint(1, 20), "default_supplier_id":
                    rnd.randint(1, 20) if buy else None,
                "batch_tracked": False, "archived": False, "version": 1})
        next_id += count
    recipe_rows: list[dict[str, Any]] = []
    recipes: dict[int, list[int]] = {}
    for level, fan in FAN_OUT.items():
        for product in by_level[level]:
            parts = rnd.sample(by_level[level + 1], min(fan, len(by_level[level + 1])))
            if level < 2:
                material = rnd.choice(by_level[3])
                if material not in parts:
                    parts.append(material)
            recipes[product] = parts
            recipe_rows += [{"product_id": product, "component_id": c, "position": n,
                             "quantity": _d(rnd.randint(1, 4))} for n, c in enumerate(parts)]
    all_ids = [r["id"] for r in item_rows]
    with reg.store.writing() as s:
        s.execute(insert(Location), [{"id": 1, "code": "MAIN", "name": "Main", "version": 1,
                                      "allow_negative": False}])
        s.execute(insert(Supplier), [{"id": n, "name": f"Supplier {n}", "version": 1}
                                     for n in range(1, 21)])
        s.execute(insert(Customer), [{"id": n, "name": f"Customer {n}", "version": 1}
                                     for n in range(1, 51)])
        s.execute(insert(Item), item_rows)
        s.execute(insert(RecipeLine), recipe_rows)
        opening = {i: _d(rnd.randint(*stock)) for i in all_ids}
        s.execute(insert(Balance), [{"item_id": i, "location_id": 1, "version": 1,
                                     "on_hand": q, "committed": _d(0), "average_cost": _d(1)}
                                    for i, q in opening.items()])
        s.execute(insert(StockMovement), [
            {"item_id": i, "location_id": 1, "quantity": q, "unit_cost": _d(1),
             "reason": "opening", "actor": "bench", "created_at": now}
            for i, q in opening.items() if q])
        made = _orders(s, rnd, orders, by_level, recipes, now)
        s.flush()
        rebuild.rebuild_balances(Op(s, "bench", now, dialect=reg.store.dialect))
        if reg.store.dialect == "postgresql":  # explicit ids: move the id sequences past them
            for table in ("locations", "suppliers", "customers", "items", "recipe_lines",
                          "balances", "stock_movements", "sales_orders", "sales_order_lines",
                          "purchase_orders", "purchase_order_lines", "manufacturing_orders",
                          "manufacturing_components"):
                s.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                               f"(SELECT MAX(id) FROM {table}))"))
        s.commit()
    return {"items": len(item_rows), "recipe_lines": len(recipe_rows), **made}


def _orders(s: Any, rnd: random.Random, orders: int, by_level: dict[int, list[int]],
            recipes: dict[int, list[int]], now: datetime) -> dict[str, int]:
    n_so, n_po = orders * 6 // 10, orders * 3 // 10
    n_mo = orders - n_so - n_po
    so, so_lines, po, po_lines, mo, mo_comps = [], [], [], [], [], []
    for n in range(1, n_so + 1):
        so.append({"id": n, "number": f"SO-{n:06d}", "customer_id": rnd.randint(1, 50),
                   "location_id": 1, "status": "open", "created_at": now, "version": 1,
                   "due_date": TODAY + timedelta(days=rnd.randint(3, 60))})
        for p, item in enumerate(rnd.sample(by_level[0], min(3, len(by_level[0])))):
            so_lines.append({"order_id": n, "item_id": item, "position": p,
                             "quantity": _d(rnd.randint(1, 10)), "unit_price": _d(10),
                             "fulfilled_quantity": _d(0)})
    for n in range(1, n_po + 1):
        po.append({"id": n, "number": f"PO-{n:06d}", "supplier_id": rnd.randint(1, 20),
                   "location_id": 1, "status": "open", "created_at": now, "version": 1,
                   "expected_date": TODAY + timedelta(days=rnd.randint(1, 30))})
        for p, item in enumerate(rnd.sample(by_level[3], min(2, len(by_level[3])))):
            po_lines.append({"order_id": n, "item_id": item, "position": p,
                             "quantity": _d(rnd.randint(10, 200)), "unit_price": _d(2),
                             "received_quantity": _d(0)})
    makeable = by_level[0] + by_level[1] + by_level[2]
    for n in range(1, n_mo + 1):
        item = rnd.choice(makeable)
        mo.append({"id": n, "number": f"MO-{n:06d}", "item_id": item, "location_id": 1,
                   "quantity": _d(rnd.randint(1, 20)), "completed_quantity": _d(0),
                   "status": "planned", "created_at": now, "version": 1,
                   "due_date": TODAY + timedelta(days=rnd.randint(5, 40))})
        mo_comps += [{"order_id": n, "item_id": c, "position": p, "quantity_per_unit": _d(1)}
                     for p, c in enumerate(recipes[item])]
    for model, rows in ((SalesOrder, so), (SalesOrderLine, so_lines), (PurchaseOrder, po),
                        (PurchaseOrderLine, po_lines), (ManufacturingOrder, mo),
                        (ManufacturingComponent, mo_comps)):
        for start in range(0, len(rows), 5000):
            s.execute(insert(model), rows[start:start + 5000])
    return {"sales_orders": n_so, "purchase_orders": n_po, "manufacturing_orders": n_mo}
