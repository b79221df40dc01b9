"""Lists that can grow with the company come in pages: following next_cursor gives every
row once, in order; a cursor this server did not hand out is a coded error, not page 1."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN


def _world(reg: Registry) -> None:
    given = Given(reg)
    given.location("MAIN")
    given.location("SHOP")
    given.supplier("Acme")
    for i in range(7):
        given.item(f"S-{i}", name=f"Item {i}", reorder_point="10", reorder_quantity="5",
                   default_supplier="Acme")
    given.stock({f"S-{i}": str(i * 3) for i in range(1, 7)})
    given.stock({f"S-{i}": "1" for i in range(0, 7, 2)}, "SHOP")


def _all_pages(reg: Registry, tool: str, key: str, **args: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = reg.invoke(tool, {**args, "limit": 2, **({"cursor": cursor} if cursor else {})},
                          ADMIN)
        assert len(page[key]) <= 2
        rows += page[key]
        cursor = page["next_cursor"]
        if cursor is None:
            return rows


def test_get_stock_pages_join_up_to_the_whole_list(registry: Registry) -> None:
    _world(registry)
    whole = registry.invoke("get_stock", {"limit": 500}, ADMIN)
    assert whole["next_cursor"] is None and len(whole["balances"]) == 10
    assert _all_pages(registry, "get_stock", "balances") == whole["balances"]
    shop = _all_pages(registry, "get_stock", "balances", location="SHOP")
    assert [b["sku"] for b in shop] == ["S-0", "S-2", "S-4", "S-6"]


def test_low_stock_pages_and_suggests_min_max(registry: Registry, given: Given) -> None:
    _world(registry)
    low = _all_pages(registry, "list_low_stock", "items")
    # available over both locations: S-0 1, S-1 3, S-2 7, S-3 9, S-4 13: S-4 and up are fine
    assert [r["sku"] for r in low] == ["S-0", "S-1", "S-2", "S-3"]
    # up to reorder point + reorder quantity (10 + 5), less what is there: S-3 -> 15 - 9
    assert {r["sku"]: Decimal(r["suggested_quantity"]) for r in low} == \
        {"S-0": 14, "S-1": 12, "S-2": 8, "S-3": 6}
    given.po({"S-3": ("6", "1")})
    after = {r["sku"]: r for r in registry.invoke("list_low_stock", {}, ADMIN)["items"]}
    # still physically low, but following the suggestion leaves nothing more to order
    assert (after["S-3"]["on_order"], after["S-3"]["suggested_quantity"]) == ("6", "0")


@pytest.mark.parametrize("cursor", ["zzz", "W10=", "WyJhIl0=", "\u00e9t\u00e9"])
def test_a_forged_stock_cursor_is_refused(registry: Registry, cursor: str) -> None:
    _world(registry)
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("get_stock", {"cursor": cursor}, ADMIN)
    assert (info.value.code, info.value.field) == ("validation_error", "cursor")
