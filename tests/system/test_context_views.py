"""The fast read views (plain queries built once) show exactly what the ORM shows, on
SQLite and PostgreSQL: the ORM objects are the reference here, loaded the long way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import inspect, select

from shopfloor.domain.base import lookup
from shopfloor.domain.base.context import Op
from shopfloor.domain.planning import reports
from shopfloor.kernel.errors import NotFound
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance
from shopfloor.tools.views import (
    ComponentOut,
    ItemDetailOut,
    item_detail_out,
    item_out,
    recipe_out,
    stock_out,
)
from tests.given import Given
from tests.helpers import ADMIN, apply

pytestmark = pytest.mark.quick


@contextmanager
def reading(registry: Registry) -> Iterator[Op]:
    with registry.store.reading() as session:
        yield Op(session, ADMIN.subject, datetime.now(UTC), dialect=registry.store.dialect)


def _orm_detail(op: Op, sku: str) -> dict[str, Any]:
    """get_item as the ORM builds it: the item, its balances, its lazily loaded recipe."""
    item = lookup.item(op, sku)
    balances = op.session.scalars(select(Balance).where(Balance.item_id == item.id)
                                  .order_by(Balance.location_id)).unique().all()
    on_hand = sum(b.on_hand for b in balances)
    committed = sum(b.committed for b in balances)
    base = item_out(item, (on_hand, on_hand - committed)).model_dump()
    return ItemDetailOut(**base, stock=[stock_out(b) for b in balances],
                         recipe=[ComponentOut(sku=r.component.sku, name=r.component.name,
                                              quantity=r.quantity)
                                 for r in item.recipe_lines]).model_dump(mode="json")


@pytest.fixture
def world(registry: Registry, given: Given) -> Registry:
    given.company()
    given.apply("modify_item", sku="M1", precision=3)  # counted to the gram
    given.item("P2", "product", name="Second", default_supplier="Acme", purchase_price="2.5",
               reorder_point="3")
    given.stock({"M1": ("7.25", "1.5"), "M2": ("2", "3")}, "SHOP", reason="seed")
    given.stock({"M1": ("5", "1"), "P1": ("1", "9")}, reason="seed")
    given.recipe("P1", {"M2": "3", "M1": "0.5"})
    given.so({"M1": "2"})
    given.item("GONE", name="Gone")
    apply(registry, "delete_item", sku="GONE")
    return registry


@pytest.mark.parametrize("sku", ["M1", "M2", "P1", "P2"])
def test_item_detail_matches_the_orm(world: Registry, sku: str) -> None:
    with reading(world) as op:
        fast = item_detail_out(reports.item_detail(op, sku)).model_dump(mode="json")
        assert fast == _orm_detail(op, sku)
    assert fast == world.invoke("get_item", {"sku": sku}, ADMIN)


def test_item_detail_has_what_the_world_holds(world: Registry) -> None:
    """Not only equal to the ORM: right (two locations, commitments, recipe order)."""
    with reading(world) as op:
        m1 = item_detail_out(reports.item_detail(op, "M1")).model_dump(mode="json")
        p1 = item_detail_out(reports.item_detail(op, "P1")).model_dump(mode="json")
        p2 = item_detail_out(reports.item_detail(op, "P2")).model_dump(mode="json")
    assert [(s["location"], s["on_hand"], s["committed"]) for s in m1["stock"]] == [
        ("MAIN", "5", "2"), ("SHOP", "7.25", "0")]
    assert (m1["on_hand"], m1["available"]) == ("12.25", "10.25")
    assert [(c["sku"], c["quantity"]) for c in p1["recipe"]] == [("M2", "3"), ("M1", "0.5")]
    assert (p2["default_supplier"], p2["stock"], p2["on_hand"]) == ("Acme", [], "0")


@pytest.mark.parametrize(("sku", "message"), [
    ("NOPE", "no item with SKU 'NOPE'"), ("GONE", "item 'GONE' is deleted")])
def test_item_detail_refuses_as_lookup_does(world: Registry, sku: str, message: str) -> None:
    with reading(world) as op:
        with pytest.raises(NotFound) as fast:
            reports.item_detail(op, sku)
        with pytest.raises(NotFound) as orm:
            lookup.item(op, sku)
    assert (fast.value.message, fast.value.field) == (orm.value.message, orm.value.field)
    assert fast.value.message == message and fast.value.field == "sku"


def test_recipe_out_reads_plain_rows_or_the_loaded_lines_alike(world: Registry) -> None:
    with reading(world) as op:
        item = lookup.item(op, "P1")
        plain = recipe_out(item)
        assert "recipe_lines" in inspect(item).unloaded  # it was the plain query
        loaded = [ComponentOut(sku=r.component.sku, name=r.component.name,
                               quantity=r.quantity) for r in item.recipe_lines]
        assert "recipe_lines" not in inspect(item).unloaded
        assert plain == loaded == recipe_out(item)  # now loaded: the lines at hand
        assert [c.sku for c in plain] == ["M2", "M1"]
