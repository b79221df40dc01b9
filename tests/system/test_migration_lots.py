"""Migration 0006 upgrades a database holding the demo company without changing any
balance or cost, and derives every lot's balance from the ledger."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import select, text

from shopfloor.app import demo
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance
from shopfloor.store.tables.lots import LotBalance
from tests.helpers import ADMIN, ledger_mismatches, migrate_to

pytestmark = pytest.mark.quick


def _figures(reg: Registry) -> dict[tuple[int, int], tuple[Decimal, ...]]:
    with reg.store.engine.connect() as conn:
        b = Balance.__table__.c
        return {(r.item_id, r.location_id): (r.on_hand, r.committed, r.average_cost)
                for r in conn.execute(select(b.item_id, b.location_id, b.on_hand, b.committed,
                                             b.average_cost))}


def _lots(reg: Registry) -> dict[tuple[int, int, int], Any]:
    with reg.store.engine.connect() as conn:
        c = LotBalance.__table__.c
        return {(r.item_id, r.location_id, r.batch_id): r.on_hand
                for r in conn.execute(select(c.item_id, c.location_id, c.batch_id, c.on_hand))}


def test_upgrading_the_demo_company_keeps_every_balance_and_cost(db_url: str) -> None:
    reg = open_registry(Settings(database_url=db_url))
    demo.load(reg, ADMIN, today=date(2026, 11, 23))
    figures, lots = _figures(reg), _lots(reg)
    assert lots, "the demo company has lot-tracked stock"
    migrate_to(reg, "downgrade", "0005")
    with reg.store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0005"
    migrate_to(reg, "upgrade", "head")
    assert _figures(reg) == figures
    assert _lots(reg) == lots
    reg.store.dispose()


def test_stock_shipped_without_lots_before_the_upgrade_is_reclassified_out_of_them(
        db_url: str) -> None:
    """Before lots reached shipments, a tracked item left without naming one: its lots
    summed to more than its balance. The upgrade takes the difference out of the lots,
    first-expiring first, by ledger rows that net to zero."""
    reg = open_registry(Settings(database_url=db_url))
    demo.load(reg, ADMIN, today=date(2026, 11, 23))
    figures = _figures(reg)
    migrate_to(reg, "downgrade", "0005")
    with reg.store.engine.begin() as conn:
        item_id, location_id = conn.execute(text(
            "SELECT i.id, l.id FROM items i, locations l "
            "WHERE i.sku = 'OIL-HARDWAX' AND l.code = 'MAIN'")).one()
        # a legacy shipment of 15 without a lot, written the way 0005 wrote it
        conn.execute(text(
            "INSERT INTO stock_movements (item_id, location_id, batch_id, quantity, unit_cost,"
            " reason, document_type, document_number, actor, operation_id, created_at) "
            "SELECT item_id, location_id, NULL, :minus, 0, 'shipment', "
            "'sales_order', 'SO-LEGACY', 'legacy', NULL, created_at FROM stock_movements "
            "WHERE item_id = :i AND location_id = :l ORDER BY id LIMIT 1"),
            {"minus": _raw(reg, Decimal(-15)), "i": item_id, "l": location_id})
        conn.execute(text("UPDATE balances SET on_hand = on_hand - :q "
                          "WHERE item_id = :i AND location_id = :l"),
                     {"q": _raw(reg, Decimal(15)), "i": item_id, "l": location_id})
    migrate_to(reg, "upgrade", "head")
    after = _figures(reg)
    on_hand, committed, cost = figures[(item_id, location_id)]
    assert after[(item_id, location_id)] == (on_hand - 15, committed, cost)
    lots = reg.invoke("list_lots", {"sku": "OIL-HARDWAX"}, ADMIN)["lots"]
    # the opening lot (6, made first) goes before LC-2611-A (12, same expiry): 6 + 9
    assert [(r["lot"], Decimal(r["on_hand"])) for r in lots] == [("LC-2611-A", 3)]
    assert ledger_mismatches(reg) == []
    reg.store.dispose()


def _raw(reg: Registry, value: Decimal) -> Any:
    """A decimal as the column stores it: scaled integer on SQLite, numeric on PostgreSQL."""
    return int(value * 10**6) if reg.store.dialect == "sqlite" else value
