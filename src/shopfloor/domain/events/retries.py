"""When a failed delivery is tried again: the Standard Webhooks schedule (5 seconds, 5
minutes, 30 minutes, 2 hours, 5 hours, 10 hours, 10 hours after the tries before), then
it is given up and shown as failed."""

from __future__ import annotations

from datetime import timedelta

SCHEDULE = (timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30),
            timedelta(hours=2), timedelta(hours=5), timedelta(hours=10), timedelta(hours=10))
ATTEMPTS = len(SCHEDULE) + 1


def next_delay(attempts: int) -> timedelta | None:
    """After `attempts` failed tries, how long until the next; None once they are spent."""
    if attempts < 1:
        return timedelta(0)
    if attempts > len(SCHEDULE):
        return None
    return SCHEDULE[attempts - 1]
