"""Migration 0013 on a database with history, on both databases: every row gets its value,
every balance the value its books showed (on hand x average), and where the old rows
summed to something else a revaluation row brings the ledger to it, the difference kept
as an `opening` variance; downgrading and upgrading again keeps the books."""

from __future__ import annotations

from decimal import Decimal as D

from alembic import command
from alembic.config import Config
from sqlalchemy import select, text

from shopfloor.app.wiring import post_history
from shopfloor.registry.registry import Registry
from shopfloor.store import migrate
from shopfloor.store.tables import StockMovement, Variance
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import apply, ledger_mismatches


def _to(reg: Registry, revision: str, down: bool) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrate._SCRIPTS))
    with reg.store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def test_backfill_keeps_the_books_as_they_stood(registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"M1": ("3", "1"), "M2": ("4", "2.5")})
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "M2", "quantity": "1"}])
    _to(registry, "0012", down=True)
    registry.store.engine.dispose()
    # a balance whose average the old rules set apart from its rows (a floor, a revert)
    with registry.store.engine.begin() as conn:
        conn.execute(text("UPDATE balances SET average_cost = average_cost * 2 WHERE item_id = "
                          "(SELECT id FROM items WHERE sku = 'M1')"))
    _to(registry, "head", down=False)
    registry.store.engine.dispose()
    post_history(registry.store, registry.clock)  # as every open of the database does
    assert ledger_mismatches(registry) == []
    assert stock(registry, "M1") == (D(3), D(0), D(2))
    with registry.store.reading() as s:
        values = sorted(s.scalars(select(StockMovement.value)).all())
        gaps = s.execute(select(Variance.kind, Variance.amount)).all()
    # M1's 3 rows: 3 in, +3 revaluation (now worth 6); M2: 10 in, 2.5 out, 2.5 in
    assert values == [D("-2.5"), D("2.5"), D(3), D(3), D(10)]
    assert [(k, a) for k, a in gaps] == [("opening", D(-3))]
