"""Reverts undo every value row (issue 30, defect 1): a revert negates each ledger row,
revaluation and variance its operation wrote, variances included when it wrote no ledger
row, or is refused naming its blockers; reverting a sequence of writes newest first puts
every table of money back as it read before them, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.machines import money


def _refused(reg: Registry, operation_id: str) -> str:
    with pytest.raises(ShopfloorError) as caught:
        apply(reg, "revert_operation", operation_id=operation_id)
    assert caught.value.code == "conflict", caught.value.to_payload()
    return caught.value.message


@pytest.mark.parametrize("negative", [False, True], ids=["plain", "negative_allowed"])
def test_a_reverted_correction_of_goods_all_gone_takes_its_variance_back(
        registry: Registry, given: Given, negative: bool) -> None:
    """R1: 10 @ 5 received, all 10 adjusted out, the price corrected to 6: a variance of
    10 on the adjustment and no ledger row. Its revert answers the variance; then the
    adjustment's and the receipt's reverts go through and the books read as at the start."""
    given.company(negative=negative)
    start = money(registry)
    given.po({"M1": ("10", "5")})
    placed = money(registry)
    receipt = apply(registry, "receive_purchase_order", number="PO-00001")
    out = given.stock({"M1": "-10"}, reason="scrap")
    before = money(registry)
    fix = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                unit_price="6")
    assert money(registry)["variances"] != before["variances"]  # the share that left
    # the adjustment took a share of the correction: it waits for the correction's revert
    assert "price correction made since" in _refused(registry, out["operation_id"])
    apply(registry, "revert_operation", operation_id=fix["operation_id"])
    assert money(registry) == before
    apply(registry, "revert_operation", operation_id=out["operation_id"])
    apply(registry, "revert_operation", operation_id=receipt["operation_id"])
    assert money(registry) == {**start, "prices": placed["prices"]}
    assert not ledger_mismatches(registry)


def test_a_correction_of_goods_gone_below_zero_reverts_exactly(registry: Registry,
                                                               given: Given) -> None:
    """On a location that allows negative stock: received, more than all of it shipped
    out, the price corrected, then everything reverted newest first."""
    given.company(negative=True)
    given.po({"M1": ("10", "5")})
    start = money(registry)
    done = [apply(registry, "receive_purchase_order", number="PO-00001"),
            apply(registry, "create_stock_adjustment", location="MAIN", reason="scrap",
                  lines=[{"sku": "M1", "quantity_delta": "-14"}])]
    marks = [money(registry)]
    done.append(apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                      unit_price="6.5"))
    marks.append(money(registry))
    done.append(apply(registry, "create_stock_adjustment", location="MAIN", reason="found",
                      lines=[{"sku": "M1", "quantity_delta": "7", "unit_cost": "4"}]))
    marks.append(money(registry))
    done.append(apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                      unit_price="3"))
    for op, mark in zip(reversed(done), [*reversed(marks), None, None], strict=True):
        apply(registry, "revert_operation", operation_id=op["operation_id"])
        assert not ledger_mismatches(registry)
        if mark is not None:
            assert money(registry) == mark
    assert money(registry) == start


def test_every_value_row_of_a_landed_cost_and_a_correction_comes_back(
        registry: Registry, given: Given) -> None:
    """Part of the goods still here, part gone: revaluation rows and variances both; each
    revert, newest first, gives back the money tables exactly as they read before."""
    given.company()
    given.po({"M1": ("9", "5")})
    start = money(registry)
    ops, marks = [], []
    for tool, args in [
            ("receive_purchase_order", {"number": "PO-00001"}),
            ("create_stock_adjustment", {"location": "MAIN", "reason": "scrap",
                                         "lines": [{"sku": "M1", "quantity_delta": "-4"}]}),
            ("correct_purchase_receipt", {"number": "PO-00001", "sku": "M1",
                                          "unit_price": "5.33"}),
            ("add_landed_cost", {"number": "PO-00001", "amount": "7.01",
                                 "description": "freight"}),
            ("create_stock_transfer", {"from_location": "MAIN", "to_location": "SHOP",
                                       "lines": [{"sku": "M1", "quantity": "5"}]}),
            ("correct_purchase_receipt", {"number": "PO-00001", "sku": "M1",
                                          "unit_price": "4.1"})]:
        marks.append(money(registry))
        ops.append(apply(registry, tool, **args))
    for op, mark in zip(reversed(ops), reversed(marks), strict=True):
        apply(registry, "revert_operation", operation_id=op["operation_id"])
        assert money(registry) == mark, op
    assert money(registry) == start
    assert registry.invoke("get_stock_valuation", {"start": "2000-01-01"},
                           ADMIN)["total"]["variances"] == "0"


def test_a_price_revert_waits_for_goods_moved_at_that_price_since(registry: Registry,
                                                                  given: Given) -> None:
    """More received at the corrected price after the correction: putting the old price
    back would leave those goods booked at the new one; the receipt is reverted first."""
    given.company()
    given.po({"M1": ("10", "5")})
    apply(registry, "receive_purchase_order", number="PO-00001",
          lines=[{"sku": "M1", "quantity": "6"}])
    before = money(registry)
    fix = apply(registry, "correct_purchase_receipt", number="PO-00001", sku="M1",
                unit_price="6")
    rest = apply(registry, "receive_purchase_order", number="PO-00001")
    message = _refused(registry, fix["operation_id"])
    assert "receipt 4 of M1 on purchase_order PO-00001" in message, message
    apply(registry, "revert_operation", operation_id=rest["operation_id"])
    apply(registry, "revert_operation", operation_id=fix["operation_id"])
    assert money(registry) == before
