"""Property (issue 23): through receipts (whole and partial, in euros and dollars),
shipments, transfers, scrapping (all of it, and below zero where a location allows it),
landed costs (by value, quantity or weight, on an order or one receipt, in either
currency), price corrections (in the order's currency, of goods all gone too) and reverts
in any order, on SQLite and PostgreSQL, no value is lost or made up; reverting every write
since a mark, newest first, is never refused and gives back every table of money. After
every step: every balance equals its ledger rows exactly; the stock's value, plus what
left with shipments and scrapping, plus everything expensed (variances), equals
everything received plus every landed cost and price correction that still counts, to
the last digit; and each landed cost's lines split it exactly into capitalised and
expensed.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    initialize,
    invariant,
    precondition,
    rule,
)
from sqlalchemy import func, select

from shopfloor.kernel.numbers import cost
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, StockMovement, Variance
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.machines import LOCS, SKUS, Shelves, price, run_machine
from tests.stock.test_ledger_properties import fresh  # noqa: F401  (the fixture)

USD = Decimal("0.8")
qty = st.decimals(min_value=Decimal(1), max_value=Decimal(12), places=0)
amount = st.decimals(min_value=Decimal("0.01"), max_value=Decimal(50), places=2)


class Landed(Shelves):
    def __init__(self) -> None:
        super().__init__()
        self.given.supplier("Wires", currency="USD")
        self.given.apply("set_exchange_rate", currency="USD", rate=str(USD),
                         valid_from="2000-01-01")
        self.given.modify("M1", weight="1.25")  # M2 has none
        self.pos: list[tuple[str, Decimal]] = []  # (number, rate)
        self.partly: list[tuple[str, Decimal]] = []  # received in part so far
        self.receipts: list[str] = []
        self.booked: dict[str, Decimal] = {}  # operation -> value it brought in
        self.undone: set[str] = set()

    def wrote(self, tool: str, args: dict[str, Any], done: dict[str, Any]) -> None:
        """A revert is kept apart from the writes that still count."""
        if tool == "revert_operation":
            self.reverted(str(args["operation_id"]))
        else:
            super().wrote(tool, args, done)

    def reverted(self, operation_id: str) -> None:
        self.undone.add(operation_id)

    def _receive(self, number: str, rate: Decimal, lines: list[dict[str, str]] | None
                 ) -> None:
        po = self.reg.invoke("get_purchase_order", {"number": number}, ADMIN)
        prices = {ln["sku"]: Decimal(ln["unit_price"]) for ln in po["lines"]}
        left = {ln["sku"]: Decimal(ln["quantity"]) - Decimal(ln["done_quantity"])
                for ln in po["lines"]}
        got = self._do("receive_purchase_order", number=number,
                       **({} if lines is None else {"lines": lines}))
        if got is None:
            return
        taken = left if lines is None else {ln["sku"]: Decimal(ln["quantity"]) for ln in lines}
        self.booked[str(got["operation_id"])] = sum(
            (cost(q * cost(prices[s] * rate)) for s, q in taken.items() if q > 0), Decimal(0))
        self.receipts.append(str(got["operation_id"]))

    @initialize(p=price, q=price)
    def stocked(self, p: Decimal, q: Decimal) -> None:
        self.order(Decimal(10), p, Decimal(10), q, False, True)
        self.mark()

    @rule(q1=qty, p1=price, q2=qty, p2=price, dollars=st.booleans(), whole=st.booleans())
    def order(self, q1: Decimal, p1: Decimal, q2: Decimal, p2: Decimal, dollars: bool,
              whole: bool) -> None:
        po = apply(self.reg, "create_purchase_order", supplier="Wires" if dollars else "Acme",
                   location="MAIN", lines=[
                       {"sku": "M1", "quantity": str(q1), "unit_price": str(p1)},
                       {"sku": "M2", "quantity": str(q2), "unit_price": str(p2)}])
        rate = USD if dollars else Decimal(1)
        self.pos.append((str(po["number"]), rate))
        self._receive(str(po["number"]), rate,
                      None if whole else [{"sku": "M1", "quantity": str(max(q1 // 2, 1))}])
        if not whole:
            self.partly.append(self.pos[-1])

    @precondition(lambda self: self.partly)
    @rule(i=st.integers(0, 50))
    def receive_the_rest(self, i: int) -> None:
        number, rate = self.partly.pop(i % len(self.partly))
        self._receive(number, rate, None)

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), q=qty)
    def ship(self, sku: str, loc: str, q: Decimal) -> None:
        so = apply(self.reg, "create_sales_order", customer="Bob", location=loc,
                   lines=[{"sku": sku, "quantity": str(q), "unit_price": "1"}])
        self._do("fulfill_order", number=so["number"])

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), q=qty)
    def transfer(self, sku: str, loc: str, q: Decimal) -> None:
        self._do("create_stock_transfer", from_location=loc,
                 to_location=LOCS[(LOCS.index(loc) + 1) % len(LOCS)],
                 lines=[{"sku": sku, "quantity": str(q)}])

    @rule(i=st.integers(0, 50), sku=st.sampled_from(SKUS), p=price)
    def correct_price(self, i: int, sku: str, p: Decimal) -> None:
        """The line's price in the order's currency; every receipt here is at one rate."""
        number, rate = self.pos[i % len(self.pos)]
        po = self.reg.invoke("get_purchase_order", {"number": number}, ADMIN)
        ln = next(ln for ln in po["lines"] if ln["sku"] == sku)
        done = self._do("correct_purchase_receipt", number=number, sku=sku, unit_price=str(p))
        if done is not None:
            self.booked[str(done["operation_id"])] = Decimal(ln["done_quantity"]) * (
                cost(p * rate) - cost(Decimal(ln["unit_price"]) * rate))

    @rule(i=st.integers(0, 50), a=amount, by=st.sampled_from(("value", "quantity", "weight")),
          currency=st.sampled_from((None, "EUR", "USD")), one_receipt=st.booleans())
    def landed_cost(self, i: int, a: Decimal, by: str, currency: str | None,
                    one_receipt: bool) -> None:
        number, rate = self.pos[i % len(self.pos)]
        where = {"operation_id": self.receipts[i % len(self.receipts)]} if one_receipt \
            else {"number": number}
        args = {**where, "amount": str(a), "allocate_by": by, "description": "freight"}
        if currency is not None:
            args["currency"] = currency
        done = self._do("add_landed_cost", **args)
        if done is None:
            return
        rate = {"EUR": Decimal(1), "USD": USD}.get(done["currency"], rate)
        assert Decimal(done["company_amount"]) == cost(a * rate)
        self.booked[str(done["operation_id"])] = cost(a * rate)

    @invariant()
    def nothing_lost_or_made_up(self) -> None:
        assert ledger_mismatches(self.reg) == []
        brought = sum((v for op, v in self.booked.items() if op not in self.undone),
                      Decimal(0))
        with self.reg.store.reading() as s:
            stock = s.execute(select(func.coalesce(func.sum(Balance.stock_value), 0))).scalar()
            shipped = s.execute(select(func.coalesce(func.sum(StockMovement.value), 0))
                                .where(StockMovement.document_type.in_(
                                    ("sales_order", "stock_adjustment")))).scalar()
            expensed = s.execute(select(func.coalesce(func.sum(Variance.amount), 0))).scalar()
        assert Decimal(stock) - Decimal(shipped) + Decimal(expensed) == brought, (
            stock, shipped, expensed, brought)

    @invariant()
    def each_landed_cost_splits_exactly(self) -> None:
        for number, _ in self.pos[-2:]:
            for lc in self.reg.invoke("list_landed_costs", {"number": number},
                                      ADMIN)["landed_costs"]:
                shares = [Decimal(ln["share"]) for ln in lc["lines"]]
                assert sum(shares, Decimal(0)) == Decimal(lc["company_amount"]), lc
                for ln in lc["lines"]:
                    assert Decimal(ln["capitalised"]) + Decimal(ln["expensed"]) == \
                        Decimal(ln["share"]), lc
                    assert Decimal(ln["capitalised"]) >= 0 and Decimal(ln["expensed"]) >= 0

    def teardown(self) -> None:
        try:
            self.unwind()
        finally:
            self.reg.store.dispose()


@pytest.mark.parametrize("part", [0, 1])
def test_no_value_is_lost_or_made_up(fresh: Callable[[], Registry], part: int) -> None:  # noqa: F811
    """8 examples in two seeded halves, so that two workers share them."""
    run_machine(Landed, fresh, examples=4, steps=16, part=part)


@pytest.mark.long
def test_no_value_is_lost_or_made_up_over_many_steps(
        fresh: Callable[[], Registry]) -> None:  # noqa: F811
    run_machine(Landed, fresh, examples=60, steps=40, derandomize=False)
