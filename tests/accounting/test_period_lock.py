"""Issue 31's period lock, on SQLite and PostgreSQL: the lock is an admin's previewed,
logged, revertible write; nothing is posted dated on or before it; a count dated then is
refused naming its field; a revert or a correction of what the closed period holds posts
its effect dated now, and its preview says so."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import entries, inventory_equals_valuation, lines
from tests.corrections.test_revert import revert
from tests.given import Given
from tests.helpers import ADMIN, apply

INVENTORY, GRNI, ADJUSTMENTS = "1310", "2110", "5100"
NOVEMBER = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
DECEMBER = datetime(2026, 12, 5, 14, 0, tzinfo=UTC)
OPERATOR = Actor.of("olga", "operator")


def at(reg: Registry, moment: datetime) -> None:
    reg.clock = lambda: moment


def lock(reg: Registry, day: str = "2026-11-30", **extra: Any) -> dict[str, Any]:
    return apply(reg, "set_lock_date", lock_date=day, reason="November closed", **extra)


def received_in_november(reg: Registry, price: str = "5") -> dict[str, Any]:
    at(reg, NOVEMBER)
    Given(reg).company()
    po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "10", "unit_price": price}])
    return apply(reg, "receive_purchase_order", number=po["number"])


def november(reg: Registry) -> dict[str, D]:
    tb = reg.invoke("get_trial_balance", {"end": "2026-11-30"}, ADMIN)
    return {r["account"]: D(r["closing"]) for r in tb["rows"] if D(r["closing"])}


def test_the_lock_is_previewed_applied_read_back_lowered_and_reverted(
        registry: Registry) -> None:
    at(registry, DECEMBER)
    assert registry.invoke("get_lock_date", {}, ADMIN)["lock_date"] is None
    shown = registry.invoke("set_lock_date", {"lock_date": "2026-11-30",
                                              "reason": "November closed"}, ADMIN)
    assert shown["preview"] is True
    assert shown["summary"] == "Lock the books up to 2026-11-30"
    assert [(c["field"], c["before"], c["after"]) for c in shown["changes"]] == [
        ("lock_date", "none", "2026-11-30")]
    assert registry.invoke("get_lock_date", {}, ADMIN)["lock_date"] is None  # nothing yet
    done = registry.invoke("set_lock_date", {"lock_date": "2026-11-30", "reason":
                                             "November closed", "preview": False,
                                             "preview_token": shown["preview_token"]}, ADMIN)
    assert done["lock_date"] == "2026-11-30"
    read = registry.invoke("get_lock_date", {}, OPERATOR)  # anyone may know it
    assert (read["lock_date"], read["set_by"]) == ("2026-11-30", "alice")

    lowered = registry.invoke("set_lock_date", {"lock_date": "2026-10-31",
                                                "reason": "a late invoice"}, ADMIN)
    assert lowered["summary"] == "Lower the lock from 2026-11-30 to 2026-10-31"
    assert [w["code"] for w in lowered["warnings"]] == ["reopens"]
    again = lock(registry, "2026-10-31", )
    assert again["previous"] == "2026-11-30"
    history = registry.invoke("get_lock_date", {}, ADMIN)["history"]
    assert [(h["lock_date"], h["previous"], h["reason"]) for h in history] == [
        ("2026-10-31", "2026-11-30", "November closed"),
        ("2026-11-30", None, "November closed")]

    undo = registry.invoke("revert_operation", {"operation_id": again["operation_id"]},
                           ADMIN)
    assert [w["code"] for w in undo["warnings"]] == []  # raising the lock back reopens nothing
    revert(registry, again)  # the lowering undone: November is closed again
    assert registry.invoke("get_lock_date", {}, ADMIN)["lock_date"] == "2026-11-30"
    with pytest.raises(ShopfloorError) as twice:
        revert(registry, done)  # set again since: its own tool changes it now
    assert twice.value.code == "conflict"
    assert "set again since" in twice.value.message

    lifted = apply(registry, "set_lock_date", lift=True, reason="audit over")
    assert (lifted["lock_date"], lifted["previous"]) == (None, "2026-11-30")
    assert registry.invoke("get_lock_date", {}, ADMIN)["lock_date"] is None
    raised = lock(registry, "2026-11-15")
    undo = registry.invoke("revert_operation", {"operation_id": raised["operation_id"]},
                           ADMIN)
    assert [w["code"] for w in undo["warnings"]] == ["reopens"]  # back to no lock at all
    revert(registry, raised)
    assert registry.invoke("get_lock_date", {}, ADMIN)["lock_date"] is None
    assert len(registry.invoke("get_lock_date", {}, ADMIN)["history"]) == 6


def test_only_an_admin_sets_the_lock_and_only_on_a_day_already_over(
        registry: Registry) -> None:
    at(registry, DECEMBER)
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "set_lock_date", OPERATOR, lock_date="2026-11-30", reason="x")
    assert refused.value.code == "forbidden"
    for day in ("2026-12-05", "2026-12-31"):
        with pytest.raises(ShopfloorError) as today:
            lock(registry, day)
        assert (today.value.code, today.value.field) == ("validation_error", "lock_date")
        assert "not before today (2026-12-05" in today.value.message
    assert registry.invoke("get_lock_date", {}, ADMIN)["history"] == []


def test_a_count_dated_before_the_lock_is_refused_naming_counted_at(
        registry: Registry) -> None:
    received_in_november(registry)
    at(registry, DECEMBER)
    lock(registry)
    count = {"location": "MAIN", "reason": "stocktake", "lines": [
        {"sku": "M1", "counted_quantity": "9", "counted_at": "2026-11-30T23:59:00Z"}]}
    shown = registry.invoke("create_stock_adjustment", count, ADMIN)
    (blocked,) = shown["warnings"]
    assert (blocked["code"], blocked["field"], blocked["blocking"]) == (
        "period_locked", "lines[0].counted_at", True)
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "create_stock_adjustment", **count)
    err = refused.value
    assert (err.code, err.field) == ("period_locked", "lines[0].counted_at")
    assert err.details["lock_date"] == "2026-11-30"
    assert "2026-11-30" in err.message and "lock date" in err.message
    # a minute after the lock's day is the open period: counted then, posted now
    count["lines"][0]["counted_at"] = "2026-12-01T00:00:00Z"
    adj = apply(registry, "create_stock_adjustment", **count)
    (entry,) = entries(registry, adj["number"])
    assert entry["posted_at"].startswith("2026-12-05")
    assert lines(entry) == {ADJUSTMENTS: D(5), INVENTORY: D(-5)}
    inventory_equals_valuation(registry)


def test_a_revert_after_the_lock_posts_the_exact_negation_dated_now(
        registry: Registry) -> None:
    received = received_in_november(registry)
    at(registry, DECEMBER)
    lock(registry)
    shown = registry.invoke("revert_operation", {"operation_id": received["operation_id"]},
                            ADMIN)
    (said,) = [w for w in shown["warnings"] if w["code"] == "period_locked"]
    assert not said["blocking"]
    assert "dated 2026-11-10, in the period locked up to 2026-11-30" in said["message"]
    assert "dated 2026-12-05" in said["message"]
    revert(registry, received)
    first, second = entries(registry, received["number"])
    # 10 received at 5.00 on 10 November: Dr Inventory 50 / Cr GRNI 50; its revert on
    # 5 December: Dr GRNI 50 / Cr Inventory 50, in the open period
    assert lines(first) == {INVENTORY: D(50), GRNI: D(-50)}
    assert lines(second) == {INVENTORY: D(-50), GRNI: D(50)}
    assert first["posted_at"].startswith("2026-11-10")
    assert second["posted_at"].startswith("2026-12-05")
    assert november(registry) == {INVENTORY: D(50), GRNI: D(-50)}  # the closed month stands
    december = registry.invoke("get_trial_balance", {"start": "2026-12-01"}, ADMIN)
    rows = {r["account"]: r for r in december["rows"]}
    assert (D(rows[INVENTORY]["opening"]), D(rows[INVENTORY]["credit"]),
            D(rows[INVENTORY]["closing"])) == (D(50), D(50), D(0))
    inventory_equals_valuation(registry)


def test_a_correction_of_a_locked_receipt_posts_now(registry: Registry) -> None:
    received = received_in_november(registry, price="4")
    at(registry, DECEMBER)
    lock(registry)
    args = {"number": received["number"], "sku": "M1", "unit_price": "5"}
    shown = registry.invoke("correct_purchase_receipt", args, ADMIN)
    (said,) = [w for w in shown["warnings"] if w["code"] == "period_locked"]
    assert f"{received['number']}'s first entry is dated 2026-11-10" in said["message"]
    assert not said["blocking"]
    apply(registry, "correct_purchase_receipt", **args)
    correction = entries(registry, received["number"])[-1]
    # 1.00 more a unit on the 10 still on hand: Dr Inventory 10 / Cr GRNI 10, dated now
    assert lines(correction) == {INVENTORY: D(10), GRNI: D(-10)}
    assert correction["posted_at"].startswith("2026-12-05")
    assert november(registry) == {INVENTORY: D(40), GRNI: D(-40)}
    inventory_equals_valuation(registry)


def test_no_write_posts_into_the_closed_period_even_with_a_clock_behind_it(
        registry: Registry) -> None:
    """The one guard where the journal is dated: a server whose clock runs behind the lock
    (or any rule that dates its rows itself) cannot post into the closed days."""
    received_in_november(registry)
    at(registry, DECEMBER)
    lock(registry)
    at(registry, datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    found = {"location": "MAIN", "reason": "found",
             "lines": [{"sku": "M1", "quantity_delta": "1", "unit_cost": "5"}]}
    shown = registry.invoke("create_stock_adjustment", found, ADMIN)
    assert [(w["code"], w["blocking"]) for w in shown["warnings"]] == [("period_locked", True)]
    with pytest.raises(ShopfloorError) as refused:
        apply(registry, "create_stock_adjustment", **found)
    assert refused.value.code == "period_locked"
    assert refused.value.details["lock_date"] == "2026-11-30"
    assert len(entries(registry)) == 1
    inventory_equals_valuation(registry)


def test_changing_a_locked_adjustment_posts_now_and_says_so(registry: Registry,
                                                            given: Given) -> None:
    at(registry, NOVEMBER)
    given.company()
    adj = given.stock({"M1": ("4", "2.5")}, reason="found")
    at(registry, DECEMBER)
    lock(registry)
    args = {"number": adj["number"], "lines": [{"sku": "M1", "quantity_delta": "3",
                                                "unit_cost": "2.5"}]}
    shown = registry.invoke("update_stock_adjustment", args, ADMIN)
    (said,) = [w for w in shown["warnings"] if w["code"] == "period_locked"]
    assert f"{adj['number']}'s first entry is dated 2026-11-10" in said["message"]
    apply(registry, "update_stock_adjustment", **args)
    first, second = entries(registry, adj["number"])
    # 4 found at 2.50 in November (10.00); December: 4 out and 3 back in, net -2.50
    assert lines(first) == {INVENTORY: D(10), ADJUSTMENTS: D(-10)}
    assert lines(second) == {INVENTORY: D("-2.5"), ADJUSTMENTS: D("2.5")}
    assert second["posted_at"].startswith("2026-12-05")
    assert november(registry) == {INVENTORY: D(10), ADJUSTMENTS: D(-10)}
    inventory_equals_valuation(registry)
