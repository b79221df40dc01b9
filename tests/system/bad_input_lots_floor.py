"""Bad-input cases for the lot, correction, account, floor and planning tools, kept
beside test_bad_input.py's table, which takes them in (one module would pass the
house's 450 lines); the references in braces are its world's documents."""

from __future__ import annotations

from typing import Any

LINE = [{"sku": "M1", "quantity": "1"}]

LOTS_TO_PLANNING: dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], str, str]]]] = {
    "hold_lot": ({"sku": "T1", "lot": "L1", "reason": "lab test"}, [
        ({"sku": "T1", "lot": "L1"}, "reason", "validation_error"),
        ({"sku": "T1", "lot": "NOPE", "reason": "x"}, "lot", "not_found"),
        ({"sku": "NOPE", "lot": "L1", "reason": "x"}, "sku", "not_found"),
        ({"sku": "M1", "lot": "L1", "reason": "x"}, "lot", "not_found"),
    ]),
    "release_lot": ({"sku": "T1", "lot": "L1"}, [
        ({"sku": "T1"}, "lot", "validation_error"),
        ({"sku": "T1", "lot": "NOPE"}, "lot", "not_found"),
    ]),
    "close_purchase_order": ({"number": "{po}"}, [
        ({}, "number", "validation_error"),
        ({"number": "{po2}"}, "number", "conflict"),
        ({"number": "PO-99999"}, "number", "not_found"),
    ]),
    "close_sales_order": ({"number": "{so}"}, [
        ({"number": "SO-99999"}, "number", "not_found"),
        ({"number": "{so2}"}, "number", "conflict"),
    ]),
    "close_manufacturing_order": ({"number": "{mo}"}, [
        ({}, "number", "validation_error"),
        ({"number": "{mo2}"}, "number", "conflict"),
        ({"number": "MO-99999"}, "number", "not_found"),
    ]),
    "revert_operation": ({"operation_id": "{got}"}, [
        ({}, "operation_id", "validation_error"),
        ({"operation_id": "no-such-op"}, "operation_id", "not_found"),
    ]),
    "correct_purchase_receipt": ({"number": "{po2}", "sku": "M1", "unit_price": "3"}, [
        ({"number": "{po2}", "sku": "M1"}, "quantity", "validation_error"),
        ({"number": "{po2}", "sku": "M1", "quantity": "9"}, "quantity", "validation_error"),
        ({"number": "{po2}", "sku": "M2", "quantity": "1"}, "sku", "validation_error"),
        ({"number": "{po2}", "sku": "M1", "lot": "L9"}, "lot", "validation_error"),
        ({"number": "{po}", "sku": "M1", "quantity": "1"}, "sku", "conflict"),
    ]),
    "correct_shipment": ({"number": "{so2}", "sku": "M1", "quantity": "0"}, [
        ({"number": "{so2}", "sku": "M1", "quantity": "5"}, "quantity", "validation_error"),
        ({"number": "{so2}", "sku": "M1", "quantity": "1"}, "quantity", "validation_error"),
        ({"number": "{so2}", "sku": "M1", "quantity": "-1"}, "quantity", "validation_error"),
    ]),
    "correct_manufacturing_order": ({"number": "{mo2}", "completed_quantity": "0"}, [
        ({"number": "{mo2}"}, "completed_quantity", "validation_error"),
        ({"number": "{mo2}", "completed_quantity": "2"}, "completed_quantity",
         "validation_error"),
        ({"number": "{mo2}", "consumed": [{"sku": "NOPE", "quantity": "1"}]},
         "consumed[0].sku", "not_found"),
        ({"number": "{mo}", "consumed": [{"sku": "M1", "quantity": "1"}]}, "consumed",
         "conflict"),
    ]),
    "create_customer_return": ({"number": "{so2}", "reason": "damaged", "lines": LINE}, [
        ({"number": "{so2}", "lines": LINE}, "reason", "validation_error"),
        ({"number": "{so2}", "reason": "x", "lines": [{"sku": "M1", "quantity": "2"}]},
         "lines[0].quantity", "validation_error"),
        ({"number": "{so2}", "reason": "x", "lines": [{"sku": "M2", "quantity": "1"}]},
         "lines[0].sku", "validation_error"),
    ]),
    "create_supplier_return": ({"number": "{po2}", "reason": "wrong", "lines": LINE}, [
        ({"number": "{po2}", "reason": "x", "lines": [{"sku": "M1", "quantity": "4"}]},
         "lines[0].quantity", "validation_error"),
        ({"number": "PO-99999", "reason": "x", "lines": LINE}, "number", "not_found"),
    ]),
    "create_user": ({"username": "bea", "role": "viewer", "password": "long enough"}, [
        ({"username": "bea", "role": "boss", "password": "long enough"}, "role",
         "validation_error"),
        ({"username": "bea", "role": "viewer", "password": "short"}, "password",
         "validation_error"),
        ({"username": "bea", "role": "viewer", "password": "**********"}, "password",
         "validation_error"),
        ({"username": "ann", "role": "viewer", "password": "long enough"}, "username",
         "conflict"),
        ({"username": "b\x01a", "role": "viewer", "password": "long enough"}, "username",
         "validation_error"),
    ]),
    "set_user_role": ({"username": "ann", "role": "admin"}, [
        ({"username": "nobody", "role": "admin"}, "username", "not_found"),
        ({"username": "ann", "role": "boss"}, "role", "validation_error"),
    ]),
    "disable_user": ({"username": "ann"}, [
        ({"username": "nobody"}, "username", "not_found"),
        ({"username": "ann", "disabled": "maybe"}, "disabled", "validation_error"),
    ]),
    "reset_user_password": ({"username": "ann", "password": "a new password"}, [
        ({"username": "nobody", "password": "a new password"}, "username", "not_found"),
        ({"username": "ann", "password": "short"}, "password", "validation_error"),
        ({"username": "ann"}, "password", "validation_error"),
    ]),
    "create_webhook": ({"url": "https://hooks.example.com/b", "events": ["job.finished"]}, [
        ({"events": ["job.finished"]}, "url", "validation_error"),
        ({"url": "http://169.254.169.254/", "events": ["job.finished"]}, "url",
         "validation_error"),
        ({"url": "ftp://example.com/", "events": ["job.finished"]}, "url", "validation_error"),
        ({"url": "https://hooks.example.com/b", "events": []}, "events", "validation_error"),
        ({"url": "https://hooks.example.com/b", "events": ["stock.moved"]}, "events[0]",
         "validation_error"),
    ]),
    "delete_webhook": ({"webhook_id": "{hook}"}, [
        ({}, "webhook_id", "validation_error"),
        ({"webhook_id": "wh_nope"}, "webhook_id", "not_found"),
        ({"webhook_id": "../x"}, "webhook_id", "validation_error"),
    ]),
    "approve_proposal": ({"proposal_id": "{prop}"}, [
        ({}, "proposal_id", "validation_error"),
        ({"proposal_id": "no-such-proposal"}, "proposal_id", "not_found"),
        ({"proposal_id": "../x"}, "proposal_id", "validation_error"),
    ]),
    "reject_proposal": ({"proposal_id": "{prop}", "reason": "count it first"}, [
        ({"proposal_id": "{prop}"}, "reason", "validation_error"),
        ({"proposal_id": "no-such-proposal", "reason": "x"}, "proposal_id", "not_found"),
        ({"proposal_id": "{prop}", "reason": 5}, "reason", "validation_error"),
    ]),
    "create_work_centre": ({"code": "WC2", "name": "Saw"}, [
        ({"code": "WC2", "name": "Saw", "calendar": [{"days": ["mon"], "start": "16:00",
                                                      "end": "08:00"}]}, "calendar",
         "validation_error"),
        ({"code": "WC", "name": "Again"}, "code", "conflict"),
        ({"code": "WC2", "name": "Saw", "hourly_cost": "-1"}, "hourly_cost",
         "validation_error"),
    ]),
    "modify_work_centre": ({"code": "WC", "hourly_cost": "20"}, [
        ({"code": "NOPE", "name": "x"}, "code", "not_found"),
        ({"code": "WC", "calendar": [{"days": ["someday"], "start": "08:00", "end": "16:00"}]},
         "calendar", "validation_error"),
    ]),
    "update_routing": ({"sku": "P1", "operations": [{"sequence": 1, "name": "Cut",
                                                      "work_centre": "WC"}]}, [
        ({"sku": "P1", "operations": [{"sequence": 1, "name": "Cut", "work_centre": "NOPE"}]},
         "operations[0].work_centre", "not_found"),
        ({"sku": "P1", "operations": [{"sequence": 1, "name": "Cut", "work_centre": "WC",
                                       "setup_minutes": "-5"}]},
         "operations[0].setup_minutes", "validation_error"),
        ({"sku": "P1", "operations": [{"sequence": 1, "name": "A", "work_centre": "WC"},
                                      {"sequence": 1, "name": "B", "work_centre": "WC"}]},
         "operations[1].sequence", "validation_error"),
    ]),
    "record_operation_time": ({"number": "{mo3}", "sequence": 10, "minutes": "30"}, [
        ({"number": "{mo3}", "sequence": 99, "minutes": "1"}, "sequence", "not_found"),
        ({"number": "{mo3}", "sequence": 10, "minutes": "-1"}, "minutes", "validation_error"),
        ({"number": "{mo2}", "sequence": 10, "minutes": "1"}, "number", "conflict"),
    ]),
    "schedule_manufacturing_orders": ({}, [
        ({"orders": ["MO-99999"]}, "orders[0]", "not_found"),
        ({"start": "soon"}, "start", "validation_error"),
    ]),
    "apply_mrp_plan": ({"job_id": "{job}"}, [
        ({}, "job_id", "validation_error"),
        ({"job_id": "no-such-job"}, "job_id", "not_found"),
        ({"job_id": "{job}", "only": "M1"}, "only", "validation_error"),
        ({"job_id": "{job}", "refs": "P1"}, "refs", "validation_error"),
    ]),
}
