"""A clock a test moves instead of sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class Clock:
    """Set as a registry's `clock` (tokens, sessions, previews and job leases all read
    it). Frozen `at` a moment when given, so a test can stand on a boundary to the second;
    otherwise the real time plus what the test moved."""

    def __init__(self, at: datetime | None = None) -> None:
        self.at = at
        self.ahead = timedelta(0)

    def __call__(self) -> datetime:
        return (self.at or datetime.now(UTC)) + self.ahead

    def move(self, by: timedelta) -> None:
        self.ahead += by
