"""Issue 31: every valued movement posts a balanced journal entry in its own transaction,
with the accounts an accountant expects; a revert posts the exact negation; the Inventory
accounts hold what the valuation says, on both databases."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from decimal import ROUND_HALF_EVEN
from decimal import Decimal as D
from pathlib import Path
from typing import Any

from beancount import loader
from beancount.core import data
from sqlalchemy import delete

from shopfloor.app import demo
from shopfloor.app.wiring import post_history
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import JournalEntry, JournalLine
from tests.corrections.test_revert import revert
from tests.given import Given
from tests.helpers import ADMIN, apply, journal_mismatches

INVENTORY, GRNI, COGS, ADJUSTMENTS = "1310", "2110", "5000", "5100"
FINISHED, WIP, LABOUR, PPV = "1330", "1320", "5300", "5200"
ROUNDING = "7990"


def entries(reg: Registry, document: str | None = None) -> list[dict[str, Any]]:
    args = {"document": document} if document else {}
    out: list[dict[str, Any]] = reg.invoke("list_journal_entries", args, ADMIN)["entries"]
    return out


def lines(entry: dict[str, Any]) -> dict[str, D]:
    """Account -> signed amount (debit positive), summed over items and locations."""
    out: dict[str, D] = {}
    for ln in entry["lines"]:
        out[ln["account"]] = out.get(ln["account"], D(0)) + D(ln["debit"]) - D(ln["credit"])
    return {k: v for k, v in out.items() if v}


def trial(reg: Registry) -> dict[str, D]:
    tb = reg.invoke("get_trial_balance", {}, ADMIN)
    assert D(tb["debit"]) == D(tb["credit"])
    return {r["account"]: D(r["closing"]) for r in tb["rows"] if D(r["closing"])}


def inventory_equals_valuation(reg: Registry) -> None:
    with reg.store.reading() as s:
        assert journal_mismatches(s) == []
    closing = trial(reg)
    stock = sum((v for k, v in closing.items() if k in ("1310", "1325", "1330")), D(0))
    assert stock == valuation_in_cents(reg)


def valuation_in_cents(reg: Registry, **args: Any) -> D:
    """The stock valuation's rows each rounded to the cent, summed: what the Inventory
    accounts hold (the journal posts an item's stock lines as steps of its value at its
    place rounded to the cent)."""
    total, cursor = D(0), None
    while True:
        page = reg.invoke("get_stock_valuation", {**args, "cursor": cursor} if cursor
                          else args, ADMIN)
        total += sum((D(r["value"]).quantize(D("0.01"), rounding=ROUND_HALF_EVEN)
                      for r in page["rows"]), D(0))
        cursor = page.get("next_cursor")
        if not cursor:
            return total


def test_a_receipt_a_shipment_and_an_adjustment_post_what_an_accountant_expects(
        registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number=po["number"])
    (receipt,) = entries(registry, po["number"])
    assert lines(receipt) == {INVENTORY: D(50), GRNI: D(-50)}
    assert receipt["document_type"] == "purchase_order"

    so = given.so({"M1": ("4", "20")})
    apply(registry, "fulfill_order", number=so["number"])
    (shipment,) = entries(registry, so["number"])
    assert lines(shipment) == {COGS: D(20), INVENTORY: D(-20)}

    adj = given.stock({"M1": "-1"}, reason="broken")
    (written_off,) = entries(registry, adj["number"])
    assert lines(written_off) == {ADJUSTMENTS: D(5), INVENTORY: D(-5)}
    assert trial(registry) == {INVENTORY: D(25), GRNI: D(-50), COGS: D(20), ADJUSTMENTS: D(5)}
    inventory_equals_valuation(registry)


def test_a_revert_posts_the_exact_negation_dated_now(registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": ("3", "2.5")})
    received = apply(registry, "receive_purchase_order", number=po["number"])
    revert(registry, received)
    first, second = entries(registry, po["number"])
    assert lines(second) == {k: -v for k, v in lines(first).items()}
    assert second["reverses"] == received["operation_id"]
    assert second["posted_at"] >= first["posted_at"]
    assert trial(registry) == {}
    inventory_equals_valuation(registry)


def test_a_price_correction_capitalises_what_is_on_hand_and_expenses_the_rest(
        registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": ("10", "4")})
    apply(registry, "receive_purchase_order", number=po["number"])
    so = given.so({"M1": ("6", "9")})
    apply(registry, "fulfill_order", number=so["number"])
    apply(registry, "correct_purchase_receipt", number=po["number"], sku="M1",
          unit_price="5")
    correction = entries(registry, po["number"])[-1]
    # 10 more a unit: 4 on hand are re-priced (4.00), 6 gone are a price variance (6.00)
    assert lines(correction) == {INVENTORY: D(4), PPV: D(6), GRNI: D(-10)}
    inventory_equals_valuation(registry)


def test_making_moves_materials_through_work_in_progress(registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"M1": ("10", "3")})
    given.recipe("P1", {"M1": "2"})
    mo = apply(registry, "create_manufacturing_order", sku="P1", quantity="2",
               location="MAIN")
    apply(registry, "complete_manufacturing_order", number=mo["number"])
    made = lines(entries(registry, mo["number"])[-1])
    assert made[FINISHED] == D(12)
    assert made[INVENTORY] == D(-12)
    assert made.get(WIP, D(0)) == D(0)  # in and out of work in progress in one entry
    inventory_equals_valuation(registry)


def test_every_entry_balances_and_the_beancount_export_checks(registry: Registry,
                                                              given: Given) -> None:
    test_a_receipt_a_shipment_and_an_adjustment_post_what_an_accountant_expects(registry, given)
    for e in entries(registry):
        assert sum(lines(e).values(), D(0)) == 0
    assert bean_loaded(registry)[INVENTORY] == D(25)
    csv_text = registry.invoke("export_journal", {"format": "csv"}, ADMIN)["text"]
    assert csv_text.splitlines()[0].startswith("date,entry,account,account_name,debit")
    ledger = registry.invoke("export_journal", {"format": "beancount"}, ADMIN)["text"]
    assert " balance Assets:Inventory 25 EUR" in ledger
    assert "  Assets:Inventory:1310-Inventory-Raw-Materials  50 EUR" in ledger  # the receipt


def bean_check(registry: Registry, tmp_path: Path) -> str:
    """beancount's own checker on the exported ledger: it balances every transaction and
    holds each Inventory account to the valuation at every month end."""
    ledger = registry.invoke("export_journal", {"format": "beancount"}, ADMIN)["text"]
    path = tmp_path / "books.beancount"
    path.write_text(ledger)
    exe = shutil.which("bean-check", path=str(Path(sys.executable).parent))
    assert exe is not None, "beancount is a dev dependency: pip install -e '.[dev]'"
    run = subprocess.run([exe, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return str(ledger)


def bean_loaded(registry: Registry) -> dict[str, D]:
    """beancount's loader (what `bean-check` runs, in this process: no interpreter to
    start) on the exported ledger: no error, its balance assertions included, and its
    accounts close at the trial balance's closing figures. Returns them by account code."""
    text = registry.invoke("export_journal", {"format": "beancount"}, ADMIN)["text"]
    found, errors, _ = loader.load_string(text)
    assert errors == [], [e.message for e in errors][:5]
    held: dict[str, D] = {}
    for t in found:
        for p in t.postings if isinstance(t, data.Transaction) else ():
            code = p.account.rsplit(":", 1)[-1].split("-", 1)[0]
            held[code] = held.get(code, D(0)) + p.units.number
    held = {k: v for k, v in held.items() if v}
    assert held == trial(registry)
    return held


