"""Two hot conversions keep what they said lately (`fmt`, a figure as text; SQLite's
column, a decimal as its integer of millionths): a cached answer must be the answer, and a
value that cannot be cached (a signalling NaN has no hash) is refused as ever."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal as D
from decimal import InvalidOperation

import pytest
from sqlalchemy.dialects import sqlite

from shopfloor.kernel.text import fmt
from shopfloor.store.types import Dec

pytestmark = pytest.mark.quick


def _to_sqlite() -> Callable[[object], object]:
    """What a `Dec` column binds on SQLite: the scaled integer's own conversion."""
    dialect = sqlite.dialect()
    process = Dec().dialect_impl(dialect).bind_processor(dialect)
    assert process is not None
    return process


def test_equal_figures_read_alike_whichever_came_first() -> None:
    assert [fmt(D("2.50")), fmt(D("2.5")), fmt(D("2.500000")), fmt(D("25E-1"))] == ["2.5"] * 4
    assert [fmt(D("1E+1")), fmt(D("10.000")), fmt(D("-0")), fmt(D("0.000"))] == \
        ["10", "10", "0", "0"]
    said = {n: fmt(D(n) / 7) for n in range(5000)}  # past what is kept: still right
    assert said[1] == "0.1428571428571428571428571429" and fmt(D(1) / 7) == said[1]


def test_a_signalling_nan_is_refused_by_both_every_time() -> None:
    process = _to_sqlite()
    for _ in range(2):  # not cached by the first refusal either
        with pytest.raises(InvalidOperation):
            fmt(D("sNaN"))
        with pytest.raises(InvalidOperation):
            process(D("sNaN"))
    assert fmt(D("NaN")) == "NaN"
    with pytest.raises(InvalidOperation):
        process(D("Infinity"))


def test_sqlite_scales_equal_decimals_alike_and_rounds_half_even() -> None:
    process = _to_sqlite()
    got = [process(v) for v in (D("2"), D("2.0"), D("2.000000"), "2",
                                D("0.0000005"), D("0.0000015"), D("-1.25"), None)]
    assert got == [2_000_000, 2_000_000, 2_000_000, 2_000_000, 0, 2, -1_250_000, None]
