"""Every item and document a person names by key can also be named by id: the same
answer either way; both given and naming different things, or an unknown id, refused."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, snapshot


def _world(reg: Registry) -> dict[str, dict[str, Any]]:
    given = Given(reg).company()
    given.recipe("P1", {"M1": "2"})
    given.stock({"M1": "50", "P1": "5"})
    return {
        "po": given.po({"M1": ("3", "1")}),
        "so": given.so({"P1": ("1", "9")}),
        "mo": given.mo("P1", "2"),
        "adj": given.stock({"M2": "1"}, reason="count"),
        "item": reg.invoke("get_item", {"sku": "P1"}, ADMIN),
    }


READS = [("get_purchase_order", "po"), ("get_sales_order", "so"),
         ("get_manufacturing_order", "mo"), ("get_item", "item"), ("get_recipe", "item")]


def _key(doc: dict[str, Any]) -> dict[str, Any]:
    return {"sku": doc["sku"]} if "sku" in doc and "number" not in doc else \
        {"number": doc["number"]}


@pytest.mark.parametrize(("tool", "doc"), READS)
def test_reads_by_id_equal_reads_by_key(registry: Registry, tool: str, doc: str) -> None:
    d = _world(registry)[doc]
    by_key = registry.invoke(tool, _key(d), ADMIN)
    assert registry.invoke(tool, {"id": d["id"]}, ADMIN) == by_key
    assert registry.invoke(tool, {**_key(d), "id": d["id"]}, ADMIN) == by_key


WRITES: list[tuple[str, str, dict[str, Any]]] = [
    ("receive_purchase_order", "po", {}),
    ("modify_purchase_order", "po", {"notes": "by id"}),
    ("delete_purchase_order", "po", {}),
    ("fulfill_order", "so", {}),
    ("modify_sales_order", "so", {"notes": "by id"}),
    ("delete_sales_order", "so", {}),
    ("complete_manufacturing_order", "mo", {"quantity": "1"}),
    ("delete_manufacturing_order", "mo", {}),
    ("update_stock_adjustment", "adj", {"reason": "recount"}),
    ("modify_item", "item", {"name": "Renamed"}),
    ("update_recipe", "item", {"components": [{"sku": "M2", "quantity": "1"}]}),
]


@pytest.mark.parametrize(("tool", "doc", "extra"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_by_id_act_on_the_same_thing(registry: Registry, tool: str, doc: str,
                                            extra: dict[str, Any]) -> None:
    d = _world(registry)[doc]
    preview = registry.invoke(tool, {"id": d["id"], **extra}, ADMIN)
    assert preview["preview"] is True and preview["preview_token"], preview
    done = registry.invoke(tool, preview["apply"]["arguments"], ADMIN)
    assert done["applied"] is True and done["id"] == d["id"]
    key, value = next(iter(_key(d).items()))
    assert done[key] == value


@pytest.mark.parametrize("tool", ["get_purchase_order", "receive_purchase_order",
                                  "get_item", "modify_item", "check_availability"])
def test_mismatched_or_unknown_ids_are_refused_naming_id(registry: Registry, given: Given,
                                                         tool: str) -> None:
    d = _world(registry)
    other = d["so"]["id"] + 1000
    key = {"number": d["po"]["number"]} if "order" in tool else {"sku": "M1"}
    extra = {"quantity": "1"} if tool == "check_availability" else {}
    second = given.po({"M2": ("1", "1")})
    mismatch = second["id"] if "order" in tool else d["item"]["id"]  # P1's id, not M1's
    before = snapshot(registry)
    for args, code in (({**key, "id": mismatch}, "validation_error"),
                       ({"id": other}, "not_found")):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke(tool, {**args, **extra, "preview": False}
                            if not tool.startswith(("get_", "check_")) else {**args, **extra},
                            ADMIN)
        assert (info.value.code, info.value.field) == (code, "id"), info.value.to_payload()
    with pytest.raises(ShopfloorError) as info:
        registry.invoke(tool, extra, ADMIN)
    assert info.value.code == "validation_error" and info.value.field in ("number", "sku")
    assert snapshot(registry) == before
