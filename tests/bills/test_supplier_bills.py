"""Issue 31: a supplier's bill matched three ways (ordered, received, billed) clears goods
received not invoiced into accounts payable, posts a price difference within the
supplier's tolerance as a price correction, holds one beyond it for a buyer, lands its
charges on the goods, and reverts exactly; on both databases, with hand-computed
entries."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import (
    bean_check,
    entries,
    inventory_equals_valuation,
    lines,
    trial,
)
from tests.corrections.test_revert import revert
from tests.given import Given
from tests.helpers import ADMIN, apply

INVENTORY, GRNI, PAYABLE, PPV, EXCHANGE, CLEARING = "1310", "2110", "2000", "5200", "7900", \
    "2120"
CLERK = Actor.of("clerk", "operator")
BUYER = Actor.of("buyer", "admin")


def received(reg: Registry, sku: str, qty: str, price: str, supplier: str = "Acme") -> str:
    po = apply(reg, "create_purchase_order", supplier=supplier, location="MAIN",
               lines=[{"sku": sku, "quantity": qty, "unit_price": price}])
    apply(reg, "receive_purchase_order", number=po["number"])
    return str(po["number"])


def bill(reg: Registry, number: str, rows: list[tuple[str, str, str, str]],
         actor: Actor = ADMIN, **extra: Any) -> dict[str, Any]:
    args = {"supplier": "Acme", "number": number, "date": "2026-03-02",
            "lines": [{"order": o, "sku": s, "quantity": q, "unit_price": p}
                      for o, s, q, p in rows]}
    args.update(extra)
    return apply(reg, "create_supplier_bill", actor, **args)


def unbilled(reg: Registry, **args: Any) -> dict[str, Any]:
    out: dict[str, Any] = reg.invoke("list_unbilled_receipts", args, ADMIN)
    return out


def grni_holds_what_is_unbilled(reg: Registry) -> None:
    """GRNI's balance is what the order lines hold received, not returned and not billed,
    at the value the receipts booked it at."""
    assert -trial(reg).get(GRNI, D(0)) == D(unbilled(reg)["value"])


def books_hold(reg: Registry) -> None:
    """What a bill's test ends on: GRNI holds what is unbilled, and the stock's accounts
    the stock's valuation."""
    grni_holds_what_is_unbilled(reg)
    inventory_equals_valuation(reg)


def _dollars_received(reg: Registry, given: Given, billed_at: str) -> str:
    """10 M1 at 2 USD from Wires Inc, received today at 0.90 (18.00 EUR); from 2999, when
    its bills are dated, the dollar is at `billed_at`."""
    given.company()
    given.supplier("Wires Inc", currency="USD")
    apply(reg, "set_exchange_rate", currency="USD", rate="0.9", valid_from="2000-01-01")
    apply(reg, "set_exchange_rate", currency="USD", rate=billed_at, valid_from="2999-01-01")
    return received(reg, "M1", "10", "2", supplier="Wires Inc")


def test_a_dollar_bill_at_another_rate_posts_its_exchange_difference(
        registry: Registry, given: Given) -> None:
    po = _dollars_received(registry, given, billed_at="0.95")
    # received today at 0.90: 10 x 2 USD = 18.00 EUR
    assert lines(entries(registry, po)[0]) == {INVENTORY: D(18), GRNI: D(-18)}
    assert unbilled(registry)["value"] == "18"
    done = apply(registry, "create_supplier_bill", supplier="Wires Inc", number="W-77",
                 date="2999-01-05", due_date="2999-02-04",
                 lines=[{"order": po, "sku": "M1", "quantity": "10", "unit_price": "2"}])
    assert (done["currency"], done["rate"], done["amount"]) == ("USD", "0.95", "20")
    # billed at 0.95: payable 19.00; GRNI cleared at the receipt's 18.00; 1.00 exchange
    (entry,) = entries(registry, done["bill"])
    assert lines(entry) == {GRNI: D(18), EXCHANGE: D(1), PAYABLE: D(-19)}
    assert entry["posted_at"].startswith("2999-01-05")
    assert trial(registry) == {INVENTORY: D(18), PAYABLE: D(-19), EXCHANGE: D(1)}
    assert unbilled(registry)["rows"] == []
    grni_holds_what_is_unbilled(registry)
    csv = registry.invoke("export_journal", {"format": "csv"}, ADMIN)["text"]
    payable = [r for r in csv.splitlines() if r.split(",")[2] == PAYABLE]
    assert payable and "Wires Inc" in payable[0] and done["bill"] in payable[0]


