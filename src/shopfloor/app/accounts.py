"""Local accounts and their sessions: who may sign in, and whether a session still holds.

Signing in is settled before the registry runs (it needs an actor), so it lives here,
beside the store, shared by every surface that signs people in (the API's token
endpoint, the admin). Managing accounts is a rule like any other: the tools
(`domain/accounts`) create them, set roles, disable them and reset passwords; the
methods below run the same rules outside a tool, for tests and first start-up.

Hashes are argon2id (argon2-cffi's defaults, rehashed when those move on). An unknown
user costs the same hash check as a wrong password, so timing does not tell which names
exist, and guessing is throttled per name and per address the same way for both
(sign_in_throttle). A session is a row, so signing out, disabling an account or changing
its password ends its sessions on every instance sharing the database.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from shopfloor.app import throttle
from shopfloor.domain.accounts import people
from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Conflict, Unauthenticated
from shopfloor.registry import proposals as held
from shopfloor.registry.catalogue import Catalogue
from shopfloor.store.engine import Store
from shopfloor.store.tables import Account, AccountSession, RevokedSubject
from shopfloor.tools import every_tool, proposals, tools_beside

MAX_PASSWORD = people.MAX_PASSWORD
T = TypeVar("T")

REASONS = {
    "expired": "Your session expired. Sign in again.",
    "signed_out": "You signed out.",
    "revoked": "Your session was ended (account disabled or password changed). Sign in again.",
    "unauthenticated": "Sign in to continue.",
}
"""Why a browser is back at the sign-in page: fixed texts, chosen by code, never echoed."""


class SessionEnded(Unauthenticated):
    """A session that no longer holds; `reason` is one of REASONS' keys."""

    def __init__(self, reason: str) -> None:
        super().__init__(REASONS[reason], details={"reason": reason})
        self.reason = reason


@dataclass(frozen=True)
class SignedIn:
    session_id: str
    username: str
    role: str
    expires_at: datetime
    needs_approval: bool = False


def utcnow() -> datetime:
    return datetime.now(UTC)