def test_the_demo_companys_month_passes_bean_check(registry: Registry, tmp_path: Path) -> None:
    demo.load(registry, ADMIN)
    so = registry.invoke("list_sales_orders", {}, ADMIN)["orders"]
    for order in so[:2]:
        with contextlib.suppress(ShopfloorError):  # one short of stock: the others ship
            apply(registry, "fulfill_order", number=order["number"])
    for e in entries(registry):
        assert sum(lines(e).values(), D(0)) == 0, e
    inventory_equals_valuation(registry)
    ledger = bean_check(registry, tmp_path)
    assert ledger.count(" balance Assets:Inventory ") >= 1


def test_a_database_from_before_the_journal_gets_the_same_entries_on_open(
        registry: Registry, given: Given) -> None:
    test_a_price_correction_capitalises_what_is_on_hand_and_expenses_the_rest(registry, given)
    received = given.stock({"M2": ("2", "7")}, reason="found")
    revert(registry, received)
    live = [(lines(e), e["document_number"], e["reverses"]) for e in entries(registry)]
    before = trial(registry)
    with registry.store.writing() as s:
        s.execute(delete(JournalLine))
        s.execute(delete(JournalEntry))
        s.commit()
    post_history(registry.store, registry.clock)
    assert [(lines(e), e["document_number"], e["reverses"]) for e in entries(registry)] == live
    assert trial(registry) == before


