"""Property (issue 21): any order of receipts, shipments, transfers, supplier and customer
returns (after their shipment took a share of a re-pricing too), counts and scrapping
(down to nothing, and below zero where a location allows it), receipt corrections
(quantity and price, of receipts whose goods are all gone too), shipment and consumption
corrections, completions and reverts in any order keeps the
books, on SQLite and PostgreSQL; reverting every write since a mark, newest first, is
never refused and puts every table of money back as it read then (issue 30). After every
step, per item and location: the balance's value is the sum of its ledger rows' values
exactly, never below zero, never left on an empty balance; and the purchase side
balances: what the purchase orders say was bought (received x price, less what went back
to suppliers at the cost credited) equals the value their rows put on stock plus the
variances those operations recorded; and the valuation report over the whole history
adds up to the stock's value. At the end of each example (some of its writes dated days
back, behind others) the journal's stock lines hold the ledger's value in cents as at
every day, and the journal, exported as beancount, loads without an error (its balance
assertions hold) and closes at the trial balance (issue 31).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    initialize,
    invariant,
    rule,
)
from sqlalchemy import func, select

from shopfloor.domain.stock.valuation import FLOWS
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import (
    Balance,
    Item,
    JournalLine,
    PurchaseOrderLine,
    StockMovement,
    SupplierBill,
    SupplierBillLine,
    Variance,
)
from shopfloor.store.tables.corrections import Revert, StockReturn
from tests.accounting.test_back_dated import every_date_ties
from tests.accounting.test_journal import bean_loaded, valuation_in_cents
from tests.helpers import ADMIN, apply, ledger_mismatches
from tests.machines import LOCS, SKUS, Shelves, price, run_machine
from tests.stock.test_ledger_properties import fresh  # noqa: F401  (the fixture)

qty = st.decimals(min_value=Decimal(1), max_value=Decimal(20), places=0)


class Books(Shelves):
    def __init__(self) -> None:
        super().__init__()
        self.given.recipe("P1", {"M1": "2", "M2": "1"})
        self.pos: list[str] = []
        self.bills = 0
        self.sos: list[str] = []
        self.mos: list[str] = []

    def _po(self, i: int) -> dict[str, Any]:
        """A purchase order received here (the i-th, counting round), as it reads now."""
        got: dict[str, Any] = self.reg.invoke(
            "get_purchase_order", {"number": self.pos[i % len(self.pos)]}, ADMIN)
        return got

    def _so(self, i: int) -> dict[str, Any]:
        """A sales order shipped here (the i-th, counting round), as it reads now."""
        got: dict[str, Any] = self.reg.invoke(
            "get_sales_order", {"number": self.sos[i % len(self.sos)]}, ADMIN)
        return got

    @initialize(p=price, q=price)
    def stocked(self, p: Decimal, q: Decimal) -> None:
        """Something on every shelf, so that the steps that follow mostly do something."""
        for sku, loc, unit in (("M1", "MAIN", p), ("M2", "MAIN", q), ("M1", "SHOP", q),
                               ("M2", "SHOP", p), ("M1", "NEG", p)):
            self.receive(sku, loc, Decimal(30), unit)
        self.mark()

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), q=qty, p=price)
    def receive(self, sku: str, loc: str, q: Decimal, p: Decimal) -> None:
        po = apply(self.reg, "create_purchase_order", supplier="Acme", location=loc,
                   lines=[{"sku": sku, "quantity": str(q), "unit_price": str(p)}])
        if self._do("receive_purchase_order", number=po["number"]):
            self.pos.append(str(po["number"]))

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), q=qty)
    def ship(self, sku: str, loc: str, q: Decimal) -> None:
        so = apply(self.reg, "create_sales_order", customer="Bob", location=loc,
                   lines=[{"sku": sku, "quantity": str(q), "unit_price": "1"}])
        if self._do("fulfill_order", number=so["number"]):
            self.sos.append(str(so["number"]))

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), q=qty)
    def transfer(self, sku: str, loc: str, q: Decimal) -> None:
        self._do("create_stock_transfer", from_location=loc,
                 to_location=LOCS[(LOCS.index(loc) + 1) % len(LOCS)],
                 lines=[{"sku": sku, "quantity": str(q)}])

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS),
          q=st.decimals(min_value=0, max_value=20, places=0))
    def count(self, sku: str, loc: str, q: Decimal) -> None:
        self._do("create_stock_adjustment", location=loc, reason="count",
                 lines=[{"sku": sku, "counted_quantity": str(q)}])

    @rule(loc=st.sampled_from(LOCS), q=st.decimals(min_value=1, max_value=4, places=0))
    def complete(self, loc: str, q: Decimal) -> None:
        mo = apply(self.reg, "create_manufacturing_order", sku="P1", quantity=str(q),
                   location=loc)
        if self._do("complete_manufacturing_order", number=mo["number"]) is not None:
            self.mos.append(str(mo["number"]))

    @rule(i=st.integers(0, 50), q=st.decimals(min_value=0, max_value=20, places=0))
    def correct_shipment(self, i: int, q: Decimal) -> None:
        if self.sos:
            so = self._so(i)
            self._do("correct_shipment", number=so["number"], sku=so["lines"][0]["sku"],
                     quantity=str(q))

    @rule(i=st.integers(0, 50), q=st.decimals(min_value=0, max_value=12, places=0))
    def correct_consumption(self, i: int, q: Decimal) -> None:
        if self.mos:
            self._do("correct_manufacturing_order", number=self.mos[i % len(self.mos)],
                     consumed=[{"sku": "M1", "quantity": str(q)}])

    @rule(i=st.integers(0, 50), q=qty)
    def supplier_return(self, i: int, q: Decimal) -> None:
        if self.pos:
            po = self._po(i)
            ln = po["lines"][0]
            self._do("create_supplier_return", number=po["number"], reason="back",
                     lines=[{"sku": ln["sku"], "quantity": str(q)}])

    @rule(i=st.integers(0, 50), q=qty)
    def customer_return(self, i: int, q: Decimal) -> None:
        if self.sos:
            so = self._so(i)
            ln = so["lines"][0]
            self._do("create_customer_return", number=so["number"], reason="back",
                     lines=[{"sku": ln["sku"], "quantity": str(q)}])

    @rule(i=st.integers(0, 50), p=price)
    def correct_price(self, i: int, p: Decimal) -> None:
        if self.pos:
            po = self._po(i)
            self._do("correct_purchase_receipt", number=po["number"], sku=po["lines"][0]["sku"],
                     unit_price=str(p))

    @rule(i=st.integers(0, 50), p=price, extra=st.integers(0, 5))
    def reprice_all_gone(self, i: int, p: Decimal, extra: int) -> None:
        """A receipt's goods all gone (below zero too, where allowed), then its price
        corrected: only variances, no ledger row (issue 30's R1)."""
        if self.pos:
            po = self._po(i)
            self.scrap_all(po["lines"][0]["sku"], po["location"], extra)
            self.correct_price(i, p)

    @rule(i=st.integers(0, 50), p=price, q=qty)
    def return_after_reprice(self, i: int, p: Decimal, q: Decimal) -> None:
        """Goods shipped from a receipt's shelf, the receipt re-priced, then some of them
        returned: they bring back the share of the re-pricing their shipment took."""
        if self.pos:
            po = self._po(i)
            self.ship(po["lines"][0]["sku"], po["location"], q)
            self.correct_price(i, p)
            if self.sos:
                self.customer_return(len(self.sos) - 1, max(Decimal(1), q // 2))

    @rule(days=st.integers(1, 45), sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS),
          q=qty, p=price, ship=st.booleans())
    def back_dated(self, days: int, sku: str, loc: str, q: Decimal, p: Decimal,
                   ship: bool) -> None:
        """A receipt or a shipment dated days before what is written already (a clock set
        back): the journal's cents hold as at every date (checked at the end)."""
        now = self.reg.clock
        self.reg.clock = lambda: now() - timedelta(days=days)
        try:
            self.ship(sku, loc, q) if ship else self.receive(sku, loc, q, p)
        finally:
            self.reg.clock = now

    @rule(i=st.integers(0, 50), q=st.decimals(min_value=0, max_value=20, places=0))
    def correct_quantity(self, i: int, q: Decimal) -> None:
        if self.pos:
            po = self._po(i)
            self._do("correct_purchase_receipt", number=po["number"], sku=po["lines"][0]["sku"],
                     quantity=str(q))

    @rule(i=st.integers(0, 50), part=st.integers(1, 3))
    def bill(self, i: int, part: int) -> None:
        """A third, two thirds or all of what an order holds unbilled, at its price (a
        price off it is test_supplier_bills.py's: it makes a line's units stand at more
        than one price, which the purchase side's sum above does not read)."""
        if self.pos:
            number = self.pos[i % len(self.pos)]
            rows = self.reg.invoke("list_unbilled_receipts", {"order": number},
                                   ADMIN)["rows"]
            left = Decimal(rows[0]["unbilled"]) if rows else Decimal(0)
            q = (left * part / 3).to_integral_value() if part < 3 else left
            if q > 0:
                self.bills += 1
                self._do("create_supplier_bill", supplier="Acme", number=f"B-{self.bills}",
                         date=datetime.now(UTC).date().isoformat(), lines=[{
                             "order": number, "sku": rows[0]["sku"], "quantity": str(q),
                             "unit_price": rows[0]["unit_price"]}])

    @invariant()
    def books_balance(self) -> None:
        assert ledger_mismatches(self.reg) == []
        bought, booked = _purchase_side(self.reg)
        assert bought == booked, (bought, booked)

    @invariant()
    def grni_is_what_is_received_and_not_billed(self) -> None:
        """Issue 31: the Goods received not invoiced account holds, for every order line,
        (received - returned - billed) x its price: what the company owes for goods it
        holds and has no bill for yet. Bills here bill at the order's price, so every
        unit of a line stands at its one price (a price correction re-prices the line's
        units not billed yet); the amounts are in cents as the journal's."""
        with self.reg.store.reading() as s:
            counted = SupplierBill.operation_id.is_(None) | ~SupplierBill.operation_id.in_(
                select(Revert.reverted_operation_id))
            billed = dict(s.execute(
                select(SupplierBillLine.order_line_id, func.sum(SupplierBillLine.stock_quantity))
                .join(SupplierBill, SupplierBill.id == SupplierBillLine.bill_id)
                .where(counted).group_by(SupplierBillLine.order_line_id)).all())
            owed = sum(((ln.received_quantity - ln.returned_quantity
                         - billed.get(ln.id, Decimal(0))) * ln.unit_price
                        for ln in s.scalars(select(PurchaseOrderLine))), Decimal(0))
            grni = s.scalar(select(func.coalesce(func.sum(JournalLine.credit - JournalLine.debit),
                                                 0)).where(JournalLine.role == "grni"))
        assert Decimal(grni) == owed, (grni, owed)
        # and line by line, as the accountant's GRNI list shows it
        listed = self.reg.invoke("list_unbilled_receipts", {}, ADMIN)
        for row in listed["rows"]:
            assert Decimal(row["value"]) == Decimal(row["unbilled"]) * Decimal(
                row["unit_price"]), row
        assert Decimal(listed["value"]) == owed

    @invariant()
    def inventory_is_the_valuation(self) -> None:
        """Issue 31: the Inventory accounts hold the stock valuation's rows, each to the
        cent, at every step."""
        tb = self.reg.invoke("get_trial_balance", {}, ADMIN)
        stock = sum((Decimal(r["closing"]) for r in tb["rows"]
                     if r["account"] in ("1310", "1325", "1330")), Decimal(0))
        assert stock == valuation_in_cents(self.reg)

    @invariant()
    def the_report_adds_up(self) -> None:
        """What an accountant signs, over the whole history: nothing at the start, the
        flows add up to the stock's value, which is every balance's; transfers move value
        and make none (what arrives onto a balance below zero re-prices it: the rest is
        the transfer's variance); the variances are every one recorded."""
        t = self.reg.invoke("get_stock_valuation", {"start": "2000-01-01"}, ADMIN)["total"]
        with self.reg.store.reading() as s:
            held = s.scalar(select(func.coalesce(func.sum(Balance.stock_value), 0)))
            gone = s.scalar(select(func.coalesce(func.sum(Variance.amount), 0)))
            moved = s.scalar(select(func.coalesce(func.sum(Variance.amount), 0)).where(
                Variance.document_type == "stock_transfer"))
        assert Decimal(t["opening"]) == 0
        assert sum((Decimal(t[k]) for k in FLOWS), Decimal(0)) == Decimal(t["value"]) == held
        assert Decimal(t["transferred"]) + moved == 0, (t, moved)
        assert Decimal(t["variances"]) == gone, (t, gone)

    def teardown(self) -> None:
        try:
            every_date_ties(self.reg)
            self.unwind()
            bean_loaded(self.reg)  # the whole history, its reverts too, as beancount reads it
        finally:
            self.reg.store.dispose()


def _purchase_side(reg: Registry) -> tuple[Decimal, Decimal]:
    """(what the purchase documents say, what their rows and variances booked)."""
    bought = Decimal(0)
    for po in reg.invoke("list_purchase_orders", {"limit": 500}, ADMIN)["orders"]:
        for ln in po["lines"]:
            bought += Decimal(ln["done_quantity"]) * Decimal(ln["unit_price"])
    with reg.store.reading() as s:
        undone = set(s.scalars(select(Revert.reverted_operation_id)))
        returns = {r.number: r for r in s.scalars(select(StockReturn).where(
            StockReturn.kind == "supplier")).unique()}
        rows = s.execute(select(StockMovement.document_type, StockMovement.document_number,
                                StockMovement.value, StockMovement.operation_id,
                                StockMovement.reason)).all()
        booked = Decimal(0)
        credited: dict[str, bool] = {}
        for dtype, dnum, value, op_id, reason in rows:
            if dtype == "purchase_order" or (dtype == "stock_return" and dnum in returns):
                booked += value
                if dtype == "stock_return" and reason == "supplier_return":
                    credited[str(dnum)] = op_id not in undone
        for number, counts in credited.items():
            if counts:
                bought -= sum((ln.quantity * ln.unit_cost for ln in returns[number].lines),
                              Decimal(0))
        for kind, dtype, dnum, amount in s.execute(select(
                Variance.kind, Variance.document_type, Variance.document_number,
                Variance.amount).where(Variance.item_id.not_in(
                    select(Item.id).where(Item.sku == "P1")))):
            # (the product is never bought: its re-pricings are the completions')
            # a re-pricing's shares name the documents that took them; the rest name their own
            if kind == "price_correction" or dtype == "purchase_order" or (
                    dtype == "stock_return" and dnum in returns):
                booked += amount
    return bought, booked


@pytest.mark.parametrize("part", [0, 1])
def test_the_books_balance_after_every_step(fresh: Callable[[], Registry], part: int) -> None:  # noqa: F811
    """6 examples in two seeded halves, so that two workers share them."""
    run_machine(Books, fresh, examples=3, steps=16, part=part)


@pytest.mark.long
def test_the_books_balance_after_many_steps(fresh: Callable[[], Registry]) -> None:  # noqa: F811
    run_machine(Books, fresh, examples=60, steps=40, derandomize=False)
