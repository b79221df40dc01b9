"""The buying rules without a database: which supplier a purchase goes to and how much of
its unit (buying/choice.py), and what a recipe line with a yield takes (stock/yields.py),
on the issue's hand-computed figures and on properties any order must keep."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shopfloor.domain.buying.choice import Offer, choose, order_for, price_at
from shopfloor.domain.stock.yields import Yield, between, gross

pytestmark = pytest.mark.quick

TODAY = date(2026, 12, 1)
ALPHA = Offer("Alpha", "EUR", "box", D(100), D(0), None, 10,
              ((D(1), D("4.00")), (D(10), D("3.50"))))
BETA = Offer("Beta", "EUR", "bag", D(25), D(0), None, 3, ((D(1), D("1.25")),))
RATES = {"EUR": D(1), "USD": D("0.92")}


def test_the_worked_example_picks_alpha_in_twenty_days_and_beta_in_five() -> None:
    assert order_for(ALPHA, D(1030)) == (D(11), D("3.50"))
    assert order_for(BETA, D(1030)) == (D(42), D("1.25"))
    got = choose([ALPHA, BETA], D(1030), TODAY + timedelta(days=20), TODAY, RATES)
    assert got is not None
    assert (got.offer.supplier, got.units, got.total, got.stock_quantity, got.late) == \
        ("Alpha", D(11), D("38.50"), D(1100), False)
    got = choose([ALPHA, BETA], D(1030), TODAY + timedelta(days=5), TODAY, RATES)
    assert got is not None
    assert (got.offer.supplier, got.units, got.total) == ("Beta", D(42), D("52.50"))


def test_a_total_in_dollars_is_compared_in_the_company_currency() -> None:
    usd = Offer("Gamma", "USD", "box", D(100), D(0), None, 10, ((D(0), D("3.40")),))
    got = choose([ALPHA, usd], D(1030), TODAY + timedelta(days=20), TODAY, RATES)
    assert got is not None and got.offer.supplier == "Gamma"  # 11 x 3.40 x 0.92 = 34.41 < 38.50
    got = choose([ALPHA, usd], D(1030), TODAY + timedelta(days=20), TODAY, {"EUR": D(1)})
    assert got is not None and got.offer.supplier == "Alpha"  # no USD rate: compared last


def test_ordering_up_to_a_break_counts_when_it_costs_less_in_total() -> None:
    assert order_for(ALPHA, D(850)) == (D(10), D("3.50"))  # 9 x 4.00 = 36 > 10 x 3.50
    assert order_for(ALPHA, D(700)) == (D(7), D("4.00"))   # 28 < 35
    packs = Offer("P", "EUR", "pack", D(10), D(12), D(6), 1, ((D(0), D("2.9")),))
    assert order_for(packs, D(85)) == (D(12), D("2.9"))
    assert order_for(packs, D(125)) == (D(18), D("2.9"))


offers = st.builds(
    Offer, st.sampled_from(["A", "B", "C"]), st.just("EUR"), st.just("u"),
    st.integers(1, 200).map(D), st.integers(0, 30).map(D),
    st.one_of(st.none(), st.integers(1, 12).map(D)), st.integers(0, 30),
    st.lists(st.tuples(st.integers(0, 500), st.integers(1, 10_000)), min_size=1, max_size=4,
             unique_by=lambda b: b[0]).map(
        lambda bs: tuple((D(q), D(p) / 100) for q, p in sorted(bs))))


@given(st.lists(offers, min_size=1, max_size=4), st.integers(1, 100_000), st.integers(0, 40))
def test_a_choice_covers_the_need_keeps_the_terms_and_is_late_only_if_none_is_in_time(
        choices: list[Offer], need: int, days: int) -> None:
    got = choose(choices, D(need), TODAY + timedelta(days=days), TODAY, RATES)
    assert got is not None
    o = got.offer
    assert got.stock_quantity >= need and got.units >= o.minimum
    assert got.units % (o.multiple or 1) == 0
    assert got.unit_price == price_at(o, got.units)
    assert got.late == all(c.lead > days for c in choices)
    if not got.late:
        assert o.lead <= days
        preferred = [c for c in choices if c.preferred and c.lead <= days]
        if not preferred:  # no cheaper order covers the need in time
            assert all(got.total <= order_for(c, D(need))[0] * order_for(c, D(need))[1]
                       for c in choices if c.lead <= days)


def test_the_pcb_line_takes_300_for_80() -> None:
    y = Yield(D(5), D(15), D(50))
    assert gross(D(3), D(80), y) == D(300)                   # 240 x 1.05 + 15 = 267 -> 300
    assert gross(D(3), D(40), y) == D(150)                   # 126 + 15 = 141 -> 150
    assert between(D(3), D(40), D(40), y) == D(150)
    assert gross(D(3), D(80)) == D(240) and gross(D(3), D(0), y) == D(0)


@given(st.integers(1, 500), st.integers(0, 50), st.integers(0, 100),
       st.one_of(st.none(), st.integers(1, 100)),
       st.lists(st.integers(1, 50), min_size=1, max_size=6))
def test_completions_in_parts_take_what_one_completion_would(
        per: int, attrition: int, setup: int, rounding: int | None, parts: list[int]) -> None:
    y = Yield(D(attrition), D(setup), D(rounding) if rounding else None)
    done, taken = D(0), D(0)
    for p in parts:
        taken += between(D(per), done, D(p), y)
        done += p
    assert taken == gross(D(per), done, y) >= D(per) * done
