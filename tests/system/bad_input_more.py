"""Bad-input cases for the partner, document-notes and letterhead tools (issue 29), kept
beside test_bad_input.py's table, which takes them in; the references in braces are its
world's documents."""

from __future__ import annotations

from typing import Any

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAfbLI3wAAAABJ"
       "RU5ErkJggg==")

BILL_LINE = {"order": "{po2}", "sku": "M1", "quantity": "3", "unit_price": "2"}
BILL = {"supplier": "Acme", "number": "INV-1", "date": "2026-01-10", "lines": [BILL_LINE]}

MORE: dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], str, str]]]] = {
    "modify_supplier": ({"supplier": "Acme", "contact": "Ana", "payment_terms_days": 30}, [
        ({"supplier": "Acme", "bill_tolerance_percent": "-1"}, "bill_tolerance_percent",
         "validation_error"),
        ({"contact": "Ana"}, "supplier", "validation_error"),
        ({"supplier": "Nobody", "contact": "Ana"}, "supplier", "not_found"),
        ({"id": 99999, "contact": "Ana"}, "id", "not_found"),
        ({"supplier": "Acme", "email": "no"}, "email", "validation_error"),
        ({"supplier": "Acme", "payment_terms_days": -1}, "payment_terms_days",
         "validation_error"),
        ({"supplier": "Acme", "currency": "usd"}, "currency", "validation_error"),
        # Acme has open orders in euros: its currency stays until they are done
        ({"supplier": "Acme", "currency": "USD"}, "currency", "conflict"),
    ]),
    "modify_customer": ({"customer": "Bob", "tax_id": "DE 123456789"}, [
        ({"customer": "Bob", "name": "Acme Buyer", "tax_id": "x\x00"}, "tax_id",
         "validation_error"),
        ({"customer": "Bob", "address": "\x07bell"}, "address", "validation_error"),
        ({"customer": "Bob", "lead_time_days": 99999}, "lead_time_days", "validation_error"),
        ({"customer": "Bob", "currency": "GBP"}, "currency", "conflict"),
    ]),
    "modify_manufacturing_order": ({"number": "{mo}", "notes": "use jig B"}, [
        ({"notes": "x"}, "number", "validation_error"),
        ({"number": "{mo2}", "notes": "x"}, "number", "conflict"),
        ({"number": "{mo}", "reference": "a\nb"}, "reference", "validation_error"),
    ]),
    "set_company_profile": ({"name": "Brightwood Ltd", "address": "1 Mill Lane\nLeeds"}, [
        ({"address": "x"}, "name", "validation_error"),
        ({"name": "B", "email": "nope"}, "email", "validation_error"),
        ({"name": "B", "logo": "bm90IGFuIGltYWdl"}, "logo", "validation_error"),
        ({"name": "B", "logo": "%%%"}, "logo", "validation_error"),
        ({"name": "B", "logo": PNG[:40]}, "logo", "validation_error"),
    ]),
    "set_stock_accounts": ({"accounts": [{"role": "cogs", "code": "6000",
                                          "name": "Cost of sales"}]}, [
        ({"accounts": []}, "accounts", "validation_error"),
        ({"accounts": [{"role": "nope", "code": "1", "name": "x"}]}, "accounts[0].role",
         "validation_error"),
        # 1310 is an asset (raw materials): cost of goods sold posts to an expense
        ({"accounts": [{"role": "cogs", "code": "1310", "name": "x"}]}, "accounts[0].code",
         "validation_error"),
        ({"accounts": [{"role": "grni", "code": "2110", "name": "x", "location": "NOPE"}]},
         "accounts[0].location", "not_found"),
    ]),
    # the period lock (issue 31): a day already over, and one of a date or lift
    "set_lock_date": ({"lock_date": "2026-01-31", "reason": "January closed"}, [
        ({"reason": "closing"}, "lock_date", "validation_error"),
        ({"lock_date": "2026-01-31", "lift": True, "reason": "x"}, "lock_date",
         "validation_error"),
        ({"lock_date": "2999-12-31", "reason": "x"}, "lock_date", "validation_error"),
        ({"lock_date": "2026-02-30", "reason": "x"}, "lock_date", "validation_error"),
        ({"lock_date": "2026-01-31", "reason": ""}, "reason", "validation_error"),
        ({"lock_date": "2026-01-31", "reason": "a\x00b"}, "reason", "validation_error"),
    ]),
    "create_supplier_bill": (BILL, [
        ({**BILL, "lines": []}, "lines", "validation_error"),
        ({**BILL, "supplier": "Nobody"}, "supplier", "not_found"),
        ({**BILL, "due_date": "2026-01-01"}, "due_date", "validation_error"),
        ({**BILL, "currency": "usd"}, "currency", "validation_error"),
        ({**BILL, "currency": "USD"}, "date", "validation_error"),  # no USD rate then
        ({**BILL, "date": "1850-01-01"}, "date", "validation_error"),
        ({**BILL, "lines": [{**BILL_LINE, "order": "PO-99999"}]}, "lines[0].order",
         "not_found"),
        ({**BILL, "lines": [{**BILL_LINE, "sku": "M2"}]}, "lines[0].sku", "validation_error"),
        ({**BILL, "lines": [BILL_LINE, BILL_LINE]}, "lines[1].sku", "validation_error"),
        ({**BILL, "lines": [{**BILL_LINE, "quantity": "4"}]}, "lines[0].quantity",
         "conflict"),  # 3 came in
        ({**BILL, "lines": [{**BILL_LINE, "order": "{po}"}]}, "lines[0].quantity",
         "conflict"),  # nothing came in yet
        ({**BILL, "lines": [{**BILL_LINE, "quantity": "0"}]}, "lines[0].quantity",
         "validation_error"),
        ({**BILL, "lines": [{**BILL_LINE, "unit_price": "-1"}]}, "lines[0].unit_price",
         "validation_error"),
        ({**BILL, "charges": [{"order": "{po2}", "description": "freight", "amount": "5",
                               "allocate_by": "weight"}]}, "charges[0].allocate_by",
         "validation_error"),  # M1 has no weight
        ({**BILL, "charges": [{"order": "{po}", "description": "freight", "amount": "5"}]},
         "charges[0].order", "conflict"),  # nothing received to land it on
    ]),
    "revalue_stock": ({"sku": "M1", "location": "MAIN", "unit_cost": "2", "reason": "market"}, [
        ({"sku": "M1", "location": "MAIN", "reason": "x"}, "unit_cost", "validation_error"),
        ({"sku": "M1", "location": "MAIN", "unit_cost": "2", "value": "5", "reason": "x"},
         "value", "validation_error"),
        ({"sku": "M1", "location": "MAIN", "unit_cost": "-1", "reason": "x"}, "unit_cost",
         "validation_error"),
        ({"sku": "M1", "location": "MAIN", "value": "1e999", "reason": "x"}, "value",
         "validation_error"),
        ({"sku": "M1", "location": "MAIN", "unit_cost": "2"}, "reason", "validation_error"),
        ({"sku": "M1", "location": "MAIN", "unit_cost": "2", "reason": " "}, "reason",
         "validation_error"),
        ({"sku": "NOPE", "location": "MAIN", "unit_cost": "2", "reason": "x"}, "sku",
         "not_found"),
        ({"sku": "M1", "location": "NOPE", "unit_cost": "2", "reason": "x"}, "location",
         "not_found"),
        # nothing of M1 at SHOP to revalue
        ({"sku": "M1", "location": "SHOP", "unit_cost": "2", "reason": "x"}, "location",
         "validation_error"),
        ({"sku": "T1", "location": "MAIN", "unit_cost": "2", "reason": "x"}, "lot",
         "validation_error"),
        ({"sku": "T1", "location": "MAIN", "lot": "L9", "unit_cost": "2", "reason": "x"},
         "lot", "not_found"),
        ({"sku": "M1", "location": "MAIN", "lot": "L1", "unit_cost": "2", "reason": "x"},
         "lot", "validation_error"),
    ]),
}

