"""The accounts' rules: names, roles and passwords checked one way whoever manages them
(a tool, the CLI through a tool, a test making its first admin). A password is hashed
here and never recorded: the change it leaves says that it changed, not what to.

Any change to an account ends its open sessions, so a new role, a disabled account or a
reset password takes effect at once, on every instance sharing the database.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import select, update

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Conflict, NotFound, ValidationFailed
from shopfloor.kernel.roles import Role
from shopfloor.store.tables import Account, AccountSession

if TYPE_CHECKING:
    from argon2 import PasswordHasher

CHEAP_HASHES = "SHOPFLOOR_PASSWORD_HASHING"
"""Set to `cheapest-for-tests` by the test suite only: every sign-in of its hundreds costs
~0.1 s of CPU at argon2's real parameters."""
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


@cache
def hasher() -> PasswordHasher:
    """Built when a password is first hashed or checked, not at import: a process that
    never signs anyone in (a CLI call, an MCP session) never loads argon2 (~20 ms)."""
    from argon2 import PasswordHasher, profiles

    if os.environ.get(CHEAP_HASHES) == "cheapest-for-tests":
        # argon2-cffi's own profile for test suites: the same code path, 1 pass over 8 KiB
        # rather than 3 over 64 MiB; a hash records its parameters, so either verifies
        return PasswordHasher.from_parameters(profiles.CHEAPEST)
    return PasswordHasher()


@cache
def dummy_hash() -> str:
    """What an unknown name's password is checked against, so that a sign-in for a name
    nobody has takes as long as one for a real name. Hashed on first use (~0.1 s), not at
    import by every process."""
    return hasher().hash("not a real password, only spends the same time")

MASK = "**********"  # what a password argument reads as once logged or previewed


@dataclass(frozen=True)
class Person:
    username: str
    role: str
    disabled: bool
    created_at: datetime
    needs_approval: bool = False


def check_name(username: str) -> str:
    name = username.strip()
    if not name or len(name) > 200 or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ValidationFailed("username must be 1-200 printable characters", field="username")
    return name


def check_password(password: str) -> str:
    if password == MASK:
        raise ValidationFailed("send the password itself: a preview shows it masked",
                               field="password")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValidationFailed(f"password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters",
                               field="password")
    return password


def check_role(role: str) -> str:
    try:
        return Role.parse(role).name
    except ValueError as exc:
        raise ValidationFailed(str(exc), field="role") from None


def _person(a: Account) -> Person:
    return Person(a.username, a.role, a.disabled, a.created_at, a.needs_approval)


def _account(op: Op, username: str) -> Account:
    found = op.session.scalar(op.lock(select(Account).where(
        Account.username == username.strip())))
    if found is None:
        raise NotFound(f"no account named {username.strip()!r}", field="username")
    return found


def people(op: Op) -> list[Person]:
    return [_person(a) for a in op.session.scalars(select(Account).order_by(Account.username))]


def create(op: Op, username: str, password: str, role: str,
           needs_approval: bool = False) -> Person:
    name, level = check_name(username), check_role(role)
    digest = hasher().hash(check_password(password))
    if op.session.scalar(select(Account.id).where(Account.username == name)) is not None:
        raise Conflict(f"an account named {name!r} exists", field="username")
    account = Account(username=name, password_hash=digest, role=level, disabled=False,
                      created_at=op.now, password_changed_at=op.now,
                      needs_approval=needs_approval)
    op.session.add(account)
    op.flush()
    op.change("account", name, "role", None, level)
    if needs_approval:
        op.change("account", name, "needs_approval", None, True)
    return _person(account)


def set_role(op: Op, username: str, role: str, needs_approval: bool | None = None) -> Person:
    """`needs_approval`: its writes are held as proposals (None leaves it as it is)."""
    account, level = _account(op, username), check_role(role)
    op.change("account", account.username, "role", account.role, level)
    account.role = level
    if needs_approval is not None and needs_approval != account.needs_approval:
        op.change("account", account.username, "needs_approval", account.needs_approval,
                  needs_approval)
        account.needs_approval = needs_approval
    _end_sessions(op, account)
    return _person(account)


def set_disabled(op: Op, username: str, disabled: bool) -> Person:
    account = _account(op, username)
    op.change("account", account.username, "disabled", account.disabled, disabled)
    account.disabled = disabled
    _end_sessions(op, account)
    return _person(account)


def set_password(op: Op, username: str, password: str) -> Person:
    account = _account(op, username)
    account.password_hash = hasher().hash(check_password(password))
    account.password_changed_at = op.now
    op.change("account", account.username, "password", "old", "new")
    _end_sessions(op, account)
    return _person(account)


def _end_sessions(op: Op, account: Account) -> None:
    op.session.execute(update(AccountSession)
                       .where(AccountSession.account_id == account.id,
                              AccountSession.revoked_at.is_(None))
                       .values(revoked_at=op.now, revoked_reason="revoked"))
