"""Migration 0011 stores each key's skeleton, and renames an older key stored in a form
nobody can type any more (fullwidth, with an invisible character) to the form typed
today, unless another row already has that form."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from tests.given import Given
from tests.helpers import ADMIN, apply, migrate_to

pytestmark = pytest.mark.quick

WIDE_1 = "\uff30\uff2c\uff21\uff29\uff2e-1"  # PLAIN-1 in fullwidth letters


def test_older_keys_are_renamed_where_free_and_get_their_skeletons(db_url: str) -> None:
    reg = open_registry(Settings(database_url=db_url))
    Given(reg).company()
    for sku in ("PLAIN-1", "PLAIN-9", "GHOST-1", "CLASH-1"):
        apply(reg, "create_item", sku=sku, name=sku)
    migrate_to(reg, "downgrade", "0010")
    older = {"PLAIN-9": "\uff30\uff2c\uff21\uff29\uff2e-9", "GHOST-1": "GHOST\u200b-1",
             "CLASH-1": WIDE_1}  # the last would become PLAIN-1, which exists
    with reg.store.engine.begin() as conn:
        for sku, stored in older.items():
            conn.execute(text("UPDATE items SET sku = :stored WHERE sku = :sku"),
                         {"stored": stored, "sku": sku})
        conn.execute(text("UPDATE locations SET code = :c WHERE code = 'SHOP'"),
                     {"c": "\uff33\uff28\uff2f\uff30"})
    migrate_to(reg, "upgrade", "head")
    with reg.store.engine.connect() as conn:
        items = dict(conn.execute(text("SELECT sku, sku_skeleton FROM items")).all())
        codes = dict(conn.execute(text("SELECT code, code_skeleton FROM locations")).all())
        partners = conn.execute(text("SELECT name_skeleton FROM suppliers")).scalars().all()
    assert items == {"PLAIN-1": "plain-1", "PLAIN-9": "plain-9", "GHOST-1": "ghost-1",
                     WIDE_1: "plain-1", "M1": "m1", "M2": "m2", "P1": "p1"}, items
    assert codes == {"MAIN": "main", "SHOP": "shop"}, codes
    assert partners == ["acme"]
    assert reg.invoke("get_item", {"sku": "PLAIN-9"}, ADMIN)["name"] == "PLAIN-9"
    reg.store.dispose()
