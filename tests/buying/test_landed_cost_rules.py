"""How a landed cost is shared (buying/landed_costs.py), without a database: the issue's
figures, the rounding residue on the largest share, and properties any split keeps."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shopfloor.domain.buying.landed_costs import Received, allocate, base
from shopfloor.kernel.errors import ValidationFailed

pytestmark = pytest.mark.quick

LA = Received("LA", D(10), D(100), None)
LB = Received("LB", D(10), D(200), D("0.5"))


def test_the_worked_example_by_value_then_by_quantity() -> None:
    assert allocate(D(30), [base(LA, "value"), base(LB, "value")]) == [D(10), D(20)]
    assert allocate(D(20), [base(LA, "quantity"), base(LB, "quantity")]) == [D(10), D(10)]


def test_by_weight_needs_every_weight() -> None:
    assert base(LB, "weight") == D(5)
    with pytest.raises(ValidationFailed) as info:
        base(LA, "weight")
    assert info.value.field == "allocate_by" and "LA" in info.value.message


def test_the_residue_goes_on_the_largest_share() -> None:
    assert allocate(D(10), [D(1), D(1), D(1)]) == [D("3.34"), D("3.33"), D("3.33")]
    assert allocate(D(10), [D(1), D(2), D(1)]) == [D("2.50"), D("5.00"), D("2.50")]
    assert allocate(D(10), [D(6), D("1.5"), D("1.5")]) == [D("6.66"), D("1.67"), D("1.67")]
    assert allocate(D("0.01"), [D(1), D(1)]) == [D("0.01"), D(0)]
    # eight shares of 0.015 round to 0.02: 0.04 too much, more than the largest holds
    assert allocate(D("0.12"), [D(1)] * 8) == [D(0), D(0)] + [D("0.02")] * 6


def test_nothing_to_share_by_is_refused() -> None:
    for bases in ([D(0), D(0)], [D(1), D(-1)]):
        with pytest.raises(ValidationFailed) as info:
            allocate(D(5), bases)
        assert info.value.field == "allocate_by"


amounts = st.decimals(min_value=D("0.01"), max_value=D(100000), places=6)
bases = st.lists(st.decimals(min_value=D(0), max_value=D(10000), places=3), min_size=1,
                 max_size=8).filter(lambda b: sum(b) > 0)


@given(amount=amounts, weights=bases)
def test_shares_sum_to_the_amount_never_below_zero_and_near_their_part(
        amount: D, weights: list[D]) -> None:
    shares = allocate(amount, weights)
    assert sum(shares) == amount
    assert all(s >= 0 for s in shares)
    total = sum(weights)
    fair = [amount * w / total for w in weights]
    off = sorted((abs(s - f) for s, f in zip(shares, fair, strict=True)), reverse=True)
    assert all(x <= D("0.005") for x in off[1:]) or amount < D("0.005") * len(weights) ** 2
