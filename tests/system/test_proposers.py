"""Proposals follow their proposer: an account lowered below what its pending proposals
need, or disabled, has them withdrawn (a status, an event, the reason), and no one can
approve them into the books in its name afterwards.

Issue 30, item 7: an operator marked as needing approval proposed two adjustments;
lowered to viewer, one was approved and applied; disabled, the other was too, both in
the proposer's name. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, listed_events

OPER = Actor.of("oper", "operator", needs_approval=True)
BOSS = Actor.of("boss", "operator")


def _on_hand(reg: Registry) -> Decimal:
    rows = reg.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    return Decimal(rows[0]["on_hand"]) if rows else Decimal(0)


def _propose(reg: Registry, delta: str) -> str:
    held = apply(reg, "create_stock_adjustment", OPER, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": delta, "unit_cost": "2"}])
    assert held["proposed"] is True
    return str(held["proposal_id"])


def _refused(code: str, reg: Registry, tool: str, args: dict[str, Any],
             actor: Actor) -> dict[str, Any]:
    with pytest.raises(ShopfloorError) as caught:
        reg.invoke(tool, args, actor)
    payload: dict[str, Any] = caught.value.to_payload()["error"]
    assert payload["code"] == code, payload
    return payload


def _withdrawn_events(reg: Registry, expect: int = 0) -> list[tuple[str, str]]:
    """The withdrawals told as events, once at least `expect` are listed."""
    def told(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(e["data"]["proposal_id"], e["data"].get("reason", ""))
                for e in events if e["data"]["status"] == "withdrawn"]
    return told(listed_events(reg, ["proposal.decided"], lambda ev: len(told(ev)) >= expect))


@pytest.fixture()
def reg(registry: Registry, given: Given) -> Registry:
    given.company()
    apply(registry, "create_user", username="oper", role="operator",
          password="correct horse", needs_approval=True)
    return registry


def _approve_both_ways(reg: Registry, pid: str, why: str) -> None:
    """Neither a preview of approving nor an apply gets through, and both say why."""
    for preview in (True, False):
        err = _refused("conflict", reg, "approve_proposal",
                       {"proposal_id": pid, "preview": preview}, BOSS)
        assert err["field"] == "proposal_id"
        assert "withdrawn" in err["message"] and why in err["message"], err


def test_lowering_the_role_withdraws_what_it_no_longer_may_do(reg: Registry) -> None:
    first, second = _propose(reg, "5"), _propose(reg, "3")
    apply(reg, "set_user_role", username="oper", role="viewer")
    for pid in (first, second):
        got = reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)
        assert got["status"] == "withdrawn", got
        assert "viewer" in got["reason"] and "operator" in got["reason"], got
        assert got["decided_by"] == ADMIN.subject
        _approve_both_ways(reg, pid, "viewer")
    assert sorted(p for p, _ in _withdrawn_events(reg, 2)) == sorted([first, second])
    assert all("viewer" in why for _, why in _withdrawn_events(reg))
    assert _on_hand(reg) == 0
    assert reg.invoke("list_proposals", {}, BOSS)["proposals"] == []


def test_a_role_still_enough_keeps_them(reg: Registry) -> None:
    pid = _propose(reg, "5")
    apply(reg, "set_user_role", username="oper", role="admin")
    assert reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)["status"] == "pending"
    assert _withdrawn_events(reg) == []
    apply(reg, "approve_proposal", BOSS, proposal_id=pid)
    assert _on_hand(reg) == 5


def test_disabling_the_account_withdraws_them(reg: Registry) -> None:
    pid = _propose(reg, "5")
    other = _propose(reg, "2")
    shown = reg.invoke("disable_user", {"username": "oper"}, ADMIN)
    assert shown["preview"] is True
    assert reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)["status"] == "pending"
    assert {(c["entity"], c["key"], c["after"]) for c in shown["changes"]} >= \
        {("proposal", pid, "withdrawn"), ("proposal", other, "withdrawn")}
    reg.invoke("disable_user", shown["apply"]["arguments"], ADMIN)
    got = reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)
    assert (got["status"], got["reason"]) == ("withdrawn", "its proposer's account is disabled")
    _approve_both_ways(reg, pid, "disabled")
    _refused("conflict", reg, "reject_proposal",
             {"proposal_id": other, "reason": "no", "preview": False}, BOSS)
    assert _on_hand(reg) == 0


def test_an_account_changed_outside_a_tool_withdraws_them_too(reg: Registry) -> None:
    """`shopfloor user` and first start-up manage accounts through app.accounts."""
    pid = _propose(reg, "5")
    Accounts(reg.store).set_disabled("oper", True)
    assert reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)["status"] == "withdrawn"
    _approve_both_ways(reg, pid, "disabled")
    other = Actor.of("oper2", "operator", needs_approval=True)
    Accounts(reg.store).create("oper2", "correct horse", "operator")
    held = apply(reg, "create_stock_adjustment", other, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": "1", "unit_cost": "2"}])
    Accounts(reg.store).set_role("oper2", "viewer")
    got = reg.invoke("get_proposal", {"proposal_id": held["proposal_id"]}, BOSS)
    assert got["status"] == "withdrawn" and "viewer" in got["reason"]


def test_approval_checks_the_proposer_as_it_is_now(reg: Registry) -> None:
    """Even a proposal nobody withdrew (its account changed under a restored backup, or
    by hand) is not applied for a proposer who may no longer do it."""
    from sqlalchemy import update

    from shopfloor.store.tables.accounts import Account

    pid = _propose(reg, "5")
    with reg.store.writing() as s:
        s.execute(update(Account).where(Account.username == "oper").values(role="viewer"))
        s.commit()
    for preview in (True, False):
        err = _refused("forbidden", reg, "approve_proposal",
                       {"proposal_id": pid, "preview": preview}, BOSS)
        assert "viewer" in err["message"] and err["field"] == "proposal_id", err
    assert _on_hand(reg) == 0


def test_revoking_a_token_subject_withdraws_its_proposals(reg: Registry) -> None:
    """`shopfloor token revoke`: a minted token has no account to disable, so its subject
    is revoked: its tokens refused, its pending proposals withdrawn."""
    from shopfloor.app.settings import Settings
    from shopfloor.surfaces.auth import Authenticator

    auth = Authenticator(reg, Settings(database_url=reg.store.url))
    bearer = "Bearer " + auth.mint("bot", ["operator"], 600, needs_approval=True)
    bot = auth.actor(bearer)
    held = apply(reg, "create_stock_adjustment", bot, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": "4", "unit_cost": "2"}])
    kept = _propose(reg, "1")  # another proposer's stays pending
    assert Accounts(reg.store).revoke_tokens("bot", "alice", "leaked") == 1
    got = reg.invoke("get_proposal", {"proposal_id": held["proposal_id"]}, BOSS)
    assert (got["status"], got["decided_by"]) == ("withdrawn", "alice")
    assert got["reason"] == "its proposer's tokens were revoked: leaked"
    _approve_both_ways(reg, held["proposal_id"], "revoked")
    assert reg.invoke("get_proposal", {"proposal_id": kept}, BOSS)["status"] == "pending"
    fresh = Authenticator(reg, Settings(database_url=reg.store.url))
    for who in (auth, fresh):  # the cached token too, within a second
        with pytest.raises(ShopfloorError) as caught:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                who.actor(bearer)
                time.sleep(0.05)
        assert caught.value.code == "unauthenticated" and "revoked" in caught.value.message
    assert held["proposal_id"] in {p for p, _ in _withdrawn_events(reg, 1)}
    assert _on_hand(reg) == 0


def test_token_revoke_on_the_command_line(reg: Registry, db_url: str) -> None:
    from tests.system.test_backup import cli

    bot = Actor.of("bot2", "operator", needs_approval=True)
    held = apply(reg, "create_stock_adjustment", bot, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": "4", "unit_cost": "2"}])
    done = cli(db_url, "token", "revoke", "--subject", "bot2", "--reason", "left")
    assert done.returncode == 0, done.stderr
    assert "withdrew 1 pending proposal." in done.stderr, done.stderr
    got = reg.invoke("get_proposal", {"proposal_id": held["proposal_id"]}, BOSS)
    assert got["status"] == "withdrawn" and got["reason"].endswith(": left")
