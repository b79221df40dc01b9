"""search_items by a list of SKUs: exactly those items in one call, deleted ones too (a
document on screen may name one), each with its totals."""

from __future__ import annotations

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply


def test_search_by_skus_returns_exactly_those_deleted_included(registry: Registry,
                                                               given: Given) -> None:
    given.company()
    apply(registry, "create_item", sku="OLD", name="Old part")
    apply(registry, "delete_item", sku="OLD")
    given.stock({"M1": ("4", "1")}, reason="count")
    found = registry.invoke("search_items", {"skus": ["OLD", "M1", "NOPE", "M1"]}, ADMIN)
    assert [(i["sku"], i["on_hand"]) for i in found["items"]] == [("M1", "4"), ("OLD", "0")]
    assert registry.invoke("search_items", {"query": "old"}, ADMIN)["items"] == []
    narrowed = registry.invoke("search_items", {"skus": ["M1", "M2"], "query": "M2"}, ADMIN)
    assert [i["sku"] for i in narrowed["items"]] == ["M2"]


def test_too_many_skus_is_refused_naming_the_field(registry: Registry, given: Given) -> None:
    given.company()
    with pytest.raises(ShopfloorError) as refused:
        registry.invoke("search_items", {"skus": [f"S{i}" for i in range(501)]}, ADMIN)
    assert (refused.value.code, refused.value.field) == ("validation_error", "skus")
