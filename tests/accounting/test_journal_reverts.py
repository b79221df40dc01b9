"""The stock's journal lines equal the ledger by construction (issue 31), through the
sequence the books' machine once flagged on PostgreSQL: a receipt re-priced after all its
goods were gone (only a variance, no ledger row), a shipment, a price and a quantity
correction, a customer return (bringing back its shipment's share of the re-pricing),
then every write reverted newest first. Each entry is hand-computed; after every step
each item's stock lines hold its ledger's value, and the unwinding leaves every account
at zero. Plain stock, and stock below zero."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal as D
from typing import Any

import pytest

from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import entries, lines
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches

STOCK, GRNI, COGS, ADJ, PPV = "1310", "2110", "5000", "5100", "5200"
ROUNDING = "7990"

# 10 @ 5 in; all 10 scrapped at 5; the price corrected to 6: the 10.00 is the scrap's
# (a variance, no ledger row); 10 @ 8 in
PLAIN = ({STOCK: D(50), GRNI: D(-50)}, {ADJ: D(50), STOCK: D(-50)},
         {PPV: D(10), GRNI: D(-10)}, {STOCK: D(80), GRNI: D(-80)})
# 13 scrapped of 10: the 3 short leave at 5 too (65); 10 @ 8 arriving onto -3 worth -15
# re-price those 3 to 8: 9.00 is the shortage's variance, 71 reaches the stock
BELOW_ZERO = ({STOCK: D(50), GRNI: D(-50)}, {ADJ: D(65), STOCK: D(-65)},
              {PPV: D(10), GRNI: D(-10)}, {STOCK: D(71), ADJ: D(9), GRNI: D(-80)})


def _step(reg: Registry, tool: str, **args: Any) -> tuple[str, dict[str, D]]:
    done = apply(reg, tool, **args)
    assert ledger_mismatches(reg) == []  # the journal's stock lines included
    return str(done["operation_id"]), lines(entries(reg)[-1])


@pytest.mark.parametrize("negative", [False, True], ids=["plain", "below_zero"])
def test_the_flagged_sequence_keeps_the_stock_lines_on_the_ledger(registry: Registry, given: Given,
                                                                   negative: bool) -> None:
    given.company(negative=negative)
    first, scrapped, repriced, second = BELOW_ZERO if negative else PLAIN
    given.po({"M1": ("10", "5")})
    given.po({"M1": ("10", "8")})
    given.so({"M1": ("4", "20")})
    ops = []
    for tool, args, expected in [
        ("receive_purchase_order", {"number": "PO-00001"}, first),
        ("create_stock_adjustment", {"location": "MAIN", "reason": "scrap", "lines": [
            {"sku": "M1", "quantity_delta": "-13" if negative else "-10"}]}, scrapped),
        ("correct_purchase_receipt", {"number": "PO-00001", "sku": "M1", "unit_price": "6"},
         repriced),
        ("receive_purchase_order", {"number": "PO-00002"}, second),
        # 4 shipped at 8
        ("fulfill_order", {"number": "SO-00001"}, {COGS: D(32), STOCK: D(-32)}),
        # 1.00 more a unit on 10: plain, 6 on hand take 6.00 and the 4 shipped 4.00; below
        # zero, 7 were held when 4 shipped: 10 x 4/7 left with them, 10 x 3/7 stays (in
        # cents: 4.285714 and 5.714286 are 4.29 and 5.71, leaving no rounding)
        ("correct_purchase_receipt", {"number": "PO-00002", "sku": "M1", "unit_price": "9"},
         {STOCK: D("4.29"), PPV: D("5.71"), GRNI: D(-10)} if negative else
         {STOCK: D(6), PPV: D(4), GRNI: D(-10)}),
        # 2 fewer received: they leave at the receipt's corrected 9
        ("correct_purchase_receipt", {"number": "PO-00002", "sku": "M1", "quantity": "8"},
         {GRNI: D(18), STOCK: D(-18)}),
        # 1 back from the customer at the 8 it left with and the share of the re-pricing
        # its shipment took, back off the price variance: plain 4.00 / 4, below zero
        # 5.714286 / 4 = 1.428572 (1.43; the stock's step in cents from MAIN's value to
        # the millionth is 9.42, the cent between them rounding)
        ("create_customer_return", {"number": "SO-00001", "reason": "back",
                                    "lines": [{"sku": "M1", "quantity": "1"}]},
         {STOCK: D("9.42"), COGS: D(-8), PPV: D("-1.43"), ROUNDING: D("0.01")} if negative
         else {STOCK: D(9), COGS: D(-8), PPV: D(-1)}),
    ]:
        operation_id, posted = _step(registry, tool, **args)
        assert posted == expected, (tool, posted)
        ops.append((operation_id, expected))
    for operation_id, expected in reversed(ops):
        _, posted = _step(registry, "revert_operation", operation_id=operation_id)
        assert posted == {k: -v for k, v in expected.items()}
        assert entries(registry)[-1]["reverses"] == operation_id
    closing = registry.invoke("get_trial_balance", {}, ADMIN)["rows"]
    assert {r["account"]: D(r["closing"]) for r in closing if D(r["closing"])} == {}



def test_a_revert_onto_stock_below_zero_negates_its_rows_exactly(registry: Registry,
                                                                 given: Given) -> None:
    """The root of the drift: a shipment reverted onto stock below zero came back
    re-priced as incoming stock (66 on stock, a variance of -6), not as the negation of
    the row it reverses; the journal then negated the original entry (60 on stock) and
    drifted from the ledger by the difference. A revert's rows are exact negations now
    (as `Posting.undo` always said), and the journal posts the revert's own rows."""
    given.company(negative=True)
    for price in ("5", "8"):
        apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
              lines=[{"sku": "M1", "quantity": "10", "unit_price": price}])
    for qty in ("12", "10"):
        apply(registry, "create_sales_order", customer="Bob", location="MAIN",
              lines=[{"sku": "M1", "quantity": qty, "unit_price": "20"}])
    steps = [
        ("receive_purchase_order", "PO-00001", {STOCK: D(50), GRNI: D(-50)}),
        # 12 of 10 leave: the 2 short at the average 5 too; -2 worth -10 stay
        ("fulfill_order", "SO-00001", {COGS: D(60), STOCK: D(-60)}),
        # 10 @ 8 onto -2 worth -10: 8 worth 64 stay, the 2 short re-priced (6.00)
        ("receive_purchase_order", "PO-00002", {STOCK: D(74), ADJ: D(6), GRNI: D(-80)}),
        # 10 of 8 leave at 8: -2 worth -16 stay
        ("fulfill_order", "SO-00002", {COGS: D(80), STOCK: D(-80)}),
    ]
    done = {}
    for tool, number, expected in steps:
        done[number], posted = _step(registry, tool, number=number)
        assert posted == expected, (number, posted)
    # SO-00001's 12 come back worth exactly the 60 they left with: 10 worth 44 stay
    _, posted = _step(registry, "revert_operation", operation_id=done["SO-00001"])
    assert posted == {STOCK: D(60), COGS: D(-60)}
    (b,) = registry.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    assert (D(b["on_hand"]), D(b["average_cost"])) == (10, D("4.4"))