def test_a_price_within_tolerance_re_prices_what_is_on_hand_and_expenses_the_rest(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_supplier", supplier="Acme", bill_tolerance_percent="5")
    po = received(registry, "M1", "10", "4")
    so = given.so({"M1": ("6", "9")})
    apply(registry, "fulfill_order", number=so["number"])
    shown = registry.invoke("create_supplier_bill", {
        "supplier": "Acme", "number": "A-1", "date": "2026-03-02",
        "lines": [{"order": po, "sku": "M1", "quantity": "10", "unit_price": "4.2"}]}, ADMIN)
    assert shown["warnings"] == []  # 5 % of 4 is 0.20: within
    done = bill(registry, "A-1", [(po, "M1", "10", "4.2")])
    # 0.20 more a unit: 4 on hand re-priced (0.80), 6 gone a price variance (1.20)
    correction = entries(registry, po)[-1]
    assert lines(correction) == {INVENTORY: D("0.8"), PPV: D("1.2"), GRNI: D(-2)}
    (entry,) = entries(registry, done["bill"])
    assert lines(entry) == {GRNI: D(42), PAYABLE: D(-42)}
    (line,) = done["lines"]
    assert (line["repriced"], line["capitalised"], line["grni"]) == ("2", "0.8", "42")
    order = registry.invoke("get_purchase_order", {"number": po}, ADMIN)
    assert order["lines"][0]["unit_price"] == "4.2"
    assert GRNI not in trial(registry)
    books_hold(registry)


def test_a_price_beyond_tolerance_is_held_for_a_buyer_then_approved(
        registry: Registry, given: Given) -> None:
    given.company()
    po = received(registry, "M1", "5", "10")
    args = {"supplier": "Acme", "number": "A-9", "date": "2026-03-02",
            "lines": [{"order": po, "sku": "M1", "quantity": "5", "unit_price": "11"}]}
    shown = registry.invoke("create_supplier_bill", args, CLERK)
    (why,) = shown["warnings"]
    assert (why["code"], why["field"], why["blocking"]) == (
        "held_for_approval", "lines[0].unit_price", False)
    assert "ordered at 10" in why["message"] and "tolerance of 0 %" in why["message"]
    held = registry.invoke("create_supplier_bill", {**args, "preview": False}, CLERK)
    assert held["proposed"] is True and held["applied"] is False
    assert registry.invoke("list_supplier_bills", {}, ADMIN)["bills"] == []
    assert trial(registry) == {INVENTORY: D(50), GRNI: D(-50)}
    with pytest.raises(ShopfloorError) as info:  # never by the one who entered it
        registry.invoke("approve_proposal", {"proposal_id": held["proposal_id"],
                                             "preview": False}, CLERK)
    assert info.value.code == "forbidden"
    done = registry.invoke("approve_proposal", {"proposal_id": held["proposal_id"],
                                                "preview": False}, BUYER)
    assert done["applied"] is True
    (row,) = registry.invoke("list_supplier_bills", {}, ADMIN)["bills"]
    assert (row["number"], row["amount"]) == ("A-9", "55")
    # 1.00 more on each of 5 on hand: Inventory 55, GRNI cleared at 55, payable 55
    assert trial(registry) == {INVENTORY: D(55), PAYABLE: D(-55)}
    books_hold(registry)


def test_a_bill_number_repeated_for_a_supplier_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "create_supplier", name="Other")
    po = received(registry, "M1", "10", "1")
    other = received(registry, "M2", "10", "1", supplier="Other")
    first = bill(registry, "INV-1", [(po, "M1", "4", "1")])
    with pytest.raises(ShopfloorError) as info:
        bill(registry, "INV-1", [(po, "M1", "4", "1")])
    assert (info.value.code, info.value.field) == ("conflict", "number")
    assert first["bill"] in info.value.message
    # another supplier's INV-1 is another bill; a reverted one may be entered again
    bill(registry, "INV-1", [(other, "M2", "10", "1")], supplier="Other")
    revert(registry, first)
    again = bill(registry, "INV-1", [(po, "M1", "4", "1")])
    assert again["bill"] != first["bill"]