class Accounts:
    def __init__(self, store: Store, clock: Callable[[], datetime] = utcnow,
                 catalogue: Catalogue | None = None) -> None:
        """`catalogue`: the tools whose roles decide which held proposals a change to an
        account withdraws; the registry's where there is one, else the whole catalogue's,
        loaded when first asked."""
        self.store = store
        self.clock = clock
        if catalogue is None:
            catalogue = Catalogue()
            catalogue.add_lazily(tools_beside, every_tool)
        self.catalogue = catalogue

    def _run(self, rule: Callable[[Op], T], actor: str = "local") -> T:
        try:
            with self.store.writing() as session:
                out = rule(Op(session=session, actor=actor, now=self.clock(),
                              catalogue=self.catalogue))
                session.commit()
                return out
        except IntegrityError:  # a twin created the same name first
            raise Conflict("an account of that name exists", field="username") from None

    def create(self, username: str, password: str, role: str) -> None:
        self._run(lambda op: people.create(op, username, password, role))

    def set_password(self, username: str, password: str) -> None:
        self._run(lambda op: people.set_password(op, username, password))

    def set_disabled(self, username: str, disabled: bool) -> None:
        def rule(op: Op) -> None:
            person = people.set_disabled(op, username, disabled)
            proposals.follow(op, person.username, proposals.disabled(person.disabled))
        self._run(rule)

    def set_role(self, username: str, role: str) -> None:
        def rule(op: Op) -> None:
            person = people.set_role(op, username, role)
            proposals.follow(op, person.username, proposals.lowered_to(person.role))
        self._run(rule)

    def revoke_tokens(self, subject: str, by: str, reason: str | None = None) -> int:
        """Refuse every token of `subject` issued until now (`shopfloor token revoke`) and
        withdraw its pending proposals, in one transaction; how many were withdrawn."""
        name = people.check_name(subject)
        why = "its proposer's tokens were revoked" + (f": {reason}" if reason else "")

        def rule(op: Op) -> int:
            found = op.session.get(RevokedSubject, name)
            if found is None:
                op.session.add(RevokedSubject(subject=name, revoked_at=op.now, revoked_by=by,
                                              reason=reason))
            else:
                found.revoked_at, found.revoked_by, found.reason = op.now, by, reason
            pending = len(held.pending_of(op.session, name))
            proposals.follow(op, name, lambda needs: why)
            return pending

        return self._run(rule, actor=by)

    def list(self) -> list[dict[str, object]]:
        with self.store.reading() as session:
            return [{"username": p.username, "role": p.role, "disabled": p.disabled,
                     "created_at": p.created_at.isoformat()}
                    for p in people.people(Op(session=session, actor="local",
                                              now=self.clock()))]

    def sign_in(self, username: str, password: str, ttl: timedelta,
                client: str | None = None) -> SignedIn:
        """`client` is the caller's address, throttled beside the name (TooManyAttempts)."""
        wrong = Unauthenticated("wrong username or password")
        keys = throttle.keys(username, client)
        with self.store.reading() as session:
            throttle.check(session, keys, self.clock())
            account = session.scalar(select(Account).where(Account.username == username.strip()))
            if account is not None:
                session.expunge(account)
        if account is None or not password or len(password) > MAX_PASSWORD:
            with contextlib.suppress(VerificationError):
                people.hasher().verify(people.dummy_hash(), password or "-")
            self._failed(keys)
            raise wrong
        try:
            people.hasher().verify(account.password_hash, password)
        except (VerificationError, InvalidHashError):
            self._failed(keys)
            raise wrong from None
        if account.disabled:
            raise Unauthenticated("this account is disabled")
        now = self.clock()
        sid = secrets.token_urlsafe(24)
        with self.store.writing() as session:
            if people.hasher().check_needs_rehash(account.password_hash):
                session.execute(update(Account).where(Account.id == account.id)
                                .values(password_hash=people.hasher().hash(password)))
            session.add(AccountSession(id=sid, account_id=account.id, created_at=now,
                                       expires_at=now + ttl))
            throttle.clear(session, keys)
            session.commit()
        return SignedIn(sid, account.username, account.role, now + ttl, account.needs_approval)

    def _failed(self, keys: throttle.Keys) -> None:
        now = self.clock()

        def count() -> None:
            with self.store.writing() as session:
                throttle.record_failure(session, keys, now)
                session.commit()

        def forget() -> None:
            with self.store.writing() as session:
                throttle.forget_old(session, now)
                session.commit()

        try:
            self.store.retrying(count)
        except IntegrityError:  # another instance counted this key's first failure
            self.store.retrying(count)
        self.store.retrying(forget)

    def sign_out(self, session_id: str) -> None:
        with self.store.writing() as session:
            session.execute(update(AccountSession)
                            .where(AccountSession.id == session_id,
                                   AccountSession.revoked_at.is_(None))
                            .values(revoked_at=self.clock(), revoked_reason="signed_out"))
            session.commit()

    def revoked(self) -> dict[str, datetime]:
        """Every revoked subject and the moment up to which its tokens are refused."""
        with self.store.reading() as session:
            return {subject: at for subject, at in session.execute(
                select(RevokedSubject.subject, RevokedSubject.revoked_at))}

    def check(self, session_id: str) -> None:
        """Raise SessionEnded unless the session is open and its account enabled."""
        with self.store.reading() as session:
            row = session.execute(
                select(AccountSession.expires_at, AccountSession.revoked_reason,
                       Account.disabled)
                .join(Account, Account.id == AccountSession.account_id)
                .where(AccountSession.id == session_id)).first()
        if row is None:
            raise SessionEnded("revoked")
        expires_at, revoked, disabled = row
        if revoked is not None:
            raise SessionEnded(revoked if revoked in REASONS else "revoked")
        if disabled:
            raise SessionEnded("revoked")
        if expires_at <= self.clock():
            raise SessionEnded("expired")


def warm_sign_in() -> None:
    """Hash the dummy password now (a server's start), so that no first sign-in, known
    name or not, takes longer than the rest."""
    people.dummy_hash()
