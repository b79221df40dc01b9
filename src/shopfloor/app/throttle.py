"""Throttling password guesses, in the database so that every instance agrees.

A failed sign-in counts against the name tried, whether an account has it or not (the
answers are the same either way, so the throttle tells nobody which names exist), and
against the client address. Past a few free failures (ACCOUNT_FREE for a name, more for
an address, which many people behind one NAT share) each further failure locks that key
twice as long as the one before, from FIRST_LOCK up to LONGEST_LOCK. While a key is
locked a try is refused before its password is hashed and is not counted: the guesser
learns nothing and the server spends nothing. A key quiet for FORGET_AFTER starts again
from nothing; a successful sign-in clears its name's count but not its address's, or one
good account would buy a password sprayer fresh guesses at every other.

The counts are rows (sign_in_failures), not a server's memory: DESIGN 6a, any instance
behind a load balancer may hear the next guess.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.store.tables import SignInFailure

ACCOUNT_FREE = 5
ADDRESS_FREE = 20
FIRST_LOCK = timedelta(seconds=30)
LONGEST_LOCK = timedelta(minutes=15)
FORGET_AFTER = timedelta(hours=1)


class TooManyAttempts(ShopfloorError):
    """Answered 429 with Retry-After; never raised by a tool, so not one of the tools'
    error codes."""

    code = "rate_limited"

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"Too many failed sign-ins: try again in {retry_after} seconds.",
                         details={"retry_after": retry_after})
        self.retry_after = retry_after


@dataclass(frozen=True)
class Keys:
    account: str
    address: str | None

    def all(self) -> list[str]:
        return [self.account] + ([self.address] if self.address else [])


def keys(username: str, client: str | None) -> Keys:
    """Hashes, so a row is as long as any other and a mistyped password pasted into the
    name field is not kept in clear."""
    return Keys(_digest("account", username.strip()),
                _digest("address", client) if client else None)


def _digest(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def check(session: Session, keys: Keys, now: datetime) -> None:
    """Raise TooManyAttempts while the name or the address is locked."""
    until = session.scalar(select(SignInFailure.locked_until)
                           .where(SignInFailure.key.in_(keys.all()),
                                  SignInFailure.locked_until > now)
                           .order_by(SignInFailure.locked_until.desc()).limit(1))
    if until is not None:
        raise TooManyAttempts(max(1, math.ceil((until - now).total_seconds())))


def record_failure(session: Session, keys: Keys, now: datetime) -> None:
    """Count one failure against the name and the address (in the caller's write; the
    rows are locked, so two instances counting at once both count)."""
    for key, free in ((keys.account, ACCOUNT_FREE), (keys.address, ADDRESS_FREE)):
        if key is None:
            continue
        row = session.get(SignInFailure, key, with_for_update=True)
        stale = row is None or row.last_failed_at <= now - FORGET_AFTER
        count = 1 if stale or row is None else row.failures + 1
        locked = now + lock_for(count - free) if count >= free else None
        if row is None:
            session.add(SignInFailure(key=key, failures=count, last_failed_at=now,
                                      locked_until=locked))
        else:
            row.failures, row.last_failed_at, row.locked_until = count, now, locked


def lock_for(past_free: int) -> timedelta:
    doubled: timedelta = FIRST_LOCK * (1 << min(past_free, 20))
    return min(LONGEST_LOCK, doubled)


def clear(session: Session, keys: Keys) -> None:
    session.execute(delete(SignInFailure).where(SignInFailure.key == keys.account))


def forget_old(session: Session, now: datetime) -> None:
    """Drop counts nobody has added to for FORGET_AFTER (their locks ended long ago), so
    guesses at made-up names do not pile up."""
    session.execute(delete(SignInFailure)
                    .where(SignInFailure.last_failed_at <= now - FORGET_AFTER))
