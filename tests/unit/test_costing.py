"""Moving-average costing as a pure rule: no database, checked over many figures."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from shopfloor.domain.stock import costing
from shopfloor.kernel.numbers import COST_QUANTUM

quantities = st.decimals(min_value="0.001", max_value="100000", places=3)
costs = st.decimals(min_value="0", max_value="10000", places=6)
HALF = COST_QUANTUM / 2


def test_a_receipt_onto_stock_re_averages_by_quantity() -> None:
    assert costing.incoming(Decimal(10), Decimal(1), Decimal(10), Decimal(9)) == \
        (Decimal("5.000000"), Decimal("9.000000"))


def test_a_receipt_onto_nothing_or_a_negative_balance_takes_its_own_cost() -> None:
    assert costing.incoming(Decimal(0), Decimal(7), Decimal(4), Decimal(2)).average == 2
    assert costing.incoming(Decimal(-3), Decimal(7), Decimal(4), Decimal(2)).average == 2


def test_stock_coming_in_without_a_cost_comes_in_at_the_average() -> None:
    assert costing.incoming(Decimal(5), Decimal("3.5"), Decimal(5), None) == \
        (Decimal("3.500000"), Decimal("3.500000"))


@given(on_hand=quantities, average=costs, quantity=quantities, unit_cost=costs)
def test_a_receipt_keeps_the_value_and_lands_between_the_two_costs(
        on_hand: Decimal, average: Decimal, quantity: Decimal, unit_cost: Decimal) -> None:
    new, moved = costing.incoming(on_hand, average, quantity, unit_cost)
    assert moved == unit_cost
    assert min(average, unit_cost) - HALF <= new <= max(average, unit_cost) + HALF
    value = on_hand * average + quantity * unit_cost
    assert abs((on_hand + quantity) * new - value) <= (on_hand + quantity) * HALF


@given(average=costs)
def test_an_issue_leaves_at_the_average_and_keeps_it(average: Decimal) -> None:
    assert costing.outgoing(average) == (average, average)


@given(on_hand=quantities, average=costs, data=st.data())
def test_leaving_at_the_average_is_an_ordinary_issue(
        on_hand: Decimal, average: Decimal, data: st.DataObject) -> None:
    quantity = -data.draw(st.decimals(min_value="0.001", max_value=on_hand, places=3))
    new, moved = costing.outgoing_at(on_hand, average, quantity, average)
    assert moved == average
    assert abs(new - average) <= HALF


def test_leaving_above_the_average_lowers_what_stays() -> None:
    # 20 @ 5.00 (10 came in at 9.00): 4 of them go back at 9.00, 16 stay worth 64.00
    assert costing.outgoing_at(Decimal(20), Decimal(5), Decimal(-4), Decimal(9)) == \
        (Decimal("4.000000"), Decimal("9.000000"))
