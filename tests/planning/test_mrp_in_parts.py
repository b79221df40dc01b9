"""An MRP plan applied in parts: the checked items first, the rest later from the same
plan, and never an item twice. Both databases."""

from __future__ import annotations

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.helpers import ADMIN, apply
from tests.planning.test_mrp import TODAY, _world, run_job


def test_the_rest_of_a_plan_applies_later_and_nothing_twice(registry: Registry) -> None:
    _world(registry)
    had = len(registry.invoke("list_purchase_orders", {}, ADMIN)["orders"])
    job = run_job(registry, "run_mrp", today=TODAY.isoformat())["job_id"]
    first = apply(registry, "apply_mrp_plan", job_id=job, only=["M"])
    assert len(first["purchase_orders"]) == 2 and first["manufacturing_orders"] == []
    plan = registry.invoke("get_job", {"job_id": job}, ADMIN)["result"]
    assert plan["applied"] == ["M"]
    # M again selects nothing new: refused, nothing written
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job, only=["M"])
    assert info.value.field == "only"
    rest = apply(registry, "apply_mrp_plan", job_id=job)
    assert rest["purchase_orders"] == [] and len(rest["manufacturing_orders"]) == 4
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "apply_mrp_plan", job_id=job)
    assert info.value.code == "conflict" and "already applied" in info.value.message
    assert len(registry.invoke("list_purchase_orders", {}, ADMIN)["orders"]) == had + 2
