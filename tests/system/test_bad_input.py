"""Bad input on every write tool: a coded error naming the field, and nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from shopfloor.app.accounts import Accounts
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.copies import Copies
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot
from tests.system.bad_input_lots_floor import LINE, LOTS_TO_PLANNING
from tests.system.bad_input_more import FINER, MORE, READ_MORE

HUGE = "1e40"


def _world(reg: Registry) -> dict[str, str]:
    Given(reg).company()
    apply(reg, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"}])
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed",
          lines=[{"sku": "M1", "quantity_delta": "10", "unit_cost": "1"}])
    po = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "5", "unit_price": "1"}])
    so = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": "M1", "quantity": "2", "unit_price": "3"}])
    mo = apply(reg, "create_manufacturing_order", sku="P1", quantity="1", location="MAIN")
    adj = reg.invoke("list_stock_movements", {"sku": "M1", "limit": 1}, ADMIN)
    apply(reg, "create_item", sku="T1", name="Tracked", batch_tracked=True)
    apply(reg, "create_stock_adjustment", location="MAIN", reason="seed", lines=[
        {"sku": "T1", "quantity_delta": "4", "unit_cost": "1", "lots": [{"lot": "L1"}]}])
    apply(reg, "set_supplier_item", sku="M1", supplier="Acme", purchase_unit="box",
          units_per_purchase_unit="10", price_breaks=[{"min_quantity": "1", "unit_price": "2"}])
    job = reg.invoke("run_mrp", {}, ADMIN)
    # done documents for corrections, returns and reverts (stock of M1 nets to 10 again)
    po2 = apply(reg, "create_purchase_order", supplier="Acme", location="MAIN",
                lines=[{"sku": "M1", "quantity": "3", "unit_price": "2"}])["number"]
    apply(reg, "receive_purchase_order", number=po2)
    so2 = apply(reg, "create_sales_order", customer="Bob", location="MAIN",
                lines=[{"sku": "M1", "quantity": "1", "unit_price": "3"}])["number"]
    got = apply(reg, "fulfill_order", number=so2)
    mo2 = apply(reg, "create_manufacturing_order", sku="P1", quantity="1",
                location="MAIN")["number"]
    apply(reg, "complete_manufacturing_order", number=mo2)
    Accounts(reg.store).create("ann", "ann's password", "operator")
    hook = apply(reg, "create_webhook", url="https://hooks.example.com/in",
                 events=["job.finished"])
    apply(reg, "create_work_centre", code="WC", name="Bench")
    apply(reg, "update_routing", sku="P1", operations=[
        {"sequence": 10, "name": "Make", "work_centre": "WC", "run_minutes": "5"}])
    mo3 = apply(reg, "create_manufacturing_order", sku="P1", quantity="1",
                location="MAIN", start="2027-03-01T08:00:00Z")["number"]
    # last: a proposal is approved only if nothing its preview read has changed since
    held = apply(reg, "create_stock_adjustment", Actor.of("agent", "operator",
                                                        needs_approval=True),
                 location="MAIN", reason="found",
                 lines=[{"sku": "M1", "quantity_delta": "1", "unit_cost": "1"}])
    return {"prop": held["proposal_id"], "po": po["number"], "so": so["number"],
            "mo": mo["number"], "mo3": mo3,
            "adj": adj["movements"][-1]["document_number"], "job": job["job_id"],
            "po2": po2, "so2": so2, "mo2": mo2, "got": got["operation_id"],
            "hook": hook["webhook_id"]}


@pytest.fixture
def world(db_url: str, copies: Copies) -> Iterator[tuple[Registry, dict[str, str]]]:
    """A fresh copy of the company `_world` builds (built once a session and database)."""
    with copies.opened(db_url, "bad_input", _world) as found:
        yield found


# tool -> (valid arguments, [(broken arguments, field, code)]); {po} etc. are filled in.
TERMS = {"sku": "M1", "supplier": "Acme", "purchase_unit": "box",
         "units_per_purchase_unit": "10", "price_breaks": [{"min_quantity": "1",
                                                            "unit_price": "2"}]}
CASES: dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], str, str]]]] = {
    "set_supplier_item": (TERMS, [
        ({**TERMS, "units_per_purchase_unit": "0"}, "units_per_purchase_unit",
         "validation_error"),
        ({**TERMS, "price_breaks": [{"min_quantity": "1", "unit_price": "-2"}]},
         "price_breaks[0].unit_price", "validation_error"),
        ({**TERMS, "price_breaks": [{"min_quantity": "1", "unit_price": "2"},
                                    {"min_quantity": "1", "unit_price": "1"}]},
         "price_breaks[1].min_quantity", "validation_error"),
        ({**TERMS, "supplier": "Nobody"}, "supplier", "not_found"),
    ]),
    "remove_supplier_item": ({"sku": "M1", "supplier": "Acme"}, [
        ({"sku": "M2", "supplier": "Acme"}, "supplier", "not_found"),
        ({"sku": "M1"}, "supplier", "validation_error"),
    ]),
    "set_exchange_rate": ({"currency": "USD", "rate": "0.92"}, [
        ({"currency": "XYZ", "rate": "1"}, "currency", "validation_error"),
        ({"currency": "USD", "rate": "0"}, "rate", "validation_error"),
        ({"currency": "USD", "rate": "1", "valid_from": "soon"}, "valid_from",
         "validation_error"),
    ]),
    "add_landed_cost": ({"number": "{po2}", "amount": "5", "description": "freight"}, [
        ({"amount": "5", "description": "x"}, "number", "validation_error"),
        ({"number": "{po}", "amount": "5", "description": "x"}, "number", "conflict"),
        ({"number": "PO-99999", "amount": "5", "description": "x"}, "number", "not_found"),
        ({"number": "{po2}", "amount": "0", "description": "x"}, "amount", "validation_error"),
        ({"number": "{po2}", "amount": "5", "description": "x", "currency": "USD"},
         "currency", "validation_error"),
        ({"number": "{po2}", "amount": "5", "description": "x", "allocate_by": "weight"},
         "allocate_by", "validation_error"),
        ({"operation_id": "{got}", "amount": "5", "description": "x"}, "operation_id",
         "validation_error"),
    ]),
    "create_item": ({"sku": "N1", "name": "New"}, [
        ({"name": "New"}, "sku", "validation_error"),
        ({"sku": "N1", "name": "New", "purchase_price": "-1"}, "purchase_price",
         "validation_error"),
        ({"sku": "N1", "name": "New", "reorder_point": HUGE}, "reorder_point",
         "validation_error"),
        ({"sku": "N1", "name": "New", "lead_time_days": "soon"}, "lead_time_days",
         "validation_error"),
        ({"sku": "N1", "name": "New", "default_supplier": "Nobody"}, "default_supplier",
         "not_found"),
        ({"sku": "M1", "name": "Dup"}, "sku", "conflict"),
    ]),
    "modify_item": ({"sku": "M1", "name": "Renamed"}, [
        ({"name": "x"}, "sku", "validation_error"),
        ({"sku": "NOPE", "name": "x"}, "sku", "not_found"),
        ({"sku": "M1", "sales_price": -3}, "sales_price", "validation_error"),
    ]),
    "delete_item": ({"sku": "M2"}, [
        ({}, "sku", "validation_error"),
        ({"sku": "NOPE"}, "sku", "not_found"),
        ({"sku": "M1"}, "sku", "conflict"),
    ]),
    "create_location": ({"code": "NEW", "name": "New"}, [
        ({"code": "NEW"}, "name", "validation_error"),
        ({"code": "MAIN", "name": "Again"}, "code", "conflict"),
    ]),
    "create_supplier": ({"name": "Zed"}, [
        ({}, "name", "validation_error"),
        ({"name": "Zed", "email": "not-an-email"}, "email", "validation_error"),
        ({"name": "Acme"}, "name", "conflict"),
        ({"name": "Zed", "currency": "usd"}, "currency", "validation_error"),
    ]),
    "create_customer": ({"name": "Zed"}, [
        ({"name": ""}, "name", "validation_error"),
        ({"name": "Zed", "currency": "XYZ"}, "currency", "validation_error"),
        ({"name": "Bob"}, "name", "conflict"),
    ]),
    "update_recipe": ({"sku": "P1", "components": [{"sku": "M2", "quantity": "1"}]}, [
        ({"sku": "P1"}, "components", "validation_error"),
        ({"sku": "P1", "components": [{"sku": "M2", "quantity": "0"}]},
         "components[0].quantity", "validation_error"),
        ({"sku": "P1", "components": [{"sku": "NOPE", "quantity": "1"}]},
         "components[0].sku", "not_found"),
        ({"sku": "P1", "components": [{"sku": "M2", "quantity": "1",
                                       "attrition_percent": "-1"}]},
         "components[0].attrition_percent", "validation_error"),
        ({"sku": "P1", "components": [{"sku": "M2", "quantity": "1"}],
          "by_products": [{"sku": "M1", "quantity": "1", "cost_share_percent": "101"}]},
         "by_products[0].cost_share_percent", "validation_error"),
        ({"sku": "P1", "components": [{"sku": "P1", "quantity": "1"}]},
         "components[0].sku", "validation_error"),
    ]),
    "create_purchase_order": ({"supplier": "Acme", "location": "MAIN", "lines": LINE}, [
        ({"supplier": "Acme", "location": "MAIN"}, "lines", "validation_error"),
        ({"supplier": "Acme", "location": "MAIN", "lines": []}, "lines", "validation_error"),
        ({"supplier": "Acme", "location": "MAIN", "lines": [{"sku": "M1", "quantity": -2}]},
         "lines[0].quantity", "validation_error"),
        ({"supplier": "Acme", "location": "MAIN", "lines": [{"sku": "M1", "quantity": HUGE}]},
         "lines[0].quantity", "validation_error"),
        ({"supplier": "Acme", "location": "MAIN", "lines": [{"sku": "X9", "quantity": 1}]},
         "lines[0].sku", "not_found"),
        ({"supplier": "Acme", "location": "MAIN",
          "lines": [{"sku": "M1", "quantity": 1, "unit": "bag"}]}, "lines[0].unit",
         "validation_error"),
        ({"supplier": "Nobody", "location": "MAIN", "lines": LINE}, "supplier", "not_found"),
        ({"supplier": "Acme", "location": "MAIN", "lines": LINE, "expected_date": "soon"},
         "expected_date", "validation_error"),
    ]),
    "modify_purchase_order": ({"number": "{po}", "notes": "call first"}, [
        ({"notes": "x"}, "number", "validation_error"),
        ({"number": "PO-404", "notes": "x"}, "number", "not_found"),
        ({"number": "{po}", "lines": [{"sku": "M1", "quantity": "abc"}]}, "lines[0].quantity",
         "validation_error"),
    ]),
    "delete_purchase_order": ({"number": "{po}"}, [
        ({}, "number", "validation_error"),
        ({"number": "PO-404"}, "number", "not_found"),
    ]),
    "receive_purchase_order": ({"number": "{po}"}, [
        ({"number": "PO-404"}, "number", "not_found"),
        ({"number": "{po}", "lines": [{"sku": "M1", "quantity": "6"}]}, "lines[0].quantity",
         "validation_error"),
        ({"number": "{po}", "lines": [{"sku": "M2", "quantity": "1"}]}, "lines[0].sku",
         "validation_error"),
        ({"number": "{po}", "lines": [{"sku": "M1", "quantity": 0}]}, "lines[0].quantity",
         "validation_error"),
    ]),
    "create_sales_order": ({"customer": "Bob", "location": "MAIN", "lines": LINE}, [
        ({"customer": "Nobody", "location": "MAIN", "lines": LINE}, "customer", "not_found"),
        ({"customer": "Bob", "location": "NOWHERE", "lines": LINE}, "location", "not_found"),
        ({"customer": "Bob", "location": "MAIN", "lines": [{"sku": "M1"}]}, "lines[0].quantity",
         "validation_error"),
    ]),
    "modify_sales_order": ({"number": "{so}", "notes": "rush"}, [
        ({"number": "SO-404", "notes": "x"}, "number", "not_found"),
        ({"number": "{so}", "due_date": 12}, "due_date", "validation_error"),
    ]),
    "delete_sales_order": ({"number": "{so}"}, [
        ({"number": "SO-404"}, "number", "not_found"),
    ]),
    "fulfill_order": ({"number": "{so}"}, [
        ({"number": "SO-404"}, "number", "not_found"),
        ({"number": "{so}", "lines": [{"sku": "M1", "quantity": "3"}]}, "lines[0].quantity",
         "validation_error"),
    ]),
    "create_manufacturing_order": ({"sku": "P1", "quantity": "1", "location": "MAIN"}, [
        ({"sku": "M2", "quantity": "1", "location": "MAIN"}, "sku", "validation_error"),
        ({"sku": "P1", "quantity": "-1", "location": "MAIN"}, "quantity", "validation_error"),
        ({"sku": "P1", "quantity": True, "location": "MAIN"}, "quantity", "validation_error"),
    ]),
    "complete_manufacturing_order": ({"number": "{mo}"}, [
        ({"number": "MO-404"}, "number", "not_found"),
        ({"number": "{mo}", "quantity": "2"}, "quantity", "validation_error"),
        ({"number": "{mo}", "quantity": "0.0000001"}, "quantity", "validation_error"),
        ({"number": "{mo}", "skipped": [99]}, "skipped", "validation_error"),
        ({"number": "{mo}", "skipped": "10"}, "skipped", "validation_error"),
    ]),
    "delete_manufacturing_order": ({"number": "{mo}"}, [
        ({"number": "MO-404"}, "number", "not_found"),
    ]),
    "create_stock_adjustment": ({"location": "MAIN", "reason": "r", "lines": [
            {"sku": "M1", "quantity_delta": "1"}]}, [
        ({"location": "MAIN", "reason": "r", "lines": [{"sku": "M1"}]}, "lines[0]",
         "validation_error"),
        ({"location": "MAIN", "reason": "r", "lines": [
            {"sku": "M1", "quantity_delta": 1, "counted_quantity": 1}]}, "lines[0]",
         "validation_error"),
        ({"location": "MAIN", "reason": "r", "lines": [{"sku": "M1", "counted_quantity": -1}]},
         "lines[0].counted_quantity", "validation_error"),
        ({"location": "MAIN", "reason": "", "lines": [{"sku": "M1", "quantity_delta": 1}]},
         "reason", "validation_error"),
        ({"location": "MAIN", "reason": "r", "lines": [{"sku": "M1", "quantity_delta": -99}]},
         "lines[0].quantity_delta", "insufficient_stock"),
    ]),
    "update_stock_adjustment": ({"number": "{adj}", "reason": "recount"}, [
        ({"number": "ADJ-404", "reason": "x"}, "number", "not_found"),
        ({"number": "{adj}", "lines": []}, "lines", "validation_error"),
    ]),
    "create_stock_transfer": ({"from_location": "MAIN", "to_location": "SHOP", "lines": LINE}, [
        ({"from_location": "MAIN", "to_location": "MAIN", "lines": LINE}, "to_location",
         "validation_error"),
        ({"from_location": "MAIN", "to_location": "SHOP", "lines": [
            {"sku": "M1", "quantity": "99"}]}, "lines[0].quantity", "insufficient_stock"),
        ({"from_location": "MAIN", "to_location": "SHOP", "lines": [
            {"sku": "M1", "quantity": "1", "extra": 1}]}, "lines[0].extra", "validation_error"),
    ]),
    "cancel_job": ({"job_id": "{job}"}, [
        ({}, "job_id", "validation_error"),
        ({"job_id": "no-such-job"}, "job_id", "not_found"),
        ({"job_id": ""}, "job_id", "validation_error"),
    ]),
    "rebuild_balances": ({}, [
        ({"everything": True}, "everything", "validation_error"),
    ]),
    "import_items": ({"csv": "sku,name,on_hand:MAIN\nN9,Nine,4\n"}, [
        ({}, "csv", "validation_error"),
        ({"csv": "sku,colour\nX,red\n"}, "csv", "validation_error"),
        ({"csv": "name\nNine\n"}, "csv", "validation_error"),
        ({"csv": "sku,name\n"}, "csv", "validation_error"),
        ({"csv": "sku,name,purchase_price\nN9,Nine,-1\n"}, "csv", "validation_error"),
        ({"csv": "sku,name,on_hand:NOWHERE\nN9,Nine,1\n"}, "csv", "validation_error"),
        ({"csv": "sku,name\nN9,Nine\nN9,Again\n"}, "csv", "validation_error"),
        ({"csv": "sku,name\nN9,Nine", "skip_rejects": "maybe"}, "skip_rejects",
         "validation_error"),
    ]),
    "batch_update_recipes": ({"component": "M1", "scale": "2"}, [
        ({"component": "M1"}, "replace_with", "validation_error"),
        ({"component": "NOPE", "scale": "2"}, "component", "not_found"),
        ({"component": "M1", "replace_with": "M1"}, "replace_with", "validation_error"),
        ({"component": "M1", "replace_with": "P1"}, "component", "validation_error"),
        ({"component": "M1", "scale": "0"}, "scale", "validation_error"),
        ({"component": "M1", "scale": "2", "products": ["M1"]}, "products[0]", "not_found"),
    ]),
}


CASES.update(LOTS_TO_PLANNING)
CASES.update(MORE)  # the partner, notes and letterhead tools' (issue 29)
for _tool, _finer in FINER.items():  # quantities finer than their unit (issue 30)
    CASES[_tool] = (CASES[_tool][0], [*CASES[_tool][1], *_finer])


def _fill(value: Any, refs: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**refs) if value.startswith("{") else value
    if isinstance(value, list):
        return [_fill(v, refs) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, refs) for k, v in value.items()}
    return value


def test_every_write_tool_has_bad_input_cases(registry: Registry) -> None:
    writes = {t.name for t in registry.tools() if t.facts.writes}
    assert writes <= set(CASES), writes - set(CASES)


@pytest.mark.parametrize("tool", sorted(CASES))
def test_bad_input_is_coded_names_the_field_and_writes_nothing(
        world: tuple[Registry, dict[str, str]], tool: str) -> None:
    registry, refs = world
    valid, broken = CASES[tool]
    if tool != "apply_mrp_plan":  # its valid call needs a finished MRP run
        preview = registry.invoke(tool, _fill(valid, refs), ADMIN)
        assert preview["preview"] is True
        # What the card sends back on Confirm must pass the schema a host validates with.
        jsonschema.validate(preview["apply"]["arguments"], registry.get(tool).input_schema)
    before = snapshot(registry)  # each refusal below is checked against it
    for args, field, code in broken:
        for preview in (True, False):
            with pytest.raises(ShopfloorError) as info:
                result = registry.invoke(tool, {**_fill(args, refs), "preview": preview}, ADMIN)
                if preview and result["warnings"] and result["warnings"][0]["blocking"]:
                    w = result["warnings"][0]
                    blocked = ShopfloorError(w["message"], field=w["field"])
                    blocked.code = w["code"]  # type: ignore[misc]
                    raise blocked from None
            err = info.value
            if not (preview and code == "insufficient_stock"):
                assert err.code == code, (args, err.to_payload())
            assert err.field == field, (args, err.to_payload())
            assert snapshot(registry) == before, (tool, args)


READ_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("list_stock_movements", {"cursor": "99999999999999999999999"}, "cursor"),
    ("list_stock_movements", {"cursor": "\u00b2"}, "cursor"),
    ("list_purchase_orders", {"cursor": "zzz"}, "cursor"),
    ("list_sales_orders", {"cursor": "-1"}, "cursor"),
    ("list_manufacturing_orders", {"cursor": "1e9"}, "cursor"),
    ("get_operation_log", {"cursor": "99999999999999999999"}, "cursor"),
    ("get_operation_log", {"since": "yesterday"}, "since"),
    ("search_items", {"query": "oak\x00"}, "query"),
    ("list_suppliers", {"query": "\x00"}, "query"),
    ("search_items", {"cursor": "\x00"}, "cursor"),
    ("get_job", {"job_id": "\x00"}, "job_id"),
    ("get_job", {"job_id": "x" * 37}, "job_id"),
    ("list_events", {"cursor": "1.2.3"}, "cursor"),
    ("list_events", {"cursor": "99999999999999999999.1"}, "cursor"),
    ("list_events", {"cursor": "9999999999999999999.1"}, "cursor"),
    ("list_events", {"cursor": "1.9999999999"}, "cursor"),
    ("list_events", {"types": ["stock.moved"]}, "types[0]"),
    ("list_webhook_deliveries", {"cursor": "x"}, "cursor"),
    ("list_webhook_deliveries", {"status": "lost"}, "status"),
    ("find_tools", {"question": ""}, "question"),
    ("find_tools", {"question": "stock\x00"}, "question"),
    ("enable_toolset", {"toolsets": ["nope"]}, "toolsets"),
    ("enable_toolset", {"toolsets": []}, "toolsets"),
    *READ_MORE,
]


@pytest.mark.parametrize(("tool", "args", "field"), READ_CASES,
                         ids=[f"{t}-{f}-{i}" for i, (t, _, f) in enumerate(READ_CASES)])
def test_bad_read_arguments_are_coded_errors_naming_the_field(
        registry: Registry, tool: str, args: dict[str, Any], field: str) -> None:
    with pytest.raises(ShopfloorError) as info:
        registry.invoke(tool, args, ADMIN)
    assert (info.value.code, info.value.field) == ("validation_error", field)


def test_since_takes_a_date_or_a_time_without_zone_as_utc(
        world: tuple[Registry, dict[str, str]]) -> None:
    registry, _ = world
    for since in ("2020-01-01", "2020-01-01T00:00:00", "2020-01-01T00:00:00+02:00"):
        for tool in ("list_stock_movements", "get_operation_log"):
            registry.invoke(tool, {"since": since}, ADMIN)
    future = registry.invoke("get_operation_log", {"since": "2999-01-01"}, ADMIN)
    assert future["entries"] == []
