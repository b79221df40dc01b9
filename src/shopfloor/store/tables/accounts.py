"""Local accounts (issue 14): people who sign in to the web admin with a password.

A sign-in opens a session row; the JWT it mints names the session (`sid`), so signing
out, disabling the account or changing its password ends the session at once on every
server instance, not at the token's expiry. Passwords are stored as argon2 hashes only.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base


class Account(Base):
    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(500))
    role: Mapped[str] = mapped_column(String(16))
    disabled: Mapped[bool] = mapped_column(default=False)
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