def test_billing_more_than_came_in_and_stayed_is_refused(registry: Registry, given: Given) -> None:
    given.company()
    po = received(registry, "M1", "10", "1")
    apply(registry, "create_supplier_return", number=po, reason="damaged",
          lines=[{"sku": "M1", "quantity": "2"}])
    bill(registry, "B-1", [(po, "M1", "5", "1")])
    with pytest.raises(ShopfloorError) as info:
        bill(registry, "B-2", [(po, "M1", "4", "1")])
    assert (info.value.code, info.value.field) == ("conflict", "lines[0].quantity")
    assert "3 to bill" in info.value.message
    bill(registry, "B-2", [(po, "M1", "3", "1")])
    assert unbilled(registry)["rows"] == []
    assert GRNI not in trial(registry)


def test_a_freight_charge_on_the_bill_lands_by_weight(registry: Registry, given: Given,
                                                     tmp_path: Path) -> None:
    given.company()
    apply(registry, "modify_item", sku="M1", weight="2")
    apply(registry, "modify_item", sku="M2", weight="1")
    po = given.po({"M1": ("10", "1"), "M2": ("10", "1")})["number"]
    apply(registry, "receive_purchase_order", number=po)
    done = bill(registry, "F-1", [(po, "M1", "10", "1"), (po, "M2", "10", "1")],
                charges=[{"order": po, "description": "freight", "amount": "30",
                          "allocate_by": "weight"}])
    (charge,) = done["charges"]
    landed = registry.invoke("list_landed_costs", {"number": po}, ADMIN)
    shares = {ln["sku"]: ln["share"] for ln in landed["landed_costs"][0]["lines"]}
    assert shares == {"M1": "20", "M2": "10"}  # 20 kg and 10 kg
    assert (charge["landed_cost"], charge["company_amount"]) == (
        landed["landed_costs"][0]["number"], "30")
    (entry,) = entries(registry, done["bill"])
    assert lines(entry) == {GRNI: D(20), CLEARING: D(30), PAYABLE: D(-50)}
    assert trial(registry) == {INVENTORY: D(50), PAYABLE: D(-50)}
    inventory_equals_valuation(registry)
    assert "Liabilities:2000-Accounts-Payable" in bean_check(registry, tmp_path)


def test_reverting_a_bill_undoes_its_entry_its_price_correction_and_its_charge(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_supplier", supplier="Acme", bill_tolerance_amount="10")
    po = received(registry, "M1", "10", "4")
    before = trial(registry)
    done = bill(registry, "R-1", [(po, "M1", "10", "4.5")],
                charges=[{"order": po, "description": "freight", "amount": "5"}])
    # 0.50 more on 10 on hand (5.00) and 5.00 freight: Inventory 50; payable 50
    assert trial(registry) == {INVENTORY: D(50), PAYABLE: D(-50)}
    revert(registry, done)
    assert trial(registry) == before
    got = registry.invoke("get_supplier_bill", {"bill": done["bill"]}, ADMIN)
    assert got["reverted"] is True
    order = registry.invoke("get_purchase_order", {"number": po}, ADMIN)
    assert order["lines"][0]["unit_price"] == "4"
    assert unbilled(registry)["rows"][0]["unbilled"] == "10"
    books_hold(registry)


def test_grni_equals_received_less_returned_less_billed_at_booked_value(
        registry: Registry, given: Given) -> None:
    given.company()
    apply(registry, "modify_supplier", supplier="Acme", bill_tolerance_percent="50")
    a = received(registry, "M1", "10", "3")
    b = received(registry, "M2", "4", "2.5")
    grni_holds_what_is_unbilled(registry)  # 30 + 10
    bill(registry, "G-1", [(a, "M1", "6", "3")], date="2999-01-05")
    grni_holds_what_is_unbilled(registry)  # 4 x 3 + 10 = 22
    apply(registry, "create_supplier_return", number=a, reason="bent",
          lines=[{"sku": "M1", "quantity": "1"}])
    # re-prices all 4 received (none billed yet): +1.00
    bill(registry, "G-2", [(b, "M2", "2", "2.75")], date="2999-01-05")
    rows = {r["sku"]: r for r in unbilled(registry)["rows"]}
    assert (rows["M1"]["unbilled"], rows["M1"]["value"]) == ("3", "9")
    assert (rows["M2"]["unbilled"], rows["M2"]["value"]) == ("2", "5.5")
    assert trial(registry)[GRNI] == D("-14.5")
    grni_holds_what_is_unbilled(registry)
    today = datetime.now(UTC).date().isoformat()
    as_at = unbilled(registry, date=today)  # before the bills' date: none billed yet
    assert {r["sku"]: (r["billed"], r["unbilled"]) for r in as_at["rows"]} == {
        "M1": ("0", "9"), "M2": ("0", "4")}
    inventory_equals_valuation(registry)


def test_billed_goods_stay_received_until_the_bill_is_reverted(registry: Registry,
                                                               given: Given) -> None:
    given.company()
    po = given.po({"M1": ("10", "1")})
    got = apply(registry, "receive_purchase_order", number=po["number"])
    done = bill(registry, "S-1", [(po["number"], "M1", "8", "1")])
    with pytest.raises(ShopfloorError) as info:
        revert(registry, got)
    assert info.value.code == "conflict" and "revert the supplier's bill" in info.value.message
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "correct_purchase_receipt", number=po["number"], sku="M1",
              quantity="7")
    assert (info.value.code, info.value.field) == ("conflict", "quantity")
    fewer = apply(registry, "correct_purchase_receipt", number=po["number"], sku="M1",
                  quantity="8")  # down to what is billed is fine
    revert(registry, done)
    revert(registry, fewer)
    revert(registry, got)
    assert trial(registry) == {}


