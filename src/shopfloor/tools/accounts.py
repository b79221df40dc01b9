"""Accounts: who signs in, with which role. Admin only, previewed and logged like every
write; a password is an argument that never reaches the log (masked, as in a preview)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field, SecretStr

from shopfloor.domain.accounts import people
from shopfloor.domain.base.context import Op
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import Undo
from shopfloor.registry.tool import Done, Request, Toolset, WriteRequest
from shopfloor.tools import proposals
from shopfloor.tools.fields import Out

tools = Toolset("accounts")
RoleName = Literal["viewer", "operator", "admin"]
Password = SecretStr
PASSWORD = Field(min_length=8, max_length=1024, description="resend it to apply")


class UserOut(Out):
    username: str
    role: str
    disabled: bool
    created_at: datetime
    needs_approval: bool


class UserList(Out):
    users: list[UserOut]


def _out(p: people.Person) -> UserOut:
    return UserOut(username=p.username, role=p.role, disabled=p.disabled,
                   created_at=p.created_at, needs_approval=p.needs_approval)


class NoArgs(Request):
    pass


@tools.read("list_users", title="List users", response=UserList, role=Role.admin,
            description="Accounts that sign in, with role.")
def list_users(op: Op, req: NoArgs) -> UserList:
    return UserList(users=[_out(p) for p in people.people(op)])


class CreateUser(WriteRequest):
    username: str = Field(min_length=1, max_length=200)
    role: RoleName
    password: Password = PASSWORD
    needs_approval: bool = Field(False, description="writes held for approval")


@tools.write("create_user", title="Create user", response=UserOut, role=Role.admin,
             description="Add an account that signs in.", destructive=False,
             undo=Undo.refused("disable_user"))
def create_user(op: Op, req: CreateUser) -> Done[UserOut]:
    p = people.create(op, req.username, req.password.get_secret_value(), req.role,
                      req.needs_approval)
    return Done(f"Create user {p.username} ({p.role})", _out(p))


class SetUserRole(WriteRequest):
    username: str = Field(min_length=1, max_length=200)
    role: RoleName
    needs_approval: bool | None = Field(None, description="writes held for approval")


@tools.write("set_user_role", title="Set user role", response=UserOut, role=Role.admin,
             description="Change a role; ends its sessions and withdraws its "
                         "pending proposals the new role may not make.", destructive=True,
             undo=Undo.refused("set_user_role back"))
def set_user_role(op: Op, req: SetUserRole) -> Done[UserOut]:
    p = people.set_role(op, req.username, req.role, req.needs_approval)
    proposals.follow(op, p.username, proposals.lowered_to(p.role))
    return Done(f"Set role of {p.username} to {p.role}", _out(p))


class DisableUser(WriteRequest):
    username: str = Field(min_length=1, max_length=200)
    disabled: bool = Field(True, description="false: enable")


@tools.write("disable_user", title="Disable user", response=UserOut, role=Role.admin,
             description="Disable (or enable) an account; ends its sessions and "
                         "withdraws its pending proposals.",
             destructive=True, undo=Undo.refused("disable_user with disabled false"))
def disable_user(op: Op, req: DisableUser) -> Done[UserOut]:
    p = people.set_disabled(op, req.username, req.disabled)
    proposals.follow(op, p.username, proposals.disabled(p.disabled))
    return Done(f"{'Disable' if p.disabled else 'Enable'} user {p.username}", _out(p))


class ResetPassword(WriteRequest):
    username: str = Field(min_length=1, max_length=200)
    password: Password = PASSWORD


@tools.write("reset_user_password", title="Reset user password", response=UserOut,
             role=Role.admin, description="Set a new password; ends its sessions.",
             destructive=True, undo=Undo.refused("reset it again"))
def reset_user_password(op: Op, req: ResetPassword) -> Done[UserOut]:
    p = people.set_password(op, req.username, req.password.get_secret_value())
    return Done(f"Reset the password of {p.username}", _out(p))
