"""Running the ledger's hypothesis state machines: each gets a fresh registry per example
(from the `fresh` fixture) and the same settings, bounded in `make test`, longer under
the `long` mark. `Unwinding` gives a machine the rules every books machine shares: mark
where the books are, later revert every write made since, newest first; each revert is
accepted and every table of money reads as at the mark (issue 30)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test
from sqlalchemy import select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import Balance, PurchaseOrderLine, StockMovement, Variance
from shopfloor.store.tables.corrections import CostAdjustment, Revert
from tests.given import Given
from tests.helpers import ADMIN, apply

SKUS = ("M1", "M2")
LOCS = ("MAIN", "SHOP", "NEG")  # NEG allows negative stock
price = st.decimals(min_value=Decimal("0.5"), max_value=Decimal(30), places=2)
EXPECTED = {"insufficient_stock", "conflict", "validation_error"}


def run_machine(machine: Any, make: Callable[[], Registry], examples: int, steps: int,
                derandomize: bool = True, part: int | None = None) -> None:
    """`make test`'s runs are the same each time (derandomized: a red run is a change,
    not a draw); the long runs (`-m long`) pass `derandomize=False` to explore. A `part`
    runs under its own fixed seed (the same run each time, other examples than another
    part's), so that parallel workers share a machine's bounded budget.
    `SHOPFLOOR_EXAMPLES` and `SHOPFLOOR_STEPS` run a machine longer by hand (hunting a
    failure the bounded run does not reach) without editing its test."""
    # a class of its own a run, so that a part's seed stays off the next run's machine
    run = type(machine.__name__, (machine,), {"make": staticmethod(make)})
    if part is not None:
        run = seed(part)(run)
    examples = int(os.environ.get("SHOPFLOOR_EXAMPLES", examples))
    steps = int(os.environ.get("SHOPFLOOR_STEPS", steps))
    run_state_machine_as_test(run, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]))


def _nets(rows: Any) -> dict[Any, Decimal]:
    out: dict[Any, Decimal] = defaultdict(lambda: Decimal(0))
    for *k, v in rows:
        out[tuple(k)] += v
    return {k: v for k, v in out.items() if v != 0}


def money(reg: Registry) -> dict[str, Any]:
    """Every table of money as a reader sees it: balances, the ledger's sums, the net
    variances and cost adjustments per document, purchase prices (zero nets left out: a
    row and its answer are nothing)."""
    with reg.store.reading() as s:
        balances = {(b.item_id, b.location_id): (b.on_hand, b.stock_value)
                    for b in s.scalars(select(Balance)).unique()
                    if (b.on_hand, b.stock_value) != (0, 0)}
        return {
            "balances": balances,
            "ledger": _nets(s.execute(select(StockMovement.item_id, StockMovement.location_id,
                                             StockMovement.value))),
            "quantities": _nets(s.execute(select(
                StockMovement.item_id, StockMovement.location_id, StockMovement.quantity))),
            "variances": _nets(s.execute(select(
                Variance.item_id, Variance.location_id, Variance.kind, Variance.document_type,
                Variance.document_number, Variance.amount))),
            "adjustments": _nets(s.execute(select(
                CostAdjustment.item_id, CostAdjustment.document_number,
                CostAdjustment.amount))),
            "prices": dict(s.execute(select(PurchaseOrderLine.id,
                                            PurchaseOrderLine.unit_price)).all()),
        }


def _reverts(reg: Registry) -> tuple[set[str], set[str]]:
    """(operations reverted, the reverts' own operations)."""
    with reg.store.reading() as s:
        rows = s.execute(select(Revert.reverted_operation_id, Revert.operation_id)).all()
    return {r for r, _ in rows}, {o for _, o in rows}


class Unwinding(RuleBasedStateMachine):
    """A books machine that keeps `reg` and `ops` (every write applied, oldest first)."""

    reg: Registry
    ops: list[str]
    marked: tuple[int, dict[str, Any], set[str]] | None = None

    def reverted(self, operation_id: str) -> None:
        """A machine that keeps its own account of what still counts hears of each."""

    @precondition(lambda self: self.marked is None)
    @rule()
    def mark(self) -> None:
        self.marked = (len(self.ops), money(self.reg), _reverts(self.reg)[0])

    @precondition(lambda self: self.marked is not None)
    @rule()
    def unwind(self) -> None:
        """Every write since the mark reverted, newest first (a machine's teardown calls
        it too: each example ends with its run taken back)."""
        if self.marked is None:
            return
        start, before, undone_then = self.marked
        self.marked = None
        undone, reverts = _reverts(self.reg)
        for operation_id in reversed(self.ops[start:]):
            if operation_id in undone or operation_id in reverts:
                continue
            apply(self.reg, "revert_operation", operation_id=operation_id)  # never refused
            self.reverted(operation_id)
        if undone - undone_then - set(self.ops[start:]):
            return  # a write from before the mark was reverted since: not as it was then
        after = money(self.reg)
        after["prices"] = {k: v for k, v in after["prices"].items() if k in before["prices"]}
        assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after[k]}


class Shelves(Unwinding):
    """A books machine on a fresh registry of the tests' company and a third location,
    NEG, where stock may go below zero; a write refused for one of the EXPECTED reasons
    is a step that did nothing."""

    make: Callable[[], Registry]

    def __init__(self) -> None:
        super().__init__()
        self.reg = self.make()
        self.given = Given(self.reg)
        self.given.location("NEG", "Below zero", allow_negative=True)
        self.ops = []

    def _do(self, tool: str, **args: Any) -> dict[str, Any] | None:
        try:
            done = apply(self.reg, tool, **args)
        except ShopfloorError as exc:
            assert exc.code in EXPECTED, exc.to_payload()
            return None
        self.wrote(tool, args, done)
        return done

    def wrote(self, tool: str, args: dict[str, Any], done: dict[str, Any]) -> None:
        """A write applied: its operation joins `ops`."""
        self.ops.append(str(done["operation_id"]))

    @rule(sku=st.sampled_from(SKUS), loc=st.sampled_from(LOCS), extra=st.integers(0, 5))
    def scrap_all(self, sku: str, loc: str, extra: int) -> None:
        """Everything there leaves (and more where stock may go below zero): the receipts
        behind it are fully consumed, so a price correction after is all variances."""
        held = self.reg.invoke("get_stock", {"sku": sku, "location": loc}, ADMIN)["balances"]
        out = (Decimal(held[0]["on_hand"]) if held else Decimal(0)) + extra
        if out > 0:
            self._do("create_stock_adjustment", location=loc, reason="scrap",
                     lines=[{"sku": sku, "quantity_delta": str(-out)}])

    @rule(i=st.integers(0, 50))
    def revert(self, i: int) -> None:
        if self.ops:
            self._do("revert_operation", operation_id=self.ops[-1 - i % len(self.ops)])