def test_a_second_bill_re_prices_only_what_is_not_billed_yet(registry: Registry,
                                                             given: Given) -> None:
    given.company()
    apply(registry, "modify_supplier", supplier="Acme", bill_tolerance_percent="50")
    po = received(registry, "M1", "10", "4")
    bill(registry, "P-1", [(po, "M1", "4", "4.2")])  # all 10 re-priced: +2.00
    assert trial(registry) == {INVENTORY: D(42), GRNI: D("-25.2"), PAYABLE: D("-16.8")}
    done = bill(registry, "P-2", [(po, "M1", "6", "4.5")])  # the 6 unbilled: +1.80
    assert done["lines"][0]["repriced"] == "1.8"
    assert trial(registry) == {INVENTORY: D("43.8"), PAYABLE: D("-43.8")}
    with pytest.raises(ShopfloorError) as info:  # billed goods are at the bills' prices
        apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="5")
    assert (info.value.code, info.value.field) == ("conflict", "unit_price")
    books_hold(registry)


def test_a_bill_dated_in_a_locked_period_is_refused_naming_its_date(
        registry: Registry, given: Given) -> None:
    given.company()
    po = received(registry, "M1", "10", "1")
    apply(registry, "set_lock_date", lock_date="2026-03-31", reason="Q1 closed")
    with pytest.raises(ShopfloorError) as info:
        bill(registry, "INV-9", [(po, "M1", "4", "1")])  # dated 2026-03-02
    assert (info.value.code, info.value.field) == ("period_locked", "date")
    assert "2026-03-31" in info.value.message
    done = bill(registry, "INV-9", [(po, "M1", "4", "1")], date="2026-04-01")
    assert done["bill"].startswith("BILL-")


def test_a_price_corrected_after_a_return_leaves_grni_at_what_stayed(
        registry: Registry, given: Given) -> None:
    """10 received at 4, 2 sent back, the price then corrected to 5: the 2 returned are
    the supplier's at the new price too, so GRNI owes 8 x 5 = 40 (it read 42: the
    returned units' difference went to price variance and GRNI both)."""
    given.company()
    po = received(registry, "M1", "10", "4")
    apply(registry, "create_supplier_return", number=po, reason="bent",
          lines=[{"sku": "M1", "quantity": "2"}])
    apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="5")
    assert trial(registry)[GRNI] == D("-40")
    assert trial(registry).get(PPV, D(0)) == D(0)
    assert trial(registry)[INVENTORY] == D("40")
    books_hold(registry)


def test_the_journal_csv_will_not_run_a_suppliers_name_as_a_formula(
        registry: Registry, given: Given) -> None:
    import csv
    import io

    given.company()
    evil = "=HYPERLINK(\"http://x\",\"pay\")"
    apply(registry, "create_supplier", name=evil)
    po = received(registry, "M1", "2", "1", supplier=evil)
    bill(registry, "E-1", [(po, "M1", "2", "1")], supplier=evil)
    text = registry.invoke("export_journal", {"format": "csv"}, ADMIN)["text"]
    rows = list(csv.DictReader(io.StringIO(text)))
    partners = {r["partner"] for r in rows if r["document_type"] == "supplier_bill"}
    assert partners == {"'" + evil}
    assert not any(v.startswith(("=", "+", "@")) for r in rows for v in r.values())


