"""The batched write path: statements per document, derived quantities that cannot be
stored, generated numbers that never meet chosen ones, balances created by racing writers.

Statement counts are exact properties of the code (not timings): a document's rows are
read in one query per table and written in one statement per table, so a hundred-line
adjustment runs as many statements as a one-line one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand, snapshot


@contextmanager
def counted(registry: Registry) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        seen.append(statement.split()[0].upper())

    event.listen(registry.store.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(registry.store.engine, "before_cursor_execute", count)


def _items(registry: Registry, n: int) -> None:
    given = Given(registry)
    for i in range(n):
        given.item(f"B{i}", name=f"Bulk {i}", purchase_price="2")


def _adjust(lines: int) -> dict[str, Any]:
    return {"location": "MAIN", "reason": "count",
            "lines": [{"sku": f"B{i}", "quantity_delta": "1", "unit_cost": "2"}
                      for i in range(lines)]}


def test_statements_do_not_grow_with_lines(registry: Registry, given: Given) -> None:
    given.company()
    _items(registry, 100)
    apply(registry, "create_stock_adjustment", **_adjust(100))  # balances and sequence exist
    counts = {}
    for lines in (1, 100):
        with counted(registry) as seen:
            apply(registry, "create_stock_adjustment", **_adjust(lines))
        counts[lines] = seen
    # BEGIN (SQLite) + location, items, sequence, document, balances, lines, ledger rows,
    # balance updates, operation log, its event (the outbox), and the journal: the
    # accounts' rules, the period lock, its entry and the entry's lines
    assert len(counts[1]) <= 15, counts[1]
    assert len(counts[100]) == len(counts[1]), (counts[1], counts[100])

    preview = registry.invoke("create_stock_adjustment", _adjust(100), ADMIN)
    with counted(registry) as seen:
        registry.invoke("create_stock_adjustment", preview["apply"]["arguments"], ADMIN)
    # + the key's lookup, the spent token and the key's one row with its result
    assert len(seen) == len(counts[100]) + 3, seen
    assert ledger_mismatches(registry) == []


def test_a_200_line_receipt_stays_within_two_statements_per_line(registry: Registry,
                                                                 given: Given) -> None:
    given.company()
    _items(registry, 200)
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": f"B{i}", "quantity": "5", "unit_price": "3"} for i in range(200)])
    with counted(registry) as seen:
        done = apply(registry, "receive_purchase_order", number=po["number"], batch="LOT-1")
    assert done["status"] == "received"
    assert len(seen) <= 20, seen  # constant: two per line would be 400
    assert on_hand(registry, "B199") == Decimal(5)
    assert ledger_mismatches(registry) == []


def test_a_derived_quantity_beyond_storage_is_refused(registry: Registry, given: Given) -> None:
    """A recipe of 999,999,999 per unit, built 9,300 times, needs 9.3e12 of a component:
    more than a column holds on SQLite, and more than Shopfloor promises to store."""
    given.company()
    given.recipe("P1", {"M1": "999999999"})
    before = snapshot(registry)
    for quantity in ("9300", "999999999"):
        with pytest.raises(ShopfloorError) as refused:
            apply(registry, "create_manufacturing_order", sku="P1", quantity=quantity,
                  location="MAIN")
        assert refused.value.code == "validation_error"
        assert refused.value.field == "quantity"
    with pytest.raises(ShopfloorError) as previewed:
        registry.invoke("create_manufacturing_order",
                        {"sku": "P1", "quantity": "9300", "location": "MAIN"}, ADMIN)
    assert (previewed.value.code, previewed.value.field) == ("validation_error", "quantity")
    assert snapshot(registry) == before
    ok = apply(registry, "create_manufacturing_order", sku="P1", quantity="1", location="MAIN")
    assert ok["applied"] is True


def test_a_stored_cost_beyond_storage_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_item", sku="P1", precision=6)  # made by the millionth
    apply(registry, "modify_item", sku="M1", precision=6)  # and taking thousandths of M1
    given.stock({"M1": ("1000", "999999999")}, reason="found")
    given.recipe("P1", {"M1": "2000"})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="0.000001",
               location="MAIN")
    before = snapshot(registry)
    # stock is valued below 10^12 (it is stored), but a millionth of a unit made of 0.002
    # units at 999,999,999 costs 2 x 10^12 a unit
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "complete_manufacturing_order", number=mo["number"])
    assert refused.value.code == "validation_error"
    assert snapshot(registry) == before


def test_generated_numbers_step_past_chosen_ones(registry: Registry, given: Given) -> None:
    """Generated numbers are never looked up, so a chosen number that looks generated
    moves the counter past it."""
    given.company()
    line = [{"sku": "M1", "quantity": "1", "unit_price": "1"}]
    apply(registry, "create_purchase_order", supplier="Acme", location="MAIN", lines=line,
          number="PO-00003")
    numbers = [apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
                     lines=line)["number"] for _ in range(3)]
    assert numbers == ["PO-00004", "PO-00005", "PO-00006"]
    with pytest.raises(ShopfloorError) as taken:
        apply(registry, "create_purchase_order", supplier="Acme", location="MAIN", lines=line,
              number="PO-00005")
    assert (taken.value.code, taken.value.field) == ("conflict", "number")


def test_racing_first_postings_create_one_balance(registry: Registry, given: Given) -> None:
    """Eight writers post to a balance that does not exist yet: one creates it, the others
    start over and add to it; nothing is lost."""
    given.company()
    apply(registry, "modify_item", sku="M2", precision=1)  # counted to a tenth
    gate = threading.Barrier(8)

    def one(_: int) -> dict[str, Any]:
        gate.wait(30)
        return apply(registry, "create_stock_adjustment", location="SHOP", reason="race",
                     lines=[{"sku": "M2", "quantity_delta": "1.5", "unit_cost": "2"}])

    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(one, range(8)))
    assert all(d["applied"] for d in done)
    assert on_hand(registry, "M2", "SHOP") == Decimal(12)
    assert ledger_mismatches(registry) == []


def test_mrp_never_plans_an_order_beyond_storage(registry: Registry, given: Given) -> None:
    """A sales order of 900 million, a recipe of 999,999,999 per unit: the component's
    need cannot be stored, so the plan names it for review instead of ordering it."""
    from tests.planning.test_mrp import run_job

    given.company()
    given.recipe("P1", {"M1": "999999999"})
    given.so({"P1": ("900000000", "1")})
    plan = run_job(registry, "run_mrp")["result"]
    bought = [ln["sku"] for po in plan["purchase_orders"] for ln in po["lines"]]
    assert "M1" not in bought
    assert [e["sku"] for e in plan["messages"] if e["action"] == "review"] == ["M1"]


def test_stock_moved_in_a_rolled_back_savepoint_is_forgotten(registry: Registry,
                                                             given: Given) -> None:
    """A write job's check runs its handler in a savepoint and rolls it back: what that
    run moved in memory must not reach a later query's flush in the same transaction."""
    from datetime import UTC, datetime

    from sqlalchemy import func, select

    from shopfloor.domain.base import resolve
    from shopfloor.domain.base.context import Op
    from shopfloor.domain.stock import ledger as stock
    from shopfloor.store.tables import StockMovement

    given.company()
    with registry.store.writing() as session:
        savepoint = session.begin_nested()
        op = Op(session, "alice", datetime.now(UTC), dialect=registry.store.dialect)
        item = resolve.items(op, [("M1", "sku")])["M1"]
        stock.post(op, stock.Posting(item, resolve.location(op, "MAIN"), Decimal(5),
                                     "adjustment", None, None, unit_cost=Decimal(1)))
        savepoint.rollback()
        # an ORM query would flush a ledger still pending
        assert session.scalar(select(func.count()).select_from(StockMovement)) == 0
        session.commit()
    assert on_hand(registry, "M1") == Decimal(0)
    assert ledger_mismatches(registry) == []
