"""Accounts through the registry: admins create, re-role, disable and reset accounts with
tools, previewed and logged like any write, the password never in the log; each change
ends the account's sessions at once. Both databases."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from shopfloor.app.accounts import Accounts, SessionEnded
from shopfloor.kernel.errors import ShopfloorError, Unauthenticated
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply

SECRET = "a door code nobody logs"
HOUR = timedelta(hours=1)


def test_admins_manage_accounts_and_each_change_ends_sessions(registry: Registry) -> None:
    accounts = Accounts(registry.store)
    shown = registry.invoke("create_user", {"username": "ann", "role": "operator",
                                            "password": SECRET}, ADMIN)
    assert shown["apply"]["arguments"]["password"] != SECRET
    assert accounts.list() == []  # a preview creates nothing
    with pytest.raises(ShopfloorError) as info:  # the masked password is not a password
        registry.invoke("create_user", shown["apply"]["arguments"], ADMIN)
    assert "send the password itself" in json.dumps(info.value.to_payload())
    assert accounts.list() == []
    registry.invoke("create_user", {**shown["apply"]["arguments"], "password": SECRET}, ADMIN)
    session = accounts.sign_in("ann", SECRET, HOUR)
    assert session.role == "operator"
    log = json.dumps(registry.invoke("get_operation_log", {}, ADMIN))
    assert SECRET not in log and "create_user" in log

    apply(registry, "set_user_role", username="ann", role="admin")
    with pytest.raises(SessionEnded):
        accounts.check(session.session_id)
    [ann] = registry.invoke("list_users", {}, ADMIN)["users"]
    assert (ann["username"], ann["role"], ann["disabled"]) == ("ann", "admin", False)

    again = accounts.sign_in("ann", SECRET, HOUR)
    apply(registry, "reset_user_password", username="ann", password="another long one")
    with pytest.raises(SessionEnded):
        accounts.check(again.session_id)
    with pytest.raises(Unauthenticated):
        accounts.sign_in("ann", SECRET, HOUR)
    accounts.sign_in("ann", "another long one", HOUR)

    apply(registry, "disable_user", username="ann")
    with pytest.raises(Unauthenticated):
        accounts.sign_in("ann", "another long one", HOUR)
    apply(registry, "disable_user", username="ann", disabled=False)
    accounts.sign_in("ann", "another long one", HOUR)
    assert SECRET not in json.dumps(registry.invoke("get_operation_log", {}, ADMIN))


def test_only_admins_see_or_change_accounts(registry: Registry) -> None:
    Accounts(registry.store).create("ann", SECRET, "viewer")
    for role in ("viewer", "operator"):
        who = Actor.of("someone", role)
        for tool, args in (("list_users", {}), ("set_user_role",
                                                {"username": "ann", "role": "admin"})):
            with pytest.raises(ShopfloorError) as info:
                registry.invoke(tool, args, who)
            assert info.value.code == "forbidden"
