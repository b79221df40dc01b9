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
