"""Working time as plain values: a work centre's week of shifts, its closed dates and its
time zone, and how many minutes of work fit between two moments.

Shifts are wall-clock times in the centre's zone; the arithmetic runs on UTC instants
(each day's shifts are turned into UTC intervals once and kept), so a day that changes
its clocks has the minutes it really has. Minutes are `Decimal`; a duration becomes a
`timedelta` in whole microseconds, so going back and forth over the same time is exact.
No database here: scheduling, load and the tests ask these functions directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import Decimal, InvalidOperation
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from shopfloor.kernel.errors import Conflict, ValidationFailed

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_SHIFTS: tuple[dict[str, Any], ...] = (
    {"days": list(DAYS[:5]), "start": "08:00", "end": "16:00"},)
HORIZON_DAYS = 3660
"""How far a search for working time goes before it calls the calendar empty."""
MICRO = Decimal(60_000_000)
MAX_MINUTES = Decimal(10) ** 9
"""Minutes typed as text (an import's routing) keep the bound the tools' arguments have."""

Interval = tuple[datetime, datetime]


_DURATIONS: dict[Decimal, timedelta] = {}


def duration(minutes: Decimal) -> timedelta:
    """Minutes as a timedelta of whole microseconds; a scheduler asks for the same few
    durations thousands of times, so they are remembered (a bounded few)."""
    found = _DURATIONS.get(minutes)
    if found is None:
        found = timedelta(microseconds=int((minutes * MICRO).to_integral_value()))
        if len(_DURATIONS) < 10000:
            _DURATIONS[minutes] = found
    return found


def minutes_of(span: timedelta) -> Decimal:
    return Decimal(span // timedelta(microseconds=1)) / MICRO


def _clock(text: Any, where: str, *, end: bool) -> int:
    """Minutes after midnight of "HH:MM" ("24:00" closes a day)."""
    try:
        hh, mm = str(text).split(":")
        h, m = int(hh), int(mm)
    except ValueError:
        raise ValidationFailed(f"{where}: {text!r} is not a time HH:MM",
                               field="calendar") from None
    if not (0 <= m < 60 and (0 <= h < 24 or (end and h == 24 and m == 0))):
        raise ValidationFailed(f"{where}: {text!r} is not a time of day", field="calendar")
    return h * 60 + m


def week_of(shifts: Sequence[Mapping[str, Any]]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Each weekday's shifts as (start, end) minutes after midnight, sorted; refuses what a
    week cannot hold (naming `calendar`): an unknown day, a shift that ends before it starts,
    two shifts that overlap, a week with no working time at all."""
    days: list[list[tuple[int, int]]] = [[] for _ in DAYS]
    for i, shift in enumerate(shifts):
        where = f"calendar[{i}]"
        names = shift.get("days")
        if not isinstance(names, list | tuple) or not names:
            raise ValidationFailed(f"{where}: give the days, e.g. [\"mon\", \"tue\"]",
                                   field="calendar")
        start = _clock(shift.get("start"), where, end=False)
        end = _clock(shift.get("end"), where, end=True)
        if end <= start:
            raise ValidationFailed(f"{where}: the shift ends ({shift.get('end')}) before it "
                                   f"starts ({shift.get('start')})", field="calendar")
        for name in names:
            day = str(name).strip().lower()[:3]
            if day not in DAYS or str(name).strip().lower() not in (day, _long(day)):
                raise ValidationFailed(f"{where}: {name!r} is not a day (mon ... sun)",
                                       field="calendar")
            days[DAYS.index(day)].append((start, end))
    for d, spans in enumerate(days):
        spans.sort()
        for (a0, a1), (b0, _) in pairwise(spans):
            if b0 < a1:
                raise ValidationFailed(
                    f"calendar: two shifts overlap on {DAYS[d]} ({_hhmm(a0)}-{_hhmm(a1)} and "
                    f"{_hhmm(b0)}-...)", field="calendar")
    if not any(days):
        raise ValidationFailed("calendar: the week has no shift", field="calendar")
    return tuple(tuple(s) for s in days)


def _long(day: str) -> str:
    return {"mon": "monday", "tue": "tuesday", "wed": "wednesday", "thu": "thursday",
            "fri": "friday", "sat": "saturday", "sun": "sunday"}[day]


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def zone_of(name: str) -> tzinfo:
    try:
        return UTC if name.upper() == "UTC" else ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed(f"{name!r} is not a time zone (e.g. Europe/Berlin)",
                               field="time_zone") from None


def closed_of(dates: Iterable[Any]) -> frozenset[date]:
    out = set()
    for d in dates:
        try:
            out.add(d if isinstance(d, date) else date.fromisoformat(str(d)))
        except ValueError:
            raise ValidationFailed(f"{d!r} is not a date (YYYY-MM-DD)",
                                   field="closed_dates") from None
    return frozenset(out)


def shifts_out(week: Sequence[Sequence[tuple[int, int]]]) -> list[dict[str, Any]]:
    """The week back as shifts, days sharing a time grouped: what is stored and shown."""
    grouped: dict[tuple[int, int], list[str]] = {}
    for d, spans in enumerate(week):
        for span in spans:
            grouped.setdefault(span, []).append(DAYS[d])
    return [{"days": names, "start": _hhmm(a), "end": _hhmm(b)}
            for (a, b), names in sorted(grouped.items())]


class Calendar:
    """One work centre's working time; each day's UTC intervals are computed once."""

    __slots__ = ("_days", "_ends", "closed", "week", "zone")

    def __init__(self, week: Sequence[Sequence[tuple[int, int]]],
                 closed: Iterable[date] = (), zone: tzinfo = UTC) -> None:
        self.week = tuple(tuple(s) for s in week)
        self.closed = frozenset(closed)
        self.zone = zone
        self._days: dict[date, tuple[Interval, ...]] = {}
        self._ends: dict[date, datetime] = {}

    @classmethod
    def of(cls, shifts: Sequence[Mapping[str, Any]] = DEFAULT_SHIFTS,
           closed: Iterable[Any] = (), zone: str = "UTC") -> Calendar:
        return cls(week_of(shifts), closed_of(closed), zone_of(zone))

    def day(self, d: date) -> tuple[Interval, ...]:
        """The shifts of local day `d` as UTC intervals (none on a closed date). A shift
        wholly inside the hour a clock skips in spring (02:30-03:00 in New York on its
        change day) has no time: its ends come out inverted, and are dropped so that no
        search counts them as negative work."""
        got = self._days.get(d)
        if got is None:
            spans = () if d in self.closed else self.week[d.weekday()]
            got = tuple((s, e) for s, e in ((self._at(d, a), self._at(d, b))
                                            for a, b in spans) if e > s)
            self._days[d] = got
        return got

    def _at(self, d: date, minutes: int) -> datetime:
        if minutes == 24 * 60:
            d, minutes = d + timedelta(days=1), 0
        local = datetime.combine(d, time(minutes // 60, minutes % 60), self.zone)
        return local.astimezone(UTC)

    def local_date(self, moment: datetime) -> date:
        return moment.astimezone(self.zone).date()

    def end_of(self, d: date) -> datetime:
        """Midnight after local day `d`: a backward schedule from here ends at that day's
        closing time (or the last working moment before it)."""
        found = self._ends.get(d)
        if found is None:
            found = datetime.combine(d + timedelta(days=1), time(0), self.zone).astimezone(UTC)
            self._ends[d] = found
        return found


    def available_minutes(self, d: date) -> Decimal:
        return sum((minutes_of(b - a) for a, b in self.day(d)), Decimal(0))


ONE_DAY = timedelta(days=1)


def _empty(_: Calendar) -> Conflict:
    return Conflict("calendar: no working time within ten years", field="calendar")


def fits(cal: Calendar, minutes: Decimal) -> bool:
    """Whether `minutes` of work could fit in the span a search looks through at all
    (ten years and the closed dates, every minute of each day working): more never
    finishes, and past about 2.7 million years it is no longer a `timedelta`."""
    return minutes <= (HORIZON_DAYS + len(cal.closed)) * 24 * 60


def _too_long(minutes: Decimal) -> ValidationFailed:
    return ValidationFailed(f"{minutes:.0f} minutes of work do not fit in ten years of any "
                            "calendar", field="calendar", details={"minutes": str(minutes)})


def forward(cal: Calendar, start: datetime, minutes: Decimal) -> Interval:
    """Work `minutes` from `start` on: (when the work really starts, when it finishes).
    Work pauses outside shifts and on closed dates; it may end exactly at a shift's end."""
    if not fits(cal, minutes):
        raise _too_long(minutes)
    need = duration(minutes)
    cursor = start.astimezone(UTC)
    if need <= timedelta(0):
        return cursor, cursor
    first: datetime | None = None
    d = cal.local_date(cursor)
    for _ in range(HORIZON_DAYS + len(cal.closed)):
        for a, b in cal.day(d):
            if b <= cursor:
                continue
            a = max(a, cursor)
            if first is None:
                first = a
            if b - a >= need:
                return first, a + need
            need -= b - a
            cursor = b
        d += ONE_DAY
    raise _empty(cal)


def backward(cal: Calendar, end: datetime, minutes: Decimal) -> Interval:
    """Work `minutes` ending by `end`: (when it must start, when it really ends)."""
    if not fits(cal, minutes):
        raise _too_long(minutes)
    need = duration(minutes)
    cursor = end.astimezone(UTC)
    if need <= timedelta(0):
        return cursor, cursor
    last: datetime | None = None
    d = cal.local_date(cursor)
    for _ in range(HORIZON_DAYS + len(cal.closed)):
        for a, b in reversed(cal.day(d)):
            if a >= cursor:
                continue
            b = min(b, cursor)
            if last is None:
                last = b
            if b - a >= need:
                return b - need, last
            need -= b - a
            cursor = a
        d -= ONE_DAY
    raise _empty(cal)


def minutes_by_day(cal: Calendar, start: datetime, finish: datetime) -> dict[date, Decimal]:
    """The working minutes between two moments, per local day: what an operation puts on
    its work centre's load."""
    out: dict[date, Decimal] = {}
    s, f = start.astimezone(UTC), finish.astimezone(UTC)
    if f <= s:
        return out
    d, last = cal.local_date(s), cal.local_date(f)
    while d <= last:
        total = timedelta(0)
        for a, b in cal.day(d):
            lo, hi = max(a, s), min(b, f)
            if hi > lo:
                total += hi - lo
        if total:
            out[d] = minutes_of(total)
        d += timedelta(days=1)
    return out


def working(cal: Calendar, start: datetime, finish: datetime) -> timedelta:
    """The working time between two moments (UTC instants)."""
    total = timedelta(0)
    if finish <= start:
        return total
    d, last = cal.local_date(start), cal.local_date(finish)
    while d <= last:
        for a, b in cal.day(d):
            lo, hi = max(a, start), min(b, finish)
            if hi > lo:
                total += hi - lo
        d += timedelta(days=1)
    return total


def parse_minutes(value: Any, fld: str) -> Decimal:
    try:
        m = Decimal(str(value))
    except InvalidOperation:
        raise ValidationFailed(f"{value!r} is not a number of minutes", field=fld) from None
    if not m.is_finite() or m < 0:
        raise ValidationFailed(f"{value!r}: minutes must be zero or more", field=fld)
    if m >= MAX_MINUTES or m != m.quantize(Decimal("0.000001")):
        raise ValidationFailed(f"{value!r}: minutes are less than 10^9, to a millionth",
                               field=fld)
    return m


@dataclass(frozen=True)
class Step:
    """One operation to place: its calendar and how long it works there."""

    calendar: Calendar
    minutes: Decimal


def chain_forward(steps: Sequence[Step], start: datetime) -> list[Interval]:
    """Operations one after another from `start`: each starts when the previous ends."""
    out: list[Interval] = []
    cursor = start
    for s in steps:
        began, cursor = forward(s.calendar, cursor, s.minutes)
        out.append((began, cursor))
    return out


def chain_backward(steps: Sequence[Step], end: datetime) -> list[Interval]:
    """Operations one after another ending by `end`, placed from the last to the first."""
    out: list[Interval] = []
    cursor = end
    for s in reversed(steps):
        cursor, ended = backward(s.calendar, cursor, s.minutes)
        out.append((cursor, ended))
    out.reverse()
    return out
