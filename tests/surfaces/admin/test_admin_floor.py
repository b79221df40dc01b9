"""The shop floor in the admin over HTTP (no browser): a work centre's page draws its
daily load as bars, the item page shows the routing, the order page its operations."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.floor.test_shop_floor import MON, _world
from tests.helpers import ADMIN, apply
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
    apply(registry, "record_operation_time", number=mo["number"], sequence=10, minutes=240)
    order = client.get(f"/manufacturing-orders/{mo['number']}")
    assert "Log time" in order.text and "/tools/record_operation_time" in order.text
    # each operation's planned minutes, planned start and finish, and logged minutes
    assert _rows(order.text, "Operations") == [
        {"Sequence": "10", "Name": "Cut", "Work centre": "CUT", "Planned minutes": "230",
         "Planned": f"{MON}T08:00:00Z/{MON}T11:50:00Z",  # one range, read in words
         "Logged minutes": "240", "Status": "In progress"},
        {"Sequence": "20", "Name": "Assemble", "Work centre": "ASM",
         "Planned minutes": "315", "Planned": f"{MON}T11:50:00Z/2027-03-02T09:05:00Z",
         "Logged minutes": "0",
         "Status": "Planned"}]


def _rows(page: str, heading: str) -> list[dict[str, str]]:
    """The table under a heading, a dict per row: each cell's number (data-value), moment
    (datetime) or text, by its column's label."""
    table = page.split(f"<h2>{heading}</h2>", 1)[1].split("</table>", 1)[0]
    out = []
    for row in table.split("<tbody>", 1)[1].split("</tr>")[:-1]:
        cells = {}
        for name, body in re.findall(r'<td data-label="([^"]+)"[^>]*>(.*?)</td>', row):
            found = re.search(r'data-value="([^"]*)"|datetime="([^"]*)"', body)
            cells[html.unescape(name)] = html.unescape(
                found.group(1) or found.group(2) if found else re.sub(r"<[^>]+>", "", body))
        out.append(cells)
    return out


def test_a_routing_submitted_through_the_form_shows_on_the_item_page(
        client: httpx.Client, registry: Registry) -> None:
    """As a person does it: open the form from the item (it starts from the routing),
    add a third operation, preview, confirm."""
    form = client.get("/tools/update_routing?sku=TABLE").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form)
    original = re.search(r'name="_original" value=\'([^\']*)\'', form)
    assert csrf and original
    sent = {"csrf": csrf.group(1), "_original": html.unescape(original.group(1)),
            "sku": "TABLE"}
    for i, (seq, name, centre, setup, run) in enumerate((
            ("10", "Cut", "CUT", "30", "2"), ("20", "Assemble", "ASM", "15", "3"),
            ("30", "Pack", "ASM", "5", "0.5"))):
        sent.update({f"operations.{i}.sequence": seq, f"operations.{i}.name": name,
                     f"operations.{i}.work_centre": centre,
                     f"operations.{i}.setup_minutes": setup,
                     f"operations.{i}.run_minutes": run})
    preview = client.post("/tools/update_routing/preview", data=sent)
    assert preview.status_code == 200 and 'id="confirm"' in preview.text, preview.text[-800:]
    routing = registry.invoke("get_routing", {"sku": "TABLE"}, ADMIN)["operations"]
    assert [o["name"] for o in routing] == ["Cut", "Assemble"]  # a preview changes nothing
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', preview.text)
    assert token and key
    done = client.post("/tools/update_routing/apply", data={
        **sent, "preview_token": token.group(1), "idempotency_key": key.group(1)})
    assert done.status_code == 200 and 'id="applied"' in done.text, done.text[-800:]
    item = client.get("/items/TABLE").text
    assert _rows(item, "Routing") == [
        {"Sequence": "10", "Name": "Cut", "Work centre": "CUT", "Setup minutes": "30",
         "Run minutes per unit": "2"},
        {"Sequence": "20", "Name": "Assemble", "Work centre": "ASM", "Setup minutes": "15",
         "Run minutes per unit": "3"},
        {"Sequence": "30", "Name": "Pack", "Work centre": "ASM", "Setup minutes": "5",
         "Run minutes per unit": "0.5"}]


def test_the_order_page_logs_time_on_each_operation_still_to_do(client: httpx.Client,
                                                               registry: Registry) -> None:
    mo = apply(registry, "create_manufacturing_order", sku="TABLE", quantity=10,
               location="MAIN", start=f"{MON}T08:00:00Z")
    apply(registry, "record_operation_time", number=mo["number"], sequence=10, minutes=60,
          finished=True)
    page = html.unescape(client.get(f"/manufacturing-orders/{mo['number']}").text)
    actions = page.split('id="order-actions"', 1)[1].split("</div>", 1)[0]
    links = dict((text, href) for href, text in re.findall(r'href="([^"]+)">([^<]+)</a>',
                                                           actions))
    # Cut is done: only Assemble is offered, named, its own sequence in the link
    assert "Log time: 20 Assemble" in links and not any("10 Cut" in t for t in links)
    assert links["Log time: 20 Assemble"] == (
        f"/tools/record_operation_time?number={mo['number']}&sequence=20")
