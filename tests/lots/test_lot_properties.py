"""Property: random lot movements keep every lot's balance equal to its ledger.

Lots are found, lost (picked or named), moved between locations, counted, held and
released in random order. After every sequence: each lot balance equals the sum of its
ledger rows, none is negative (the locations forbid it), the lots of a balance add up to
it, and a refused operation wrote nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, StockMovement
from shopfloor.store.tables.lots import LotBalance
from tests.helpers import apply, ledger_mismatches, quick_snapshot
from tests.lots.test_lots import TODAY
from tests.stock.test_ledger_properties import fresh  # noqa: F401 (fixture)

LOTS = {"A": "2026-12-01", "B": "2027-02-01", "C": None, "OLD": "2026-10-01"}
LOCS = ("MAIN", "SHOP")
qty = st.decimals(min_value=Decimal("0.5"), max_value=Decimal("40"), places=1)
lot = st.sampled_from(sorted(LOTS))
loc = st.sampled_from(LOCS)
steps = st.lists(st.one_of(
    st.tuples(st.just("find"), lot, loc, qty),
    st.tuples(st.just("lose"), loc, qty),
    st.tuples(st.just("lose_named"), lot, loc, qty),
    st.tuples(st.just("move"), loc, qty),
    st.tuples(st.just("move_named"), lot, loc, qty),
    st.tuples(st.just("count"), lot, loc, qty),
    st.tuples(st.just("hold"), lot),
    st.tuples(st.just("release"), lot),
), min_size=1, max_size=25)


def _run(reg: Registry, step: tuple[Any, ...]) -> None:
    kind = step[0]

    def adjust(where: str, line: dict[str, Any]) -> None:
        apply(reg, "create_stock_adjustment", location=where, reason="p",
              lines=[{"sku": "FLOUR", **line}])

    def move(where: str, line: dict[str, Any]) -> None:
        apply(reg, "create_stock_transfer", from_location=where,
              to_location=LOCS[1 - LOCS.index(where)], lines=[{"sku": "FLOUR", **line}])

    if kind == "find":
        _, name, where, q = step
        adjust(where, {"quantity_delta": str(q), "unit_cost": "2",
                       "lots": [{"lot": name, "expiry": LOTS[name]}]})
    elif kind == "lose":
        adjust(step[1], {"quantity_delta": str(-step[2])})
    elif kind == "lose_named":
        adjust(step[2], {"quantity_delta": str(-step[3]), "lots": [{"lot": step[1]}]})
    elif kind == "move":
        move(step[1], {"quantity": str(step[2])})
    elif kind == "move_named":
        move(step[2], {"quantity": str(step[3]), "lots": [{"lot": step[1]}],
                       "allow_expired": True})
    elif kind == "count":
        adjust(step[2], {"counted_quantity": str(step[3]), "lots": [{"lot": step[1]}]})
    else:
        apply(reg, "hold_lot" if kind == "hold" else "release_lot", sku="FLOUR", lot=step[1],
              **({"reason": "p"} if kind == "hold" else {}))


def _check(reg: Registry) -> None:
    assert ledger_mismatches(reg) == []
    with reg.store.reading() as s:
        ledger = {(b, loc): q for b, loc, q in s.execute(
            select(StockMovement.batch_id, StockMovement.location_id,
                   func.sum(StockMovement.quantity))
            .where(StockMovement.batch_id.is_not(None))
            .group_by(StockMovement.batch_id, StockMovement.location_id))}
        in_lots: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
        for row in s.scalars(select(LotBalance)):
            assert row.on_hand >= 0, f"lot {row.batch_id} negative"
            assert row.on_hand == ledger.pop((row.batch_id, row.location_id), Decimal(0))
            in_lots[(row.item_id, row.location_id)] += row.on_hand
        assert all(q == 0 for q in ledger.values()), f"ledger without lot balance: {ledger}"
        for b in s.scalars(select(Balance)).unique():
            assert b.on_hand == in_lots[(b.item_id, b.location_id)]


EXPECTED = {"insufficient_stock", "conflict", "not_found", "no_change"}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=steps)
def test_random_lot_movements_keep_every_lot_equal_to_its_ledger(
        fresh: Callable[[], Registry], ops: list[Any]) -> None:  # noqa: F811
    reg = fresh()
    reg.clock = lambda: TODAY
    apply(reg, "create_item", sku="FLOUR", name="Flour", batch_tracked=True, uom="kg")
    for step in ops:
        before = quick_snapshot(reg)
        try:
            _run(reg, step)
        except ShopfloorError as exc:
            assert exc.code in EXPECTED, exc.to_payload()
            assert quick_snapshot(reg) == before, "a refused operation wrote something"
    _check(reg)
