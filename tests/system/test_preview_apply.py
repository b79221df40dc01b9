"""Preview -> apply: refused when stale, foreign, expired or reused; exactly once by key."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches, on_hand, snapshot

ADJ = {"location": "MAIN", "reason": "count", "lines": [{"sku": "M1", "quantity_delta": "5"}]}


def _preview(registry: Registry, actor: Actor = ADMIN, **args: Any) -> dict[str, Any]:
    result = registry.invoke("create_stock_adjustment", {**ADJ, **args}, actor)
    assert result["preview"] is True
    return result


def _apply_with(registry: Registry, token: str, actor: Actor = ADMIN) -> dict[str, Any]:
    return registry.invoke("create_stock_adjustment",
                           {**ADJ, "preview": False, "preview_token": token}, actor)


def _refused(registry: Registry, token: str, actor: Actor = ADMIN) -> ShopfloorError:
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        _apply_with(registry, token, actor)
    assert snapshot(registry) == before, "a refused apply wrote something"
    return info.value


def test_preview_writes_nothing_and_apply_writes_once(registry: Registry, given: Given) -> None:
    given.company()
    before = snapshot(registry)
    p = _preview(registry)
    assert snapshot(registry) == before
    assert p["changes"][0] == {"entity": "stock", "key": "M1@MAIN", "field": "on_hand",
                               "before": "0", "after": "5"}
    result = _apply_with(registry, p["preview_token"])
    assert result["applied"] is True and result["replayed"] is False
    assert on_hand(registry, "M1") == Decimal(5)
    log = registry.invoke("get_operation_log", {"tool": "create_stock_adjustment"}, ADMIN)
    assert [e["operation_id"] for e in log["entries"]] == [result["operation_id"]]


def test_stale_preview_is_refused_with_a_fresh_preview(registry: Registry, given: Given) -> None:
    given.company()
    p = _preview(registry)
    apply(registry, "create_stock_adjustment", **{**ADJ, "lines": [{"sku": "M1",
                                                                    "quantity_delta": "2"}]})
    err = _refused(registry, p["preview_token"])
    assert err.code == "stale_preview"
    fresh = err.details["preview"]
    assert fresh["changes"][0]["before"] == "2" and fresh["changes"][0]["after"] == "7"
    assert _apply_with(registry, fresh["preview_token"])["applied"]


def test_token_of_another_actor_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    p = _preview(registry)
    err = _refused(registry, p["preview_token"], Actor.of("mallory", "admin"))
    assert err.code == "stale_preview" and "another actor" in err.message


def test_expired_token_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    p = _preview(registry)
    real_clock = registry.clock
    registry.clock = lambda: real_clock() + timedelta(minutes=16)
    err = _refused(registry, p["preview_token"])
    assert err.code == "stale_preview" and "expired" in err.message


def test_a_retried_apply_replays_even_after_its_token_expired(registry: Registry,
                                                              given: Given) -> None:
    """A client that lost the first answer retries later: it must get that answer, not a
    stale_preview whose fresh preview would let the write happen twice."""
    given.company()
    p = _preview(registry)
    args = {**p["apply"]["arguments"]}
    first = registry.invoke("create_stock_adjustment", args, ADMIN)
    real_clock = registry.clock
    registry.clock = lambda: real_clock() + timedelta(minutes=16)
    again = registry.invoke("create_stock_adjustment", args, ADMIN)
    assert again == {**first, "replayed": True}
    assert on_hand(registry, "M1") == Decimal(5)
    with pytest.raises(ShopfloorError) as info:  # the key with other arguments: still refused
        registry.invoke("create_stock_adjustment", {**args, "reason": "other"}, ADMIN)
    assert info.value.code == "conflict" and info.value.field == "idempotency_key"


def test_reused_token_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    p = _preview(registry)
    _apply_with(registry, p["preview_token"])
    err = _refused(registry, p["preview_token"])
    assert err.code == "stale_preview" and "already used" in err.message
    assert on_hand(registry, "M1") == Decimal(5)


def test_forged_or_altered_arguments_are_refused(registry: Registry, given: Given) -> None:
    given.company()
    p = _preview(registry)
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("create_stock_adjustment",
                        {**ADJ, "lines": [{"sku": "M1", "quantity_delta": "500"}],
                         "preview": False, "preview_token": p["preview_token"]}, ADMIN)
    assert info.value.code == "stale_preview"
    with pytest.raises(ShopfloorError) as info:
        _apply_with(registry, p["preview_token"][:-4] + "AAAA")
    assert info.value.code == "validation_error" and info.value.field == "preview_token"
    assert snapshot(registry) == before


def test_blocked_preview_has_no_token_and_apply_refuses(registry: Registry, given: Given) -> None:
    given.company()
    p = registry.invoke("create_stock_adjustment",
                        {**ADJ, "lines": [{"sku": "M1", "quantity_delta": "-3"}]}, ADMIN)
    assert p["preview_token"] is None
    assert p["warnings"][0]["code"] == "insufficient_stock" and p["warnings"][0]["blocking"]
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "create_stock_adjustment",
              **{**ADJ, "lines": [{"sku": "M1", "quantity_delta": "-3"}]})
    assert info.value.code == "insufficient_stock"
    assert snapshot(registry) == before


def _race(n: int, fn: Any) -> list[Any]:
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = fn(i)
        except Exception as exc:  # collected and asserted on below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def test_same_idempotency_key_from_8_threads_has_one_effect(registry: Registry,
                                                            given: Given) -> None:
    given.company()
    results = _race(8, lambda i: registry.invoke(
        "create_stock_adjustment", {**ADJ, "preview": False, "idempotency_key": "k-1"}, ADMIN))
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    assert sum(1 for r in results if not r["replayed"]) == 1
    assert sum(1 for r in results if r["replayed"]) == 7
    assert len({r["operation_id"] for r in results}) == 1
    assert on_hand(registry, "M1") == Decimal(5)
    assert not ledger_mismatches(registry)


def test_idempotency_key_reused_for_other_arguments_is_a_conflict(registry: Registry,
                                                                  given: Given) -> None:
    given.company()
    registry.invoke("create_stock_adjustment",
                    {**ADJ, "preview": False, "idempotency_key": "k-2"}, ADMIN)
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("create_stock_adjustment",
                        {**ADJ, "reason": "other", "preview": False, "idempotency_key": "k-2"},
                        ADMIN)
    assert info.value.code == "conflict" and info.value.field == "idempotency_key"


def test_8_threads_adjusting_one_item_lose_no_update(registry: Registry, given: Given) -> None:
    given.company()
    deltas = [Decimal(i + 1) for i in range(8)]
    results = _race(8, lambda i: registry.invoke(
        "create_stock_adjustment",
        {**ADJ, "lines": [{"sku": "M1", "quantity_delta": str(deltas[i]),
                           "unit_cost": str(i + 1)}], "preview": False}, ADMIN))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert on_hand(registry, "M1") == sum(deltas)
    assert not ledger_mismatches(registry)
