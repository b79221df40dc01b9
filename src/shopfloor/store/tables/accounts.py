"""Local accounts (issue 14): people who sign in to the web admin with a password.

A sign-in opens a session row; the JWT it mints names the session (`sid`), so signing
out, disabling the account or changing its password ends the session at once on every
server instance, not at the token's expiry. Passwords are stored as argon2 hashes only.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base


class Account(Base):
    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(500))
    role: Mapped[str] = mapped_column(String(16))
    disabled: Mapped[bool] = mapped_column(default=False)
    needs_approval: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime]
    password_changed_at: Mapped[datetime]


class AccountSession(Base):
    """One signed-in browser or API client; `revoked_at` set by sign-out or by the account."""

    __tablename__ = "account_sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    revoked_reason: Mapped[str | None] = mapped_column(String(32))


class SignInFailure(Base):
    """Failed sign-ins counted per account name and per client address (`key` is a hash
    of either, so names that do not exist are not stored), kept here rather than in a
    server's memory so that every instance sharing the database throttles the same
    guesser. `locked_until` is when the next try is heard."""

    __tablename__ = "sign_in_failures"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int]
    last_failed_at: Mapped[datetime] = mapped_column(index=True)
    locked_until: Mapped[datetime | None]


class RevokedSubject(Base):
    """A token subject whose tokens, every one issued up to `revoked_at`, are refused:
    `shopfloor token revoke`. A minted token carries no session to end, so its subject
    is what is revoked; tokens minted afterwards hold again."""

    __tablename__ = "revoked_subjects"
    subject: Mapped[str] = mapped_column(String(200), primary_key=True)
    revoked_at: Mapped[datetime]
    revoked_by: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str | None] = mapped_column(Text)