# the journal's reads (issue 31)
READ_MORE: list[tuple[str, dict[str, Any], str]] = [
    ("list_journal_entries", {"cursor": "x"}, "cursor"),
    ("get_trial_balance", {"start": "2026-02-01", "end": "2026-01-01"}, "end"),
    ("export_journal", {"format": "xls"}, "format"),
    ("get_supplier_bill", {"bill": ""}, "bill"),
    ("list_supplier_bills", {"cursor": "x"}, "cursor"),
    ("list_unbilled_receipts", {"date": "1800-01-01"}, "date"),
]

# Quantities finer than their unit (issue 30): M1, P1 and T1 are counted in whole pcs; each
# write that takes a quantity refuses 1.5 pcs with the same code, naming its field.
V = "validation_error"
PCS_TERMS = {"sku": "M1", "supplier": "Acme", "purchase_unit": "pcs",
             "units_per_purchase_unit": "1", "price_breaks": [{"min_quantity": "1",
                                                               "unit_price": "2"}]}
FINER: dict[str, list[tuple[dict[str, Any], str, str]]] = {
    "create_manufacturing_order": [
        ({"sku": "P1", "quantity": "1.5", "location": "MAIN"}, "quantity", V)],
    "complete_manufacturing_order": [
        ({"number": "{mo}", "quantity": "0.5"}, "quantity", V),
        ({"number": "{mo}", "quantity": "1", "scrap": "0.5"}, "scrap", V),
        ({"number": "{mo}", "consumed": [{"sku": "M1", "quantity": "1.5"}]},
         "consumed[0].quantity", V)],
    "record_operation_time": [
        ({"number": "{mo3}", "sequence": 10, "minutes": "1", "quantity": "0.5"}, "quantity", V)],
    "correct_manufacturing_order": [
        ({"number": "{mo2}", "completed_quantity": "0.5"}, "completed_quantity", V),
        ({"number": "{mo2}", "consumed": [{"sku": "M1", "quantity": "1.5"}]},
         "consumed[0].quantity", V)],
    "create_stock_adjustment": [
        ({"location": "MAIN", "reason": "r", "lines": [{"sku": "M1", "quantity_delta": "-1.5"}]},
         "lines[0].quantity_delta", V),
        ({"location": "MAIN", "reason": "r", "lines": [{"sku": "M1", "counted_quantity": "9.5"}]},
         "lines[0].counted_quantity", V),
        ({"location": "MAIN", "reason": "r", "lines": [
            {"sku": "T1", "quantity_delta": "1", "unit_cost": "1",
             "lots": [{"lot": "L2", "quantity": "0.5"}, {"lot": "L3", "quantity": "0.5"}]}]},
         "lines[0].lots[0].quantity", V)],
    "update_stock_adjustment": [
        ({"number": "{adj}", "lines": [{"sku": "M1", "quantity_delta": "0.5"}]},
         "lines[0].quantity_delta", V)],
    "create_stock_transfer": [
        ({"from_location": "MAIN", "to_location": "SHOP", "lines": [
            {"sku": "M1", "quantity": "0.5"}]}, "lines[0].quantity", V),
        ({"from_location": "MAIN", "to_location": "SHOP", "lines": [
            {"sku": "T1", "quantity": "1",
             "lots": [{"lot": "L1", "quantity": "0.5"}, {"lot": "L9", "quantity": "0.5"}]}]},
         "lines[0].lots[0].quantity", V)],
    "correct_shipment": [({"number": "{so2}", "sku": "M1", "quantity": "0.5"}, "quantity", V)],
    "correct_purchase_receipt": [
        ({"number": "{po2}", "sku": "M1", "quantity": "2.5"}, "quantity", V)],
    "update_recipe": [
        ({"sku": "P1", "components": [{"sku": "M2", "quantity": "1", "setup_quantity": "0.5"}]},
         "components[0].setup_quantity", V),
        ({"sku": "P1", "components": [{"sku": "M2", "quantity": "1",
                                       "rounding_multiple": "2.5"}]},
         "components[0].rounding_multiple", V)],
    "create_item": [({"sku": "N1", "name": "New", "order_multiple": "2.5"}, "order_multiple", V),
                    ({"sku": "N1", "name": "New", "reorder_point": "0.5"}, "reorder_point", V)],
    "modify_item": [({"sku": "M1", "reorder_quantity": "1.5"}, "reorder_quantity", V),
                    ({"sku": "M1", "reorder_point": "2.5"}, "reorder_point", V),
                    ({"sku": "M1", "order_multiple": "0.5"}, "order_multiple", V)],
    # bought in its own unit, a minimum and a multiple are whole pcs too
    "set_supplier_item": [
        ({**PCS_TERMS, "minimum_order": "2.5"}, "minimum_order", V),
        ({**PCS_TERMS, "order_multiple": "0.5"}, "order_multiple", V)],
    "import_items": [({"csv": "sku,name,reorder_point\nN9,Nine,2.5\n"}, "csv", V)],
}