def _over_its_receipt_with_freight(reg: Registry, given: Given, number: str,
                                   received_at: tuple[str, str], shipped: str, billed_at: str,
                                   freight: str) -> tuple[str, dict[str, Any]]:
    """M1 received (quantity, price), `shipped` of it shipped, then billed at a price above
    the receipt's (within Acme's tolerance) with a freight charge on the order: the bill
    re-prices what was received and lands the freight on it."""
    given.company()
    apply(reg, "modify_supplier", supplier="Acme", bill_tolerance_amount="10")
    po = received(reg, "M1", *received_at)
    given.so({"M1": (shipped, "9")}, fulfil=True)
    return po, bill(reg, number, [(po, "M1", received_at[0], billed_at)],
                    charges=[{"order": po, "description": "freight", "amount": freight}])


def _reverted_back(reg: Registry, done: dict[str, Any], po: str,
                   back: dict[str, D]) -> None:
    """The bill reverted: the order's last entry books `back`, and nothing is left in
    clearing, GRNI or the stock's accounts that the documents do not hold."""
    revert(reg, done)
    assert lines(entries(reg, po)[-1]) == back
    assert CLEARING not in trial(reg)
    books_hold(reg)


def test_a_reverted_bill_books_each_row_back_against_its_own_account(
        registry: Registry, given: Given) -> None:
    po, done = _over_its_receipt_with_freight(registry, given, "P-1", ("10", "4"), "6", "4.5",
                                              "5")
    # 0.50 more on 10: 4 on hand (2.00), 6 shipped (3.00); the 5.00 freight by value alike
    correction, charge = entries(registry, po)[-2:]
    assert lines(correction) == {INVENTORY: D(2), PPV: D(3), GRNI: D(-5)}
    assert lines(charge) == {INVENTORY: D(2), PPV: D(3), CLEARING: D(-5)}
    (entry,) = entries(registry, done["bill"])
    assert lines(entry) == {GRNI: D(45), CLEARING: D(5), PAYABLE: D(-50)}
    # each re-pricing row and share goes back to the account it came from: the price
    # correction's to GRNI, the charge's to Landed costs clearing
    _reverted_back(registry, done, po, {INVENTORY: D(-4), PPV: D(-6), GRNI: D(5),
                                        CLEARING: D(5)})
    assert lines(entries(registry, done["bill"])[-1]) == {GRNI: D(-45), CLEARING: D(-5),
                                                          PAYABLE: D(50)}


def test_a_dollar_charge_on_a_bill_lands_at_the_bills_rate_leaving_no_exchange(
        registry: Registry, given: Given) -> None:
    po = _dollars_received(registry, given, billed_at="0.8")  # 18.00 EUR at 0.90
    done = apply(registry, "create_supplier_bill", supplier="Wires Inc", number="W-9",
                 date="2999-01-05",
                 lines=[{"order": po, "sku": "M1", "quantity": "10", "unit_price": "2"}],
                 charges=[{"order": po, "description": "freight", "amount": "5"}])
    # billed at 0.80: goods 16.00 against GRNI's 18.00 (2.00 exchange gain); the freight
    # lands at the bill's 0.80 as 4.00 and is payable at 4.00: no exchange on it
    assert done["charges"][0]["company_amount"] == "4"
    (entry,) = entries(registry, done["bill"])
    assert lines(entry) == {GRNI: D(18), CLEARING: D(4), EXCHANGE: D(-2), PAYABLE: D(-20)}
    assert trial(registry) == {INVENTORY: D(22), PAYABLE: D(-20), EXCHANGE: D(-2)}
    inventory_equals_valuation(registry)


def test_a_reverted_bill_finds_its_charges_rows_by_their_cents(registry: Registry,
                                                               given: Given) -> None:
    po, done = _over_its_receipt_with_freight(registry, given, "C-1", ("3", "1"), "1", "1.1",
                                              "1")
    # 0.10 more on 3: 0.20 on hand, 0.10 shipped; the 1.00 freight: 0.666667 on hand,
    # 0.333333 shipped, in cents the stock's step 2.20 -> 2.866667 (0.67) and 0.33
    correction, charge = entries(registry, po)[-2:]
    assert lines(correction) == {INVENTORY: D("0.2"), PPV: D("0.1"), GRNI: D("-0.3")}
    assert lines(charge) == {INVENTORY: D("0.67"), PPV: D("0.33"), CLEARING: D(-1)}
    # the 0.666667 row is the charge's (its line 0.67), the 0.20 the correction's: the
    # stock's step back 2.866667 -> 2.00 (-0.87), the shares -0.433333 (-0.43)
    _reverted_back(registry, done, po, {INVENTORY: D("-0.87"), PPV: D("-0.43"),
                                        GRNI: D("0.3"), CLEARING: D(1)})
