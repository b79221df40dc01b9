"""Issue 30, defect 5: schema-valid input at the edges (a date in year 9999 or 0001, an
offset of 23:59, minutes and quantities whose product no column or calendar holds) is a
coded `validation_error` naming the field, on the registry and on the admin's pages,
never an internal error; the years 1900-2999 are taken, and the schema says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.app.settings import Settings
from shopfloor.app.wiring import open_registry
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.server import build_app
from tests.copies import Copies
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot
from tests.servers import serving


def _refused(reg: Registry, tool: str, args: dict[str, Any], field: str) -> ShopfloorError:
    before = snapshot(reg)
    with pytest.raises(ShopfloorError) as caught:
        reg.invoke(tool, args, ADMIN)
    assert (caught.value.code, caught.value.field) == ("validation_error", field), \
        caught.value.to_payload()
    assert snapshot(reg) == before
    return caught.value


def _made(reg: Registry) -> None:
    Given(reg).company()
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "5", "unit_cost": "1"}])
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "1"}])
    apply(reg, "create_work_centre", code="WC", name="Bench")


@pytest.fixture
def registry(db_url: str, copies: Copies) -> Iterator[Registry]:
    """This module's registry starts with `_made`'s company (built once a session and
    database, copied for each test)."""
    copies.restore(db_url, "extreme", _made)
    reg = open_registry(Settings(database_url=db_url))
    yield reg
    reg.store.dispose()


def test_an_operation_too_long_for_any_column_or_calendar_is_refused(
        registry: Registry) -> None:
    apply(registry, "update_routing", sku="P1", operations=[
        {"sequence": 10, "name": "Make", "work_centre": "WC", "run_minutes": "999999999"}])
    order = {"sku": "P1", "location": "MAIN", "preview": False}
    _refused(registry, "create_manufacturing_order", {**order, "quantity": "1500"}, "quantity")
    apply(registry, "update_routing", sku="P1", operations=[
        {"sequence": 10, "name": "Make", "work_centre": "WC", "run_minutes": "999999"}])
    error = _refused(registry, "create_manufacturing_order", {**order, "quantity": "1500"},
                     "quantity")
    assert "more than ten years of working time" in error.message
    apply(registry, "create_manufacturing_order", **{**order, "quantity": "1"})


def test_a_recipe_need_past_decimal_precision_is_refused(registry: Registry) -> None:
    try:
        apply(registry, "update_recipe", sku="P1", components=[
            {"sku": "M1", "quantity": "999999999", "attrition_percent": "99999999"}])
    except ShopfloorError as exc:  # an attrition bound refuses it first: that is an answer
        assert (exc.code, exc.field) == ("validation_error", "components[0].attrition_percent")
        return
    _refused(registry, "create_manufacturing_order", {
        "sku": "P1", "location": "MAIN", "quantity": "999999999", "preview": False},
        "quantity")


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("get_stock_valuation", {"date": "9999-12-31"}, "date"),
    ("get_stock_valuation", {"start": "0001-01-01"}, "start"),
    ("get_stock", {"as_of": "0001-01-01T00:00:00+23:59"}, "as_of"),
    ("get_stock", {"as_of": "9999-12-31T23:59:59-23:59"}, "as_of"),
    ("get_stock", {"compare_to": "0001-01-01T00:00:00+14:00"}, "compare_to"),
    ("get_stock", {"as_of": "2999-12-31T23:59:59-01:00"}, "as_of"),  # 3000 in UTC
    ("get_item", {"sku": "M1", "as_of": "0001-01-01T00:00:00+23:59"}, "as_of"),
    ("get_item", {"sku": "M1", "as_of": "9999-12-31T23:59:59-23:59"}, "as_of"),
    ("get_work_centre_load", {"start": "9999-12-25", "end": "9999-12-31"}, "start"),
    ("get_work_centre_load", {"start": "0001-01-01", "end": "0001-01-10"}, "start"),
    ("schedule_manufacturing_orders", {"start": "9999-12-31T23:00:00Z"}, "start"),
    ("list_stock_movements", {"since": "0001-01-01"}, "since"),
    ("create_purchase_order", {"supplier": "Acme", "location": "MAIN",
                               "expected_date": "1899-12-31",
                               "lines": [{"sku": "M1", "quantity": "1"}]}, "expected_date"),
])
def test_dates_outside_the_business_years_are_refused_naming_the_field(
        registry: Registry, tool: str, args: dict[str, Any], field: str) -> None:
    apply(registry, "create_manufacturing_order", sku="P1", location="MAIN", quantity="1")
    error = _refused(registry, tool, args, field)
    assert "1900-2999" in error.message


def test_the_edges_of_the_business_years_are_answered(registry: Registry) -> None:
    apply(registry, "update_routing", sku="P1", operations=[
        {"sequence": 10, "name": "Make", "work_centre": "WC", "run_minutes": "5"}])
    apply(registry, "create_manufacturing_order", sku="P1", location="MAIN", quantity="1")
    for args in ({"date": "2999-12-31"}, {"date": "1900-01-01"}, {"start": "1900-01-01"}):
        registry.invoke("get_stock_valuation", args, ADMIN)
    for moment in ("1900-01-01T00:00:00Z", "2999-12-31T23:59:59Z",
                   "2999-12-31T23:59:59+14:00", "1900-01-01T23:59:59+23:59"):
        registry.invoke("get_stock", {"as_of": moment, "compare_to": moment}, ADMIN)
        registry.invoke("get_item", {"sku": "M1", "as_of": moment}, ADMIN)
    load = registry.invoke("get_work_centre_load",
                           {"start": "2999-12-25", "end": "2999-12-31"}, ADMIN)
    assert len(load["rows"]) == 7
    registry.invoke("get_work_centre_load", {"start": "1900-01-01", "end": "1900-01-10"}, ADMIN)
    try:  # the calendar's ten years run past 2999: a coded answer either way
        registry.invoke("schedule_manufacturing_orders", {"start": "2999-12-31T23:00:00Z"},
                        ADMIN)
    except ShopfloorError as exc:
        assert exc.code != "internal", exc.to_payload()


def test_the_schema_says_the_format_and_the_refusal_the_years(registry: Registry) -> None:
    """The span is not a schema pattern (30 bytes on every date field of every tools/list):
    the schema says the format, and the refusal names the field and the years."""
    props = registry.get("get_stock").input_schema["properties"]
    assert props["as_of"]["format"] == "date-time"
    load = registry.get("get_work_centre_load").input_schema["properties"]
    assert load["start"]["format"] == "date"
    for tool, args, fld in (("get_stock", {"as_of": "9999-12-31T23:59:59Z"}, "as_of"),
                            ("get_work_centre_load", {"code": "WC", "start": "0001-01-01"},
                             "start")):
        with pytest.raises(ShopfloorError) as info:
            registry.invoke(tool, args, ADMIN)
        assert (info.value.code, info.value.field) == ("validation_error", fld)
        assert "1900-2999" in info.value.message


@pytest.fixture
def admin_client(registry: Registry, db_url: str) -> Iterator[httpx.Client]:
    Accounts(registry.store).create("pat", "extreme password", "admin")
    with serving(build_app(registry, Settings(database_url=db_url), run_worker=False)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"Origin": url}) as c:
        signed = c.post("/sign-in", data={"username": "pat", "password": "extreme password",
                                          "next": "/"})
        assert signed.status_code == 303
        yield c


@pytest.mark.parametrize("path", [
    "/work-centres/WC?start=9999-12-31", "/work-centres/WC?start=0001-01-01",
    "/valuation?date=9999-12-31", "/valuation.csv?date=9999-12-31",
    "/valuation?start=0001-01-01", "/tools/get_stock?run=1&as_of=9999-12-31T23:59:59-23:59",
])
def test_admin_pages_refuse_years_outside_the_span(admin_client: httpx.Client,
                                                   path: str) -> None:
    page = admin_client.get(path)
    assert page.status_code == 400 or (page.status_code == 200 and
                                       'id="outcome-error"' in page.text), \
        (page.status_code, page.text[-400:])
    assert "1900-2999" in page.text
    assert admin_client.get("/work-centres/WC?start=2999-12-31").status_code == 200


def test_a_need_past_a_millionth_s_precision_stays_whole_for_the_limit_to_refuse() -> None:
    from decimal import Decimal

    from shopfloor.domain.base.limits import LIMIT
    from shopfloor.domain.stock import yields

    huge = yields.gross(Decimal(999999999), Decimal(999999999), yields.Yield(Decimal(99999999)))
    assert huge > LIMIT
    assert yields.gross(Decimal(3), Decimal(80), yields.Yield(Decimal(5), Decimal(15),
                                                              Decimal(50))) == 300


def test_the_cli_and_the_http_api_answer_the_same_refusal(registry: Registry,
                                                          db_url: str) -> None:
    import json
    import os
    import subprocess
    import sys

    from shopfloor.surfaces.auth import Authenticator

    out = subprocess.run([sys.executable, "-m", "shopfloor.surfaces.cli", "--fmt", "json",
                          "call", "get_stock_valuation", "--arg", "date=9999-12-31"],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "SHOPFLOOR_DATABASE_URL": db_url})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    error = json.loads(out.stdout)["error"]
    assert (error["code"], error["field"]) == ("validation_error", "date")
    conf = Settings(database_url=db_url)
    token = Authenticator(registry, conf).mint("edge", ["admin"], 600)
    with serving(build_app(registry, conf, run_worker=False)) as url:
        r = httpx.post(f"{url}/api/v1/tools/get_work_centre_load",
                       json={"start": "9999-12-25", "end": "9999-12-31"},
                       headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 422, r.text
    assert (r.json()["error"]["code"], r.json()["error"]["field"]) == ("validation_error",
                                                                       "start")


@pytest.mark.parametrize("minutes", ["1e30", "999999999999", "1000000000", "0.0000001"])
def test_an_imported_routing_keeps_the_bounds_of_typed_minutes(registry: Registry,
                                                               minutes: str) -> None:
    """Minutes in an import's routing cell were unbounded: 1e30 broke the preview, 10^12
    was stored and then every read of that routing failed, 10^-7 was kept as 0."""
    csv = f"sku,name,kind,routing\nP9,Nine,product,10:Make:WC:0:{minutes}\n"
    preview = registry.invoke("import_items", {"csv": csv}, ADMIN)
    assert [(w["field"], w["blocking"]) for w in preview["warnings"]] == [("csv", True)]
    error = _refused(registry, "import_items", {"csv": csv, "preview": False}, "csv")
    assert "minutes are less than 10^9, to a millionth" in error.message
    apply(registry, "import_items", csv=csv.replace(minutes, "999999999.999999"))