def test_reverting_newest_first_puts_stock_below_zero_back_exactly(registry: Registry,
                                                                   given: Given) -> None:
    """The books' machine's unwinding, refused: 2 of 3 worth 10.00 transferred onto -17
    worth 0 arrive worth 6.666667 (3.3333335 each); the 15 short are re-priced at that to
    -50.000002 (rounded half-even, once), and 1 leaving below zero goes at the stored
    average 3.333333. Reverting that transfer re-priced its unit as incoming stock (-15
    worth -49.999995), so reverting the first one left -17 worth 0.000007 and was refused;
    exact negations go back."""
    given.company(negative=True)
    for price, qty in (("3.34", "1"), ("3.33", "2")):
        po = apply(registry, "create_purchase_order", supplier="Acme", location="SHOP",
                   lines=[{"sku": "M1", "quantity": qty, "unit_price": price}])
        apply(registry, "receive_purchase_order", number=po["number"])
    ops = [apply(registry, "create_stock_adjustment", location="MAIN", reason="count",
                 lines=[{"sku": "M1", "quantity_delta": "-17"}])["operation_id"]]
    for src, dst, qty in (("SHOP", "MAIN", "2"), ("MAIN", "SHOP", "1")):
        ops.append(_step(registry, "create_stock_transfer", from_location=src,
                         to_location=dst, lines=[{"sku": "M1", "quantity": qty}])[0])
    (b,) = registry.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    assert (D(b["on_hand"]), D(b["average_cost"])) == (-16, D("3.333333"))
    for operation_id in reversed(ops):
        _step(registry, "revert_operation", operation_id=operation_id)
    (b,) = registry.invoke("get_stock", {"sku": "M1", "location": "MAIN"}, ADMIN)["balances"]
    assert (D(b["on_hand"]), D(b["average_cost"])) == (0, 0)
    closing = registry.invoke("get_trial_balance", {}, ADMIN)["rows"]
    assert {r["account"]: D(r["closing"]) for r in closing if D(r["closing"])} == {
        STOCK: D(10), GRNI: D(-10)}  # SHOP's 3 worth 10.00, all back


def test_a_periods_trial_balance_opens_with_what_came_before(registry: Registry,
                                                             given: Given) -> None:
    """Two range sums, before the period and within it: what was posted before a period
    is its opening, what is posted in it its debits and credits."""
    given.company()
    given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number="PO-00001")
    today = datetime.now(UTC).date()

    def rows(**period: str) -> dict[str, tuple[D, D, D, D]]:
        tb = registry.invoke("get_trial_balance", period, ADMIN)
        return {r["account"]: (D(r["opening"]), D(r["debit"]), D(r["credit"]),
                               D(r["closing"])) for r in tb["rows"]}

    assert rows(start=str(today), end=str(today)) == {
        STOCK: (D(0), D(50), D(0), D(50)), GRNI: (D(0), D(0), D(50), D(-50))}
    later = str(today + timedelta(days=1))
    assert rows(start=later, end=later) == {
        STOCK: (D(50), D(0), D(0), D(50)), GRNI: (D(-50), D(0), D(0), D(-50))}
    earlier = str(today - timedelta(days=1))
    assert rows(end=earlier) == {}
