"""Working time as a pure rule: shifts, closed dates, zones; no database."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopfloor.domain.floor import calendar as cal
from shopfloor.kernel.errors import ValidationFailed

pytestmark = pytest.mark.quick

MON = date(2027, 3, 1)  # a Monday


def at(d: date, hh: int, mm: int = 0) -> datetime:
    return datetime(d.year, d.month, d.day, hh, mm, tzinfo=UTC)


def test_the_default_week_is_monday_to_friday_eight_to_four() -> None:
    c = cal.Calendar.of()
    assert [c.available_minutes(MON + timedelta(days=i)) for i in range(7)] == \
        [480] * 5 + [0, 0]


def test_forward_pauses_overnight_and_backward_mirrors_it() -> None:
    c = cal.Calendar.of()
    assert cal.forward(c, at(MON, 8), Decimal(230)) == (at(MON, 8), at(MON, 11, 50))
    tue = MON + timedelta(days=1)
    assert cal.forward(c, at(MON, 11, 50), Decimal(315)) == (at(MON, 11, 50), at(tue, 9, 5))
    assert cal.backward(c, at(tue, 9, 5), Decimal(315)) == (at(MON, 11, 50), at(tue, 9, 5))
    # from a Saturday the work waits for Monday; ending on a shift's end stays there
    assert cal.forward(c, at(MON - timedelta(days=2), 10), Decimal(480)) == \
        (at(MON, 8), at(MON, 16))
    assert cal.backward(c, c.end_of(MON), Decimal(60)) == (at(MON, 15), at(MON, 16))


def test_closed_dates_and_a_lunch_break_are_skipped() -> None:
    c = cal.Calendar.of([{"days": ["mon", "tue"], "start": "08:00", "end": "12:00"},
                         {"days": ["mon", "tue"], "start": "12:30", "end": "16:30"}],
                        closed=[MON.isoformat()])
    tue = MON + timedelta(days=1)
    assert c.available_minutes(MON) == 0
    assert cal.forward(c, at(MON, 9), Decimal(300)) == (at(tue, 8), at(tue, 13, 30))
    assert cal.minutes_by_day(c, at(tue, 8), at(tue, 13, 30)) == {tue: Decimal(300)}


def test_a_time_zone_moves_the_shifts() -> None:
    c = cal.Calendar.of(zone="Europe/Berlin")  # UTC+1 in March before the change
    assert cal.forward(c, at(MON, 0), Decimal(60)) == (at(MON, 7), at(MON, 8))


@pytest.mark.parametrize("shifts, word", [
    ([{"days": ["mon"], "start": "16:00", "end": "08:00"}], "before it starts"),
    ([{"days": ["funday"], "start": "08:00", "end": "16:00"}], "not a day"),
    ([{"days": ["mon"], "start": "08:00", "end": "12:00"},
      {"days": ["mon"], "start": "11:00", "end": "16:00"}], "overlap"),
    ([{"days": ["mon"], "start": "8", "end": "16:00"}], "HH:MM"),
    ([], "no shift"),
])
def test_a_week_that_cannot_be_is_refused_naming_calendar(shifts: list[dict[str, object]],
                                                           word: str) -> None:
    with pytest.raises(ValidationFailed) as e:
        cal.week_of(shifts)
    assert e.value.field == "calendar" and word in e.value.message


clocks = st.integers(min_value=0, max_value=47).map(lambda h: h * 30)


@st.composite
def calendars(draw: st.DrawFn) -> cal.Calendar:
    shifts = []
    for day in cal.DAYS:
        cuts = sorted(draw(st.sets(clocks, max_size=4)))
        for a, b in zip(cuts[::2], cuts[1::2], strict=False):
            shifts.append({"days": [day], "start": cal._hhmm(a), "end": cal._hhmm(b)})
    if not shifts:
        shifts = list(cal.DEFAULT_SHIFTS)
    closed = draw(st.sets(st.integers(0, 40).map(lambda i: MON + timedelta(days=i)),
                          max_size=10))
    zone = draw(st.sampled_from(["UTC", "Europe/Berlin", "America/New_York"]))
    return cal.Calendar.of(shifts, closed, zone)


moments = st.integers(min_value=0, max_value=60 * 24 * 30).map(
    lambda m: at(MON, 0) + timedelta(minutes=m))
spans = st.decimals(min_value="0.01", max_value="5000", places=2)


def test_a_shift_inside_the_hour_the_clock_skips_is_no_work() -> None:
    """Found by the property below: New York skips 02:00-03:00 on 2027-03-14, so a Sunday
    shift 02:30-03:00 has no time that day (its ends came out inverted, counted as -30)."""
    c = cal.Calendar.of([{"days": ["sun"], "start": "02:30", "end": "03:00"}], [],
                        "America/New_York")
    began, finished = cal.forward(c, datetime(2027, 3, 1, tzinfo=UTC), Decimal("30.01"))
    assert c.day(date(2027, 3, 14)) == ()
    assert cal.minutes_by_day(c, began, finished) == {
        date(2027, 3, 7): Decimal(30), date(2027, 3, 21): Decimal("0.01")}


@settings(max_examples=150, deadline=None)
@given(c=calendars(), start=moments, minutes=spans)
def test_work_never_overlaps_a_closed_period_and_is_exactly_its_minutes(
        c: cal.Calendar, start: datetime, minutes: Decimal) -> None:
    began, finished = cal.forward(c, start, minutes)
    assert start <= began <= finished
    assert sum(cal.minutes_by_day(c, began, finished).values()) == minutes
    # worked out again from the week, the closed dates and the zone alone (not through
    # the calendar's own days): the work starts and ends inside a shift of an open day,
    # and the open shifts between those moments hold exactly its minutes, so none of it
    # fell on a closed date or outside the shifts
    shifts = _open_shifts(c, began - timedelta(days=2), finished + timedelta(days=2))
    assert any(a <= began < b for a, b in shifts)
    assert any(a < finished <= b for a, b in shifts)
    pieces = [(max(a, began), min(b, finished)) for a, b in shifts
              if max(a, began) < min(b, finished)]
    assert cal.minutes_of(sum((b - a for a, b in pieces), timedelta(0))) == minutes


def _open_shifts(c: cal.Calendar, first: datetime, last: datetime
                 ) -> list[tuple[datetime, datetime]]:
    """Every shift of every day not closed between two moments, as UTC instants."""
    def moment(d: date, minutes: int) -> datetime:
        d += timedelta(days=minutes // 1440)  # a shift may end at 24:00
        return datetime.combine(d, time(minutes % 1440 // 60, minutes % 60),
                                c.zone).astimezone(UTC)

    out = []
    d = first.astimezone(c.zone).date()
    while d <= last.astimezone(c.zone).date():
        if d not in c.closed:
            out += [(moment(d, a), moment(d, b)) for a, b in c.week[d.weekday()]]
        d += timedelta(days=1)
    return out


@settings(max_examples=150, deadline=None)
@given(c=calendars(), end=moments, minutes=spans)
def test_backward_then_forward_round_trips(c: cal.Calendar, end: datetime,
                                           minutes: Decimal) -> None:
    start, ended = cal.backward(c, end, minutes)
    assert ended <= end
    assert cal.forward(c, start, minutes) == (start, ended)


@settings(max_examples=100, deadline=None)
@given(c=calendars(), end=moments,
       steps=st.lists(spans, min_size=1, max_size=5))
def test_an_order_scheduled_backward_then_forward_round_trips(
        c: cal.Calendar, end: datetime, steps: list[Decimal]) -> None:
    chain = [cal.Step(c, m) for m in steps]
    back = cal.chain_backward(chain, end)
    assert cal.chain_forward(chain, back[0][0]) == back
