"""A material is bought, never made: it has no recipe and no manufacturing order.

Every path that could give a material a recipe, or turn an item with a recipe into a
material, refuses: modify_item, update_recipe, import_items (a row-level reject) and
batch_update_recipes (a recipe-level reject); and a material that has one anyway (data
from before these checks) is not made by create_manufacturing_order.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Item
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot


def _refused(reg: Registry, tool: str, **args: Any) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as caught:
        reg.invoke(tool, args, ADMIN)
    return caught.value


def _with_recipe(reg: Registry) -> None:
    Given(reg).company()
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"}])


def _legacy_material(reg: Registry, sku: str) -> None:
    """A material with a recipe, as data written before these checks may hold."""
    with reg.store.writing() as s:
        s.scalars(select(Item).where(Item.sku == sku)).unique().one().kind = "material"
        s.commit()


def test_modify_item_refuses_to_make_an_item_with_a_recipe_a_material(
        registry: Registry) -> None:
    _with_recipe(registry)
    before = snapshot(registry)
    for preview in (True, False):
        error = _refused(registry, "modify_item", sku="P1", kind="material", preview=preview)
        assert (error.code, error.field) == ("validation_error", "kind"), error.to_payload()
        assert "remove" in error.message and "recipe" in error.message, error.message
    assert snapshot(registry) == before
    assert registry.invoke("get_item", {"sku": "P1"}, ADMIN)["kind"] == "product"
    # other changes to it stay possible, and once the recipe is gone so is this one
    apply(registry, "modify_item", sku="P1", kind="intermediate", name="Still made")
    apply(registry, "update_recipe", sku="P1", components=[])
    assert apply(registry, "modify_item", sku="P1", kind="material")["kind"] == "material"


def test_update_recipe_refuses_a_material(registry: Registry, given: Given) -> None:
    given.company()
    error = _refused(registry, "update_recipe", sku="M1", preview=False,
                     components=[{"sku": "M2", "quantity": "1"}])
    assert (error.code, error.field) == ("validation_error", "sku"), error.to_payload()
    assert registry.invoke("get_recipe", {"sku": "M1"}, ADMIN)["components"] == []


def test_update_recipe_may_empty_a_materials_recipe(registry: Registry) -> None:
    """The way out for a material that has a recipe anyway."""
    _with_recipe(registry)
    _legacy_material(registry, "P1")
    apply(registry, "update_recipe", sku="P1", components=[])
    assert registry.invoke("get_recipe", {"sku": "P1"}, ADMIN)["components"] == []


def test_no_manufacturing_order_for_a_material_or_an_item_without_recipe(
        registry: Registry) -> None:
    _with_recipe(registry)
    _legacy_material(registry, "P1")
    before = snapshot(registry)
    for sku in ("P1", "M2"):
        for preview in (True, False):
            error = _refused(registry, "create_manufacturing_order", sku=sku, quantity="1",
                             location="MAIN", preview=preview)
            assert (error.code, error.field) == ("validation_error", "sku"), error.to_payload()
    assert "material" in _refused(registry, "create_manufacturing_order", sku="P1",
                                  quantity="1", location="MAIN").message
    assert snapshot(registry) == before


def test_import_rejects_a_row_making_an_item_with_a_recipe_a_material(
        registry: Registry) -> None:
    _with_recipe(registry)
    csv = "sku,name,kind\nP1,,material\nN1,New one,material\nM2,,product\n"
    preview = registry.invoke("import_items", {"csv": csv}, ADMIN)
    assert preview["apply"] is None and preview["warnings"][0]["blocking"]
    rows = preview["document"]["rows"]
    assert [r["action"] for r in rows] == ["reject", "create", "update"], rows
    assert rows[0]["field"] == "kind" and "recipe" in rows[0]["detail"], rows[0]

    preview = registry.invoke("import_items", {"csv": csv, "skip_rejects": True}, ADMIN)
    queued = registry.invoke("import_items", preview["apply"]["arguments"], ADMIN)
    assert worker_for(registry).run_one(queued["job_id"])
    job = registry.invoke("get_job", {"job_id": queued["job_id"]}, ADMIN)
    assert job["status"] == "succeeded", job
    assert registry.invoke("get_item", {"sku": "P1"}, ADMIN)["kind"] == "product"
    assert registry.invoke("get_item", {"sku": "M2"}, ADMIN)["kind"] == "product"


def test_batch_recipe_change_rejects_a_material_with_a_recipe(registry: Registry,
                                                              given: Given) -> None:
    _with_recipe(registry)
    apply(registry, "create_item", sku="P2", name="Second", kind="product")
    given.recipe("P2", {"M1": "1"})
    _legacy_material(registry, "P1")
    preview = registry.invoke("batch_update_recipes", {"component": "M1", "scale": "2"},
                              ADMIN)
    recipes = preview["document"]["recipes"]
    assert [(r["product"], r["action"]) for r in recipes] == [("P1", "reject"),
                                                              ("P2", "update")], recipes
    assert "material" in recipes[0]["detail"], recipes[0]
    assert preview["apply"] is None and preview["warnings"][0]["blocking"]
