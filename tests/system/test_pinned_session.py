"""The pinned read connection keeps its last session for the next read only when nothing
used it: a session that loaded rows, began a transaction or was given something to keep
is never handed on, so no read sees what an earlier one left behind."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from shopfloor.registry.registry import Registry
from shopfloor.store.engine import Store
from shopfloor.store.tables import Item, Location
from tests.given import Given
from tests.helpers import ADMIN, apply

pytestmark = pytest.mark.quick


@pytest.fixture
def store(registry: Registry, given: Given) -> Store:
    """The small company's store, its reads pinned to one connection."""
    given.company()
    registry.store.pin_reads()
    return registry.store


def test_an_untouched_session_is_kept_a_used_one_never(store: Store) -> None:
    with store.plain_reading() as first:
        pass
    with store.plain_reading() as again:
        assert again is first  # nothing used it
        assert again.scalars(select(Item).where(Item.sku == "M1")).one().sku == "M1"
    with store.plain_reading() as fresh:
        assert fresh is not first  # it loaded an item: closed, not kept
        assert not fresh.identity_map and not fresh.in_transaction()
        fresh.info["reads"] = {}
    with store.plain_reading() as other:
        assert other is not fresh and not other.info  # it was given something to keep


def test_reads_on_a_kept_session_see_each_commit(registry: Registry, store: Store) -> None:
    """ORM reads and plain ones alternate on the pinned connection; a rename between them
    is seen by the next, whichever kind it is."""
    for i in range(3):
        apply(registry, "modify_item", sku="M1", name=f"Renamed {i}")
        assert registry.invoke("get_item", {"sku": "M1"}, ADMIN)["name"] == f"Renamed {i}"
        with store.plain_reading() as s:
            assert s.scalars(select(Item.name).where(Item.sku == "M1")).one() == f"Renamed {i}"
        assert [loc["code"] for loc in registry.invoke("list_locations", {}, ADMIN)[
            "locations"]] == ["MAIN", "SHOP"]


def test_other_threads_and_nested_reads_build_their_own(store: Store) -> None:
    import threading

    with store.plain_reading() as kept:
        pass
    seen = []

    def elsewhere() -> None:
        with store.plain_reading() as s:
            seen.append(s)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert seen[0] is not kept
    with store.plain_reading() as outer:
        assert outer is kept
        with store.plain_reading() as inner:  # the pinned connection is busy: the pool's
            assert inner is not outer
            assert inner.scalars(select(Location.code)).all()
    with store.plain_reading() as after:
        assert after is kept
