"""Proposals: an actor who needs approval never applies; someone else approves, once.

Each test drives the tools through the registry on SQLite and PostgreSQL, as a surface
would, with the proposer's actor marked `needs_approval` (what its token's `approval`
claim gives it) and a separate approver.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from shopfloor.app.settings import Settings
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from tests.given import Given
from tests.helpers import ADMIN, apply, listed_events, snapshot

AGENT = Actor.of("agent", "operator", needs_approval=True)
BOSS = Actor.of("boss", "operator")
PEEK = Actor.of("agent", "viewer")  # the proposer reading its own with a viewer token


def _on_hand(reg: Registry, sku: str = "M1", location: str = "MAIN") -> Decimal:
    rows = reg.invoke("get_stock", {"sku": sku, "location": location}, ADMIN)["balances"]
    return Decimal(rows[0]["on_hand"]) if rows else Decimal(0)


def _propose(reg: Registry, delta: str = "5", **extra: Any) -> dict[str, Any]:
    return apply(reg, "create_stock_adjustment", AGENT, location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": delta, "unit_cost": "2"}], **extra)


def _refused(code: str, fn: Any, *args: Any) -> dict[str, Any]:
    with pytest.raises(ShopfloorError) as caught:
        fn(*args)
    payload: dict[str, Any] = caught.value.to_payload()["error"]
    assert payload["code"] == code, payload
    return payload


@pytest.fixture()
def reg(registry: Registry, given: Given) -> Registry:
    given.company()
    given.stock({"M1": ("10", "2")})
    return registry


def test_an_apply_that_needs_approval_is_held_and_changes_nothing(reg: Registry) -> None:
    before = snapshot(reg)
    held = _propose(reg)
    assert held["proposed"] is True and held["applied"] is False
    assert held["status"] == "pending" and "waits for approval" in held["summary"]
    assert any(c["field"] == "on_hand" for c in held["changes"]), held["changes"]
    after = snapshot(reg)
    assert after.pop("proposals") == before.pop("proposals") + 1
    assert after.pop("events") == before.pop("events") + 1  # proposal.created
    assert {k: v for k, v in after.items() if not k.startswith("proposals")} == \
        {k: v for k, v in before.items() if not k.startswith("proposals")}
    assert _on_hand(reg) == 10
    listed = reg.invoke("list_proposals", {}, BOSS)["proposals"]
    assert [(p["proposal_id"], p["actor"], p["tool"]) for p in listed] == \
        [(held["proposal_id"], "agent", "create_stock_adjustment")]
    mine = reg.invoke("get_proposal", {"proposal_id": held["proposal_id"]}, PEEK)
    assert mine["arguments"]["lines"][0]["quantity_delta"] == "5"
    assert mine["preview"]["summary"] in held["summary"]


def test_approval_applies_once_as_the_proposer(reg: Registry) -> None:
    pid = _propose(reg)["proposal_id"]
    shown = reg.invoke("approve_proposal", {"proposal_id": pid, "preview": True}, BOSS)
    assert shown["preview"] is True and _on_hand(reg) == 10
    assert shown["apply"]["arguments"]["proposal_id"] == pid
    done = reg.invoke("approve_proposal", shown["apply"]["arguments"], BOSS)
    assert done["applied"] is True and done["proposal_id"] == pid
    assert _on_hand(reg) == 15
    log = reg.invoke("get_operation_log", {"operation_id": done["operation_id"]},
                     ADMIN)["entries"]
    assert [(e["tool"], e["actor"]) for e in log] == [("create_stock_adjustment", "agent")]
    again = reg.invoke("approve_proposal", shown["apply"]["arguments"], BOSS)
    assert again["replayed"] is True and _on_hand(reg) == 15  # same key: the same result
    _refused("conflict", reg.invoke, "approve_proposal", {"proposal_id": pid, "preview": False},
             BOSS)
    assert _on_hand(reg) == 15
    got = reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)
    assert (got["status"], got["decided_by"], got["operation_id"]) == \
        ("approved", "boss", done["operation_id"])


def test_the_proposer_never_approves_its_own(reg: Registry) -> None:
    pid = _propose(reg)["proposal_id"]
    same_name = Actor.of("agent", "admin")  # even with a stronger token
    err = _refused("forbidden", reg.invoke, "approve_proposal",
                   {"proposal_id": pid, "preview": False}, same_name)
    assert err["field"] == "proposal_id"
    assert _on_hand(reg) == 10


def test_an_actor_whose_writes_are_held_decides_nothing(reg: Registry) -> None:
    """Two agents, each held, must not approve each other's writes into the books."""
    pid = _propose(reg, "-7")["proposal_id"]
    other = Actor.of("agent-b", "admin", needs_approval=True)
    before = snapshot(reg)
    for tool, extra in (("approve_proposal", {}), ("reject_proposal", {"reason": "no"})):
        for preview in (True, False):
            err = _refused("forbidden", reg.invoke, tool,
                           {"proposal_id": pid, "preview": preview, **extra}, other)
            assert err["field"] == "proposal_id"
    assert snapshot(reg) == before
    assert _on_hand(reg) == 10
    assert reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)["status"] == "pending"


