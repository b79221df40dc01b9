"""Moving-average costing as a pure rule over values: no database, checked over many
figures. A balance's value is the sum of its rows' values; the average is value / on hand."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shopfloor.domain.stock import costing
from shopfloor.kernel.numbers import COST_QUANTUM, cost

pytestmark = pytest.mark.quick

quantities = st.decimals(min_value="0.001", max_value="100000", places=3)
costs = st.decimals(min_value="0", max_value="10000", places=6)
HALF = COST_QUANTUM / 2
D = Decimal


def test_a_receipt_onto_stock_adds_its_value() -> None:
    c = costing.incoming(D(10), D(10), D(1), D(10), D(9))
    assert c == (D(90), D(9), D(0))
    assert costing.average(D(20), D(10) + c.value, D(1)) == D(5)


def test_a_receipt_onto_a_negative_balance_re_prices_it_and_records_the_rest() -> None:
    # -3 on hand valued at 7 each (-21); 4 come in at 2: 1 on hand worth 2, so the row is
    # +23 while the document brought 8: the 15 went with the stock shipped while negative
    c = costing.incoming(D(-3), D(-21), D(7), D(4), D(2))
    assert c == (D(23), D(2), D(-15))
    assert costing.average(D(1), D(-21) + c.value, D(7)) == 2


def test_stock_coming_in_without_a_cost_comes_in_at_the_average() -> None:
    assert costing.incoming(D(5), D("17.5"), D("3.5"), D(5), None) == (D("17.5"), D("3.5"), 0)


@given(on_hand=quantities, average=costs, quantity=quantities, unit_cost=costs)
def test_a_receipt_lands_between_the_two_costs(
        on_hand: Decimal, average: Decimal, quantity: Decimal, unit_cost: Decimal) -> None:
    value = cost(on_hand * average)
    c = costing.incoming(on_hand, value, average, quantity, unit_cost)
    assert c.unit_cost == unit_cost and c.variance == 0
    new = costing.average(on_hand + quantity, value + c.value, average)
    slack = HALF + 2 * HALF / (on_hand + quantity)  # the two values were rounded once each
    assert min(average, unit_cost) - slack <= new <= max(average, unit_cost) + slack


@given(on_hand=quantities, average=costs, data=st.data())
def test_an_issue_takes_its_share_and_the_last_unit_takes_the_rest(
        on_hand: Decimal, average: Decimal, data: st.DataObject) -> None:
    value = cost(on_hand * average)
    q = data.draw(st.decimals(min_value="0.001", max_value=on_hand, places=3))
    c = costing.outgoing(on_hand, value, costing.average(on_hand, value, D(0)), -q)
    assert c.variance == 0 and -value <= c.value <= 0
    if q == on_hand:
        assert c.value == -value
    else:
        assert abs(c.value + q * value / on_hand) <= HALF


@given(on_hand=quantities, average=costs, data=st.data())
def test_leaving_at_the_average_is_an_ordinary_issue(
        on_hand: Decimal, average: Decimal, data: st.DataObject) -> None:
    value = cost(on_hand * average)
    q = data.draw(st.decimals(min_value="0.001", max_value=on_hand, places=3))
    avg = costing.average(on_hand, value, D(0))
    at = costing.outgoing_at(on_hand, value, avg, -q, avg)
    assert at.value + at.variance == cost(-q * avg)
    # the rounded average against the exact share: q x HALF, and two roundings
    assert abs(at.value - costing.outgoing(on_hand, value, avg, -q).value) <= q * HALF + 2 * HALF


def test_leaving_above_the_average_lowers_what_stays() -> None:
    # 20 @ 5.00 (10 came in at 9.00): 4 of them go back at 9.00, 16 stay worth 64.00
    assert costing.outgoing_at(D(20), D(100), D(5), D(-4), D(9)) == (D(-36), D(9), D(0))


def test_leaving_never_takes_more_than_the_stock_holds() -> None:
    # figure A: 5 @ 5.00 left, 4 go back at 9.00 (36.00): 25.00 is all there is, the unit
    # that stays is worth nothing and 11.00 is a gain against the document
    assert costing.outgoing_at(D(5), D(25), D(5), D(-4), D(9)) == (D(-25), D(9), D(-11))
    # figure C: 10 @ 6.00 left, the 10 received at 4.00 go back: all 60.00 leaves, 20.00 of
    # it beyond the document (the shipment took too little)
    assert costing.outgoing_at(D(10), D(60), D(6), D(-10), D(4)) == (D(-60), D(4), D(20))


@given(on_hand=quantities, average=costs, exit_cost=costs, data=st.data())
def test_leaving_at_a_cost_of_its_own_keeps_the_books(
        on_hand: Decimal, average: Decimal, exit_cost: Decimal, data: st.DataObject) -> None:
    value = cost(on_hand * average)
    q = data.draw(st.decimals(min_value="0.001", max_value=on_hand, places=3))
    c = costing.outgoing_at(on_hand, value, average, -q, exit_cost)
    rest = value + c.value
    assert c.value + c.variance == cost(-q * exit_cost)  # nothing dropped
    assert rest >= 0 and (rest == 0 if q == on_hand else True)
    assert not costing.unbalanced(on_hand - q, rest)


def test_the_residue_is_what_no_quantity_times_the_average_makes() -> None:
    # 3.493 kg worth 15.400002: the average 4.408818 makes 15.400001
    assert costing.residue(D("3.493"), D("15.400002")) == D("0.000001")
    assert costing.residue(D("3"), D("1")) == D("0.000001")  # 3 x 0.333333 = 0.999999
    assert costing.residue(D("10"), D("50")) == 0
    assert costing.residue(D("0"), D("5")) == 0  # nothing on hand: nothing to round
