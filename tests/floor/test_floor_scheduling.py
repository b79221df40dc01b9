"""Finite scheduling as a pure rule: no centre ever runs more operations than its units."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopfloor.domain.floor import calendar as cal
from shopfloor.domain.floor.scheduling import Job, place_finite

pytestmark = pytest.mark.quick

START = datetime(2027, 3, 1, 8, tzinfo=UTC)
CALENDARS = {1: cal.Calendar.of(),
             2: cal.Calendar.of([{"days": ["mon", "wed", "fri"], "start": "06:00",
                                  "end": "14:00"},
                                 {"days": ["tue"], "start": "10:00", "end": "11:00"}]),
             3: cal.Calendar.of(closed=["2027-03-02"], zone="Europe/Berlin")}

jobs = st.lists(st.tuples(
    st.none() | st.dates(min_value=date(2027, 3, 1), max_value=date(2027, 4, 1)),
    st.lists(st.tuples(st.sampled_from([1, 2, 3]),
                       st.decimals(min_value="1", max_value="900", places=1)),
             min_size=1, max_size=4)), min_size=1, max_size=25)


@settings(max_examples=80, deadline=None)
@given(specs=jobs, capacity=st.fixed_dictionaries({c: st.integers(1, 3) for c in CALENDARS}))
def test_no_moment_has_more_operations_on_a_centre_than_it_has_units(
        specs: list[tuple[date | None, list[tuple[int, Decimal]]]],
        capacity: dict[int, int]) -> None:
    work = [Job(f"MO-{i:03d}", due, ops) for i, (due, ops) in enumerate(specs)]
    placed = place_finite(work, CALENDARS, capacity, START)
    events: dict[int, list[tuple[datetime, int]]] = {c: [] for c in CALENDARS}
    for job in work:
        ready = START
        for (centre, minutes), (began, finished) in zip(job.operations, placed[job.key],
                                                        strict=True):
            assert began >= ready  # each operation after the one before it
            assert sum(cal.minutes_by_day(CALENDARS[centre], began, finished).values()) == \
                minutes
            ready = finished
            events[centre] += [(began, 1), (finished, -1)]
    for centre, moments in events.items():
        running = 0
        for _, step in sorted(moments):  # a finish (-1) sorts before a start at one moment
            running += step
            assert running <= capacity[centre]


def test_in_due_date_order_then_number_one_unit_runs_them_back_to_back() -> None:
    one = Decimal(300)
    work = [Job(k, date.fromisoformat(d), [(1, one)]) for k, d in (
        ("E", "2027-03-03"), ("B", "2027-03-02"), ("A", "2027-03-01"), ("D", "2027-03-03"),
        ("C", "2027-03-02"))]
    placed = place_finite(work, CALENDARS, {1: 1}, START)
    assert [placed[k][0][1].strftime("%a %H:%M") for k in "ABCDE"] == \
        ["Mon 13:00", "Tue 10:00", "Tue 15:00", "Wed 12:00", "Thu 09:00"]


def test_what_is_already_on_a_unit_stays_and_the_others_go_around_it() -> None:
    mon_13 = datetime(2027, 3, 1, 13, tzinfo=UTC)
    busy = {1: [(START, mon_13)]}  # an order not being rescheduled: Mon 08:00-13:00
    placed = place_finite([Job("Y", None, [(1, Decimal(300))])], CALENDARS, {1: 1}, START,
                          busy)
    assert placed["Y"] == [(mon_13, datetime(2027, 3, 2, 10, tzinfo=UTC))]
    # two units, both busy until 13:00 and one of them until Tuesday: the other is free
    busy = {1: [(START, mon_13), (START, datetime(2027, 3, 2, 16, tzinfo=UTC))]}
    placed = place_finite([Job("Y", None, [(1, Decimal(60))])], CALENDARS, {1: 2}, START,
                          busy)
    assert placed["Y"] == [(mon_13, datetime(2027, 3, 1, 14, tzinfo=UTC))]


@settings(max_examples=60, deadline=None)
@given(kept=jobs, moved=jobs, capacity=st.fixed_dictionaries(
    {c: st.integers(1, 3) for c in CALENDARS}))
def test_orders_placed_around_fixed_ones_never_overfill_a_centre(
        kept: list[tuple[date | None, list[tuple[int, Decimal]]]],
        moved: list[tuple[date | None, list[tuple[int, Decimal]]]],
        capacity: dict[int, int]) -> None:
    """Some orders placed first stay where they are; the rest, placed around them, never
    take a unit those hold."""
    first = [Job(f"K-{i:03d}", due, ops) for i, (due, ops) in enumerate(kept)]
    fixed = place_finite(first, CALENDARS, capacity, START)
    busy: dict[int, list[cal.Interval]] = {c: [] for c in CALENDARS}
    for job in first:
        for (centre, _), span in zip(job.operations, fixed[job.key], strict=True):
            busy[centre].append(span)
    later = [Job(f"M-{i:03d}", due, ops) for i, (due, ops) in enumerate(moved)]
    placed = place_finite(later, CALENDARS, capacity, START, busy)
    for centre, spans in busy.items():
        moments = [(s, 1) for s, _ in spans] + [(f, -1) for _, f in spans]
        for job in later:
            for (c, _), (s, f) in zip(job.operations, placed[job.key], strict=True):
                if c == centre:
                    moments += [(s, 1), (f, -1)]
        running = 0
        for _, step in sorted(moments):
            running += step
            assert running <= capacity[centre]
