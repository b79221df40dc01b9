"""Racing reverts: eight reverts of one operation have one effect; a revert racing a write
that depends on what it reverts ends with exactly one of them applied, never both."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal as D
from typing import Any

from sqlalchemy import func, select

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.store.tables import StockMovement
from shopfloor.store.tables.corrections import Revert
from tests.corrections.test_revert import stock
from tests.given import Given
from tests.helpers import ADMIN, apply, ledger_mismatches


def _race(calls: list[Callable[[], dict[str, Any]]]) -> list[dict[str, Any]]:
    gate = threading.Barrier(len(calls))

    def one(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        gate.wait(30)
        try:
            return call()
        except ShopfloorError as exc:
            return exc.to_payload()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(one, calls))


def _count(reg: Registry, model: Any) -> int:
    with reg.store.reading() as s:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())


def test_eight_racing_reverts_of_one_operation_have_one_effect(registry: Registry,
                                                               given: Given) -> None:
    given.company()
    given.po({"M1": ("10", "5")})
    for round_ in range(3):
        receipt = apply(registry, "receive_purchase_order", number="PO-00001")
        assert stock(registry, "M1") == (D(10), D(0), D(5))
        rows = _count(registry, StockMovement)
        args = {"operation_id": receipt["operation_id"], "preview": False}
        answers = _race([lambda a=args: registry.invoke("revert_operation", a, ADMIN)] * 8)
        applied = [a for a in answers if a.get("applied")]
        refused = [a["error"] for a in answers if "error" in a]
        assert len(applied) == 1, answers
        assert len(refused) == 7 and {e["code"] for e in refused} == {"conflict"}, refused
        assert stock(registry, "M1") == (D(0), D(0), D(0)), round_
        assert _count(registry, StockMovement) == rows + 1  # one reversing row
        assert _count(registry, Revert) == round_ + 1
        po = registry.invoke("get_purchase_order", {"number": "PO-00001"}, ADMIN)
        assert (po["status"], po["lines"][0]["done_quantity"]) == ("open", "0")
    assert not ledger_mismatches(registry)


def test_a_revert_racing_a_shipment_of_what_it_received(registry: Registry, given: Given) -> None:
    given.company()
    for round_ in range(4):
        number = f"PO-R{round_}"
        given.po({"M2": ("10", "5")}, number=number)
        so = given.so({"M2": ("4", "9")})
        receipt = apply(registry, "receive_purchase_order", number=number)
        revert_args = {"operation_id": receipt["operation_id"], "preview": False}
        ship_args = {"number": so["number"], "preview": False}
        calls = [lambda a=revert_args: registry.invoke("revert_operation", a, ADMIN),
                 lambda a=ship_args: registry.invoke("fulfill_order", a, ADMIN)]
        if round_ % 2:
            calls.reverse()
        answers = _race(calls)
        applied = [a for a in answers if a.get("applied")]
        refused = [a["error"]["code"] for a in answers if "error" in a]
        assert len(applied) == 1 and len(refused) == 1, answers
        assert refused[0] in ("conflict", "insufficient_stock"), answers
        on_hand, committed, _ = stock(registry, "M2")
        if "reverted_tool" in applied[0]:  # the revert won: nothing shipped, nothing here
            assert (on_hand, committed) == (D(0), D(4))
            apply(registry, "delete_sales_order", number=so["number"])
        else:  # the shipment won: the receipt stays
            assert (on_hand, committed) == (D(6), D(0))
            apply(registry, "create_stock_adjustment", location="MAIN", reason="reset",
                  lines=[{"sku": "M2", "counted_quantity": "0"}])
        assert not ledger_mismatches(registry)
