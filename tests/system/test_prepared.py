"""Prepared statements (store.prepared.Prepared) give what Core gives, on both databases:
the same keys, values and Python types (exact decimals, booleans, nulls), errors wrapped
as Core wraps them, and statements that listeners and logging still see."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import bindparam, event, select, text
from sqlalchemy.exc import DBAPIError

from shopfloor.domain.base import lookup
from shopfloor.domain.planning import reports
from shopfloor.registry.registry import Registry
from shopfloor.store.prepared import Prepared
from shopfloor.store.tables import Item
from tests.given import Given
from tests.helpers import ADMIN

pytestmark = pytest.mark.quick


def _company(registry: Registry) -> int:
    given = Given(registry).company()
    given.modify("P1", precision=3)  # sold by the metre
    given.modify("P1", purchase_price="12.345678", reorder_point="2.5", default_supplier="Acme",
                 batch_tracked=False, order_multiple="0.25")
    given.recipe("P1", {"M1": "1.5", "M2": "0.000001"})
    for location, qty in (("MAIN", "7.125"), ("SHOP", "2")):
        given.stock({"P1": qty}, location, reason="count")
    got = registry.invoke("get_item", {"sku": "P1"}, ADMIN)
    assert got["stock"] and got["recipe"]
    return int(got["id"])


def _both(registry: Registry, prepared: Prepared, params: dict[str, Any]
          ) -> tuple[list[Any], list[Any]]:
    with registry.store.plain_reading() as session:
        conn = session.connection()
        fast = prepared.all(conn, params)
        core = conn.execute(prepared.stmt, params).all()
    return list(fast), list(core)


def test_rows_are_cores_rows(registry: Registry) -> None:
    item_id = _company(registry)
    for prepared, params in ((lookup._ITEM_ROW, {"sku": "P1"}),
                             (reports._PARTS, {"item_id": item_id})):
        fast, core = _both(registry, prepared, params)
        assert fast == core and len(core) >= 1
        assert registry.store.dialect in prepared._forms  # it ran on the driver's cursor
        for f, c in zip(fast, core, strict=True):
            assert f._fields == c._fields
            assert [type(v) for v in f] == [type(v) for v in c]
    row = _both(registry, lookup._ITEM_ROW, {"sku": "P1"})[0][0]
    assert row.purchase_price == Decimal("12.345678") and row.supplier == "Acme"
    assert row.batch_tracked is False and row.order_multiple == Decimal("0.25")
    assert _both(registry, lookup._ITEM_ROW, {"sku": "nope"}) == ([], [])


def test_listeners_and_errors_see_what_core_would(registry: Registry) -> None:
    _company(registry)
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(registry.store.engine, "before_cursor_execute", record)
    try:
        registry.invoke("get_item", {"sku": "P1"}, ADMIN)
    finally:
        event.remove(registry.store.engine, "before_cursor_execute", record)
    assert any("FROM items" in s for s in seen) and any("UNION ALL" in s for s in seen)

    missing = Prepared(select(text("x")).select_from(text("no_such_table"))
                       .where(text("x = :v")))
    with registry.store.plain_reading() as session, pytest.raises(DBAPIError):
        missing.all(session.connection(), {"v": 1})
    with registry.store.plain_reading() as session, pytest.raises(ValueError, match="sku"):
        Prepared(select(Item.id).where(Item.sku == bindparam("sku"))).all(
            session.connection(), {"skew": "P1"})


def test_a_long_statement_gives_cores_rows(registry: Registry) -> None:
    """Past 50 parameters psycopg would parse the query on every call: PostgreSQL runs it
    numbered ($1...) on its raw cursor, a literal % and a repeated parameter included."""
    _company(registry)
    skus = [f"X{i}" for i in range(58)] + ["P1", "M1"]
    long = Prepared(select(Item.id, Item.sku, Item.purchase_price)
                    .where(Item.sku.in_([bindparam(f"s{i}") for i in range(len(skus))]),
                           text("length('%') = 1"),  # a literal %, as written
                           Item.sku != bindparam("s0"))
                    .order_by(Item.sku))
    params = {f"s{i}": sku for i, sku in enumerate(skus)}
    fast, core = _both(registry, long, params)
    assert [r.sku for r in fast] == ["M1", "P1"] and fast == core
    assert [type(v) for v in fast[1]] == [type(v) for v in core[1]]
    form = long._forms[registry.store.dialect]
    assert form is not None  # it ran on the driver's cursor
    assert (form.raw is not None) == (registry.store.dialect == "postgresql")
