"""Issue 31's cents: the journal posts an item's stock lines as steps of its value at its
place rounded to the cent, in the order the postings were written. An operation dated
before postings already there (a back-dated receipt or adjustment) must still leave the
stock lines, as at every date the reports offer, equal to the ledger's value as at that
date rounded to the cent, and every entry balanced."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_EVEN
from decimal import Decimal as D

from sqlalchemy import func, select

from shopfloor.registry.registry import Registry
from shopfloor.store.tables import JournalLine, StockMovement
from tests.accounting.test_journal import INVENTORY, bean_loaded, trial
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches

CENT = D("0.01")
STOCK = (INVENTORY, "1325", "1330")  # raw materials, semi-finished and finished goods


def _on(reg: Registry, day: date, write: Callable[[], object]) -> None:
    now = reg.clock
    reg.clock = lambda: datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=9)
    try:
        write()
    finally:
        reg.clock = now


def _found(reg: Registry, sku: str, qty: str, cost: str, location: str = "MAIN") -> None:
    apply(reg, "create_stock_adjustment", location=location, reason="found",
          lines=[{"sku": sku, "quantity_delta": qty, "unit_cost": cost}])


def as_at(reg: Registry, end: date) -> tuple[dict[tuple[int, int], D], dict[tuple[int, int], D]]:
    """(the ledger's value per item and location rounded to the cent, the journal's stock
    lines per item and location) as at the end of `end`."""
    until = datetime.combine(end + timedelta(days=1), datetime.min.time(), UTC)
    with reg.store.reading() as s:
        ledger = {(i, loc): D(v).quantize(CENT, rounding=ROUND_HALF_EVEN) for i, loc, v in
                  s.execute(select(StockMovement.item_id, StockMovement.location_id,
                                   func.sum(StockMovement.value))
                            .where(StockMovement.created_at < until)
                            .group_by(StockMovement.item_id, StockMovement.location_id))}
        held = {(i, loc): D(d) - D(c) for i, loc, d, c in s.execute(
            select(JournalLine.item_id, JournalLine.location_id, func.sum(JournalLine.debit),
                   func.sum(JournalLine.credit))
            .where(JournalLine.role == "inventory", JournalLine.posted_at < until)
            .group_by(JournalLine.item_id, JournalLine.location_id))}
    return ({k: v for k, v in ledger.items() if v}, {k: v for k, v in held.items() if v})


def every_date_ties(reg: Registry, days: list[date] | None = None) -> None:
    """As at the end of each of `days` (None: every day anything was posted), the stock
    lines per item and location are the ledger's value in cents, and the trial balance's
    Inventory their sum."""
    if days is None:
        with reg.store.reading() as s:
            days = sorted({at.date() for at in s.scalars(
                select(StockMovement.created_at).distinct())})
    for day in days:
        ledger, held = as_at(reg, day)
        assert held == ledger, day
        tb = reg.invoke("get_trial_balance", {"end": day.isoformat()}, ADMIN)
        assert D(tb["debit"]) == D(tb["credit"])
        stock = sum((D(r["closing"]) for r in tb["rows"] if r["account"] in STOCK), D(0))
        assert stock == sum(ledger.values(), D(0)), day
    assert ledger_mismatches(reg) == []


def test_a_back_dated_adjustment_keeps_every_date_in_cents(registry: Registry) -> None:
    Given(registry).company()
    jan, feb, mar = date(2026, 1, 10), date(2026, 2, 10), date(2026, 3, 10)
    # M1 at MAIN: 0.004 in January, 0.004 more in March (0.008: 0.01 in the books) ...
    _on(registry, jan, lambda: _found(registry, "M1", "1", "0.004"))
    _on(registry, mar, lambda: _found(registry, "M1", "1", "0.004"))
    # ... then 0.004 dated February: at February's end the stock is worth 0.008 (0.01)
    _on(registry, feb, lambda: _found(registry, "M1", "1", "0.004"))
    days = [jan, feb, date(2026, 2, 28), mar, date(2026, 3, 31)]
    every_date_ties(registry, days)
    assert trial(registry)[INVENTORY] == D("0.01")  # 0.012 now
    bean_loaded(registry)  # its month-end balance assertions hold too


def test_back_dated_receipts_and_shipments_between_sub_cent_steps(registry: Registry) -> None:
    Given(registry).company()
    days = [date(2026, 1, d) for d in (5, 10, 15, 20, 25)]
    _on(registry, days[0], lambda: _found(registry, "M1", "3", "0.335"))   # 1.005
    _on(registry, days[4], lambda: _found(registry, "M1", "1", "0.003"))   # 1.008
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "1", "unit_price": "0.0049"}])["number"]
    _on(registry, days[2], lambda: apply(registry, "receive_purchase_order", number=po))
    so = apply(registry, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": "M1", "quantity": "1", "unit_price": "1"}])["number"]
    _on(registry, days[1], lambda: apply(registry, "fulfill_order", number=so))
    _on(registry, days[3], lambda: _found(registry, "M1", "1", "0.0051", "SHOP"))
    every_date_ties(registry, [*days, date(2026, 1, 31)])
    bean_loaded(registry)