def test_a_stale_proposal_is_refused_with_a_fresh_preview(reg: Registry) -> None:
    pid = _propose(reg, "-8")["proposal_id"]
    apply(reg, "create_stock_adjustment", location="MAIN", reason="meanwhile",
          lines=[{"sku": "M1", "quantity_delta": "-1"}])
    err = _refused("stale_preview", reg.invoke, "approve_proposal",
                   {"proposal_id": pid, "preview": False}, BOSS)
    assert err["details"]["preview"]["changes"], err
    assert _on_hand(reg) == 9
    assert reg.invoke("get_proposal", {"proposal_id": pid}, BOSS)["status"] == "stale"
    _refused("conflict", reg.invoke, "approve_proposal", {"proposal_id": pid, "preview": False},
             BOSS)


def test_a_rejection_reaches_the_proposer(reg: Registry) -> None:
    pid = _propose(reg)["proposal_id"]
    apply(reg, "reject_proposal", BOSS, proposal_id=pid, reason="count it first")
    got = reg.invoke("get_proposal", {"proposal_id": pid}, PEEK)
    assert (got["status"], got["reason"], got["decided_by"]) == \
        ("rejected", "count it first", "boss")
    _refused("conflict", reg.invoke, "approve_proposal", {"proposal_id": pid, "preview": False},
             BOSS)
    assert _on_hand(reg) == 10
    assert reg.invoke("list_proposals", {}, BOSS)["proposals"] == []


def test_a_viewer_reads_only_its_own(reg: Registry) -> None:
    pid = _propose(reg)["proposal_id"]
    other = Actor.of("someone", "viewer")
    assert reg.invoke("list_proposals", {}, other)["proposals"] == []
    _refused("not_found", reg.invoke, "get_proposal", {"proposal_id": pid}, other)
    assert len(reg.invoke("list_proposals", {}, PEEK)["proposals"]) == 1


def test_a_blocked_preview_is_answered_and_nothing_is_held(reg: Registry) -> None:
    answer = _propose(reg, "-50")  # more than on hand at a location that forbids negative
    assert answer.get("proposed") is not True and answer["preview_token"] is None
    assert reg.invoke("list_proposals", {}, BOSS)["proposals"] == []


def test_a_token_minted_to_need_approval_makes_such_an_actor(registry: Registry) -> None:
    auth = Authenticator(registry, Settings(database_url=registry.store.url))
    held = auth.actor("Bearer " + auth.mint("agent", ["operator"], 60, needs_approval=True))
    free = auth.actor("Bearer " + auth.mint("agent", ["operator"], 60))
    assert (held.needs_approval, free.needs_approval) == (True, False)


def test_proposals_and_their_decisions_are_events(reg: Registry) -> None:
    pid = _propose(reg)["proposal_id"]
    apply(reg, "approve_proposal", BOSS, proposal_id=pid)
    events = listed_events(reg, ["proposal.created", "proposal.decided", "operation.applied"],
                           lambda ev: any(e["type"] == "proposal.decided" for e in ev))
    told = [(e["type"], e["data"].get("proposal_id"), e["data"].get("status"))
            for e in events if e["type"] != "operation.applied"]
    assert told == [("proposal.created", pid, None), ("proposal.decided", pid, "approved")]
    applied = [e for e in events if e["type"] == "operation.applied"]
    assert applied[-1]["data"]["actor"] == "agent"