def test_the_stock_accounts_read_back_as_set(registry: Registry) -> None:
    before = {(a["role"], a["item_kind"]): a["code"]
              for a in registry.invoke("get_stock_accounts", {}, ADMIN)["accounts"]}
    assert before[("cogs", None)] == COGS and before[("inventory", "product")] == FINISHED
    apply(registry, "set_stock_accounts",
          accounts=[{"role": "cogs", "code": "6000", "name": "Cost of sales"}])
    after = {(a["role"], a["item_kind"]): (a["code"], a["name"])
             for a in registry.invoke("get_stock_accounts", {}, ADMIN)["accounts"]}
    assert after[("cogs", None)] == ("6000", "Cost of sales")


def test_lines_are_in_cents_and_what_rounding_leaves_goes_to_the_rounding_account(
        registry: Registry, given: Given, tmp_path: Path) -> None:
    given.company()
    po = given.po({"M1": ("1", "1")})["number"]
    apply(registry, "receive_purchase_order", number=po)
    given.stock({"M1": ("2", "1")})
    so = given.so({"M1": ("1", "5")})
    apply(registry, "fulfill_order", number=so["number"])
    apply(registry, "create_stock_transfer", from_location="MAIN", to_location="SHOP",
          lines=[{"sku": "M1", "quantity": "1"}])
    apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="2")
    # 1.00 more on the receipt's unit, which shared the shelf with 2 others: a third left
    # with the shipment (0.333333, a variance), a third went to SHOP with the transfer and
    # a third stays at MAIN (0.333333 or 4 each, the value 1.00 to the millionth). In
    # cents each stock line is its place's step 1.00 -> 1.33 (0.33 twice), the variance
    # 0.33, GRNI -1.00: the 0.01 they leave over is rounding
    assert lines(entries(registry, po)[-1]) == {INVENTORY: D("0.66"), PPV: D("0.33"),
                                                ROUNDING: D("0.01"), GRNI: D(-1)}
    exact = D(registry.invoke("get_stock_valuation", {}, ADMIN)["total"]["value"])
    assert exact == D("2.666667")
    # the Inventory account holds each place's value to the cent: 1.33 + 1.33
    assert trial(registry)[INVENTORY] == D("2.66") == valuation_in_cents(registry)
    inventory_equals_valuation(registry)
    so = given.so({"M1": ("1", "5")})
    apply(registry, "fulfill_order", number=so["number"])
    # the last unit at MAIN leaves at its 1.333333 or 4: 1.33 either way, MAIN's 1.33 gone
    assert lines(entries(registry, so["number"])[-1]) == {COGS: D("1.33"),
                                                         INVENTORY: D("-1.33")}
    inventory_equals_valuation(registry)
    assert "balance Assets:Inventory 1.33 EUR" in bean_check(registry, tmp_path)


def test_a_cursor_that_is_not_one_of_ours_is_a_coded_error_naming_it(registry: Registry) -> None:
    """`'²'.isdigit()` is true and `int('²')` raises: a digit test alone let a superscript
    through to an internal error."""
    for tool in ("list_journal_entries", "list_supplier_bills"):
        for cursor in ("²", "1²", "①", "-1", "x", "9" * 19):
            try:
                registry.invoke(tool, {"cursor": cursor}, ADMIN)
            except ShopfloorError as e:
                assert (e.code, e.field) == ("validation_error", "cursor"), (tool, cursor, e)
            else:
                raise AssertionError(f"{tool} took cursor {cursor!r}")
