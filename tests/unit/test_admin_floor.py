"""The shop floor in the admin over HTTP (no browser): a work centre's page draws its
daily load as bars, the item page shows the routing, the order page its operations."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.helpers import apply
from tests.reliability.test_shop_floor import MON, _world
from tests.servers import serving

PASSWORD = "floor password"


@pytest.fixture
def client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    _world(registry)
    Accounts(registry.store).create("pat", PASSWORD, "admin")
    with serving(build_app(registry, Settings(database_url=db_url), run_worker=False)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        c.post("/sign-in", data={"username": "pat", "password": PASSWORD, "next": "/"})
        yield c


def test_the_floor_pages_show_load_routing_and_operations(client: httpx.Client,
                                                          registry: Registry) -> None:
    apply(registry, "modify_work_centre", code="ASM", name="Assembly <b>bench</b>")
    mo = apply(registry, "create_manufacturing_order", sku="TABLE", quantity=100,
               location="MAIN", start=f"{MON}T08:00:00Z")
    apply(registry, "create_manufacturing_order", sku="TABLE", quantity=100,
          location="MAIN", start=f"{MON}T08:00:00Z")
    listed = client.get("/work-centres")
    assert listed.status_code == 200 and 'href="/work-centres/ASM"' in listed.text
    assert "Assembly &lt;b&gt;bench&lt;/b&gt;" in listed.text
    page = client.get(f"/work-centres/ASM?start={MON}")
    assert page.status_code == 200
    assert "<svg" in page.text and "Assembly &lt;b&gt;bench&lt;/b&gt;" in page.text
    # Monday: 500 of 480 min (two assemblies of 250): overloaded, drawn red
    assert f"{MON}: 500 of 480 min (104.17%)" in page.text and "#c0392b" in page.text
    assert "2027-03-02: 130 of 480 min (27.08%)" in page.text
    assert client.get("/work-centres/NOPE").status_code == 404
    item = client.get("/items/TABLE")
    assert "Routing" in item.text and "Assemble" in item.text
    order = client.get(f"/manufacturing-orders/{mo['number']}")
    assert "Operations" in order.text and "Log time" in order.text
    assert "/tools/record_operation_time" in order.text
