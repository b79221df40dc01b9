"""The span of years a business date or moment may fall in: 1900 to 2999.

Python's dates end at year 9999 and the day after, the midnight after or ten years of a
calendar past a date near there cannot be reckoned; a date before 1900 or after 2999 is
a typing slip, never a delivery or a count. Bounding them where they are given keeps
every later step (the end of a day, a week of load, a schedule's search) in range, so
it can be answered, not crash. An offset is any that ISO 8601 allows (up to 23:59): the
moment it names, in UTC, must fall in the span too.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

FIRST_YEAR = 1900
LAST_YEAR = 2999
SPAN = f"{FIRST_YEAR}-{LAST_YEAR}"


def day_problem(day: date) -> str | None:
    """Why a business date cannot be taken (None: it can)."""
    if FIRST_YEAR <= day.year <= LAST_YEAR:
        return None
    return f"{day.isoformat()} is outside the years {SPAN}"


def moment_problem(moment: datetime) -> str | None:
    """Why a moment cannot be taken: its own year, or the year it is in UTC, outside
    the span (None: it can). A moment without a zone is read as UTC."""
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        return f"{moment.isoformat()} is outside the years {SPAN}"
    if moment.tzinfo is None:
        return None
    if not FIRST_YEAR <= moment.astimezone(UTC).year <= LAST_YEAR:
        return f"{moment.isoformat()} is outside the years {SPAN} in UTC"
    return None
