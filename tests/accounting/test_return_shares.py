"""Issue 31: goods shipped, then re-priced (a receipt's price corrected), then returned by
the customer come back at the cost they left with plus the share of the re-pricing their
shipment took: that share was expensed (Purchase price variance) and comes back off it,
in the return's own entry. A revert of the return expenses it again; the re-pricing is
not reverted under a return that brought its share back."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.accounting.test_journal import (
    COGS,
    GRNI,
    INVENTORY,
    PPV,
    entries,
    inventory_equals_valuation,
    lines,
    trial,
)
from tests.corrections.test_revert import revert, stock
from tests.given import Given
from tests.helpers import apply, ledger_mismatches


def _shipped(reg: Registry) -> tuple[str, str]:
    """PO 10 @ 4 received, 6 of it shipped: (the order's number, the shipment's)."""
    given = Given(reg).company()
    po = given.po({"M1": ("10", "4")}, receive=True)
    so = given.so({"M1": ("6", "9")}, fulfil=True)
    return str(po["number"]), str(so["number"])


def _shipped_then_repriced(reg: Registry) -> tuple[str, str, dict[str, object]]:
    """PO 10 @ 4 received, 6 shipped (24 to COGS), the price corrected to 5: the 4 on
    hand take 4.00, the shipment's share 6.00 is a price variance."""
    po, so = _shipped(reg)
    Given(reg).location("QUAR", "Quarantine")
    corrected = apply(reg, "correct_purchase_receipt", number=po, sku="M1", unit_price="5")
    assert trial(reg) == {INVENTORY: D(20), GRNI: D(-50), COGS: D(24), PPV: D(6)}
    return po, so, corrected


def _return(reg: Registry, so: str, qty: str, disposition: str = "restock",
            **extra: str) -> dict[str, object]:
    return apply(reg, "create_customer_return", number=so, reason="wrong size",
                 lines=[{"sku": "M1", "quantity": qty, "disposition": disposition}], **extra)


def _valued(reg: Registry, location: str = "MAIN") -> tuple[D, D]:
    """(on hand, its average cost)."""
    on_hand, _, average = stock(reg, "M1", location)
    return on_hand, average


def test_a_customer_return_brings_back_the_share_its_shipment_took(
        registry: Registry) -> None:
    _, so, _ = _shipped_then_repriced(registry)
    back = _return(registry, so, "3")
    # 3 of the 6 come back at 4 + their 1.00 share each: 15 into stock, 12 off COGS,
    # the 3.00 of the price variance they took off it
    (entry,) = [e for e in entries(registry) if e["document_number"] == back["number"]]
    assert lines(entry) == {INVENTORY: D(15), COGS: D(-12), PPV: D(-3)}
    assert _valued(registry) == (D(7), D(5))
    assert trial(registry) == {INVENTORY: D(35), GRNI: D(-50), COGS: D(12), PPV: D(3)}
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)
    # the rest comes back with the rest of the share: nothing of it stays expensed
    _return(registry, so, "3")
    assert _valued(registry) == (D(10), D(5))
    assert trial(registry) == {INVENTORY: D(50), GRNI: D(-50)}
    inventory_equals_valuation(registry)


def test_quarantined_goods_bring_their_share_and_scrapped_goods_leave_it_expensed(
        registry: Registry) -> None:
    _, so, _ = _shipped_then_repriced(registry)
    apply(registry, "create_customer_return", number=so, reason="mixed",
          quarantine_location="QUAR", lines=[
              {"sku": "M1", "quantity": "2", "disposition": "quarantine"}])
    assert _valued(registry, "QUAR") == (D(2), D(5))
    _return(registry, so, "1", "scrap")  # nothing back in stock: its share stays a cost
    assert trial(registry) == {INVENTORY: D(30), GRNI: D(-50), COGS: D(16), PPV: D(4)}
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)


def test_a_reverted_return_expenses_its_share_again_and_guards_the_re_pricing(
        registry: Registry) -> None:
    _, so, corrected = _shipped_then_repriced(registry)
    before = trial(registry)
    back = _return(registry, so, "4")
    with pytest.raises(ShopfloorError) as info:  # its share came back: not the re-pricing's
        revert(registry, corrected)
    assert info.value.code == "conflict"
    assert any(str(back["number"]) in b for b in info.value.details["blockers"])
    revert(registry, back)
    (done, undone) = [e for e in entries(registry) if e["document_number"] == back["number"]]
    assert lines(undone) == {k: -v for k, v in lines(done).items()}
    assert trial(registry) == before
    revert(registry, corrected)  # and now the re-pricing goes
    assert trial(registry) == {INVENTORY: D(16), GRNI: D(-40), COGS: D(24)}
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)


def test_a_return_before_the_re_pricing_still_splits_it_by_what_stayed_shipped(
        registry: Registry) -> None:
    po, so = _shipped(registry)
    _return(registry, so, "2")
    apply(registry, "correct_purchase_receipt", number=po, sku="M1", unit_price="5")
    # 4 stayed shipped: their 4.00 is the variance; the 2 back are on hand at 5
    assert trial(registry) == {INVENTORY: D(30), GRNI: D(-50), COGS: D(16), PPV: D(4)}
    _return(registry, so, "4")  # ... and come back with it
    assert trial(registry) == {INVENTORY: D(50), GRNI: D(-50)}
    inventory_equals_valuation(registry)


def test_a_shipment_corrected_down_brings_back_its_share_as_a_return_does(
        registry: Registry) -> None:
    """Only 3 of the 6 really left: the 3 corrected back come in at 4 + their 1.00 share,
    and that share comes off the price variance, as with a return. The re-pricing is not
    reverted under the correction, which holds its share; the correction reverts exactly."""
    po, so, corrected = _shipped_then_repriced(registry)
    fix = apply(registry, "correct_shipment", number=so, sku="M1", quantity="3")
    assert _valued(registry) == (D(7), D(5))
    assert trial(registry) == {INVENTORY: D(35), GRNI: D(-50), COGS: D(12), PPV: D(3)}
    assert ledger_mismatches(registry) == []
    inventory_equals_valuation(registry)
    with pytest.raises(ShopfloorError) as refused:
        revert(registry, corrected)
    assert so in refused.value.message and "revert that first" in refused.value.message
    revert(registry, fix)
    assert _valued(registry) == (D(4), D(5))
    assert trial(registry) == {INVENTORY: D(20), GRNI: D(-50), COGS: D(24), PPV: D(6)}
    inventory_equals_valuation(registry)
    revert(registry, corrected)  # with the correction gone, the re-pricing goes
    assert trial(registry) == {INVENTORY: D(16), GRNI: D(-40), COGS: D(24)}
    assert ledger_mismatches(registry) == []
    assert po
