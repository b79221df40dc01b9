"""Bad-input cases for the partner, document-notes and letterhead tools (issue 29), kept
beside test_bad_input.py's table, which takes them in; the references in braces are its
world's documents."""

from __future__ import annotations

from typing import Any

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAfbLI3wAAAABJ"
       "RU5ErkJggg==")

MORE: dict[str, tuple[dict[str, Any], list[tuple[dict[str, Any], str, str]]]] = {
    "modify_supplier": ({"supplier": "Acme", "contact": "Ana", "payment_terms_days": 30}, [
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
]
