"""Reads as of a moment: `get_stock`, `get_item` and `list_lots` with `as_of` answer what
the same reads answered then, from the ledger alone.

A random history runs through the tools (receipts and issues at costs, counts, transfers,
lots of a tracked item, one already expired); after every step the test keeps what the
plain reads said and the moment. Afterwards each moment is read back with `as_of`: on hand,
average cost, expired stock and lots must equal what was read then.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply
from tests.stock import test_ledger_properties as ledger_properties

LOCS = ledger_properties.LOCS
fresh = ledger_properties.fresh  # a registry per example, on both databases

SKUS = ("M1", "M2", "LT")
LOTS = {"OLD": "2020-01-01", "NEW": "2099-01-01"}
qty = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("200"), places=3)
price = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("50"), places=2)
step = st.one_of(
    st.tuples(st.just("adjust"), st.sampled_from(SKUS), st.sampled_from(LOCS), qty,
              st.sampled_from([1, 1, -1]), price, st.sampled_from(sorted(LOTS))),
    st.tuples(st.just("count"), st.sampled_from(SKUS), st.sampled_from(LOCS), qty),
    st.tuples(st.just("transfer"), st.sampled_from(SKUS), st.sampled_from(LOCS), qty),
)


def _run(reg: Registry, s: tuple[Any, ...]) -> None:
    if s[0] == "adjust":
        _, sku, loc, q, sign, c, lot = s
        line: dict[str, Any] = {"sku": sku, "quantity_delta": str(q * sign),
                                "unit_cost": str(c)}
        if sku == "LT" and sign > 0:  # found stock names its lot; lost stock leaves FEFO
            line["lots"] = [{"lot": lot, "quantity": str(q), "expiry": LOTS[lot]}]
        apply(reg, "create_stock_adjustment", location=loc, reason="p", lines=[line])
    elif s[0] == "count":
        _, sku, loc, q = s
        if sku == "LT":  # a tracked count names its lot; the lot's own count is elsewhere
            return
        apply(reg, "create_stock_adjustment", location=loc, reason="p",
              lines=[{"sku": sku, "counted_quantity": str(q)}])
    else:
        _, sku, loc, q = s
        apply(reg, "create_stock_transfer", from_location=loc,
              to_location=LOCS[1 - LOCS.index(loc)], lines=[{"sku": sku, "quantity": str(q)}])


def _stock(reg: Registry, **args: Any) -> dict[tuple[str, str], tuple[Any, ...]]:
    rows = reg.invoke("get_stock", args, ADMIN)["balances"]
    return {(r["sku"], r["location"]): (
        Decimal(r["on_hand"]), Decimal(r["average_cost"]) if Decimal(r["on_hand"]) else None,
        Decimal(r["expired"]), sorted((x["lot"], Decimal(x["on_hand"])) for x in r["lots"]))
        for r in rows if Decimal(r["on_hand"]) or r["lots"]}


def _lots(reg: Registry, **args: Any) -> list[tuple[str, str, Decimal]]:
    return sorted((r["lot"], r["location"], Decimal(r["on_hand"]))
                  for r in reg.invoke("list_lots", {"sku": "LT", **args}, ADMIN)["lots"])


def _item(reg: Registry, sku: str, **args: Any) -> tuple[Decimal, list[tuple[str, Decimal]]]:
    got = reg.invoke("get_item", {"sku": sku, **args}, ADMIN)
    return Decimal(got["on_hand"]), sorted((s["location"], Decimal(s["on_hand"]))
                                           for s in got["stock"] if Decimal(s["on_hand"]))


def _setup(reg: Registry) -> None:
    company = Given(reg)
    company.item("LT", name="Tracked", batch_tracked=True, precision=3)
    for sku in ("M1", "M2"):  # the steps move thousandths
        company.modify(sku, precision=3)


@pytest.mark.parametrize("part", [0, 1])  # 12 examples as two draws of 6: two workers
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=14))
def test_reads_as_of_a_moment_equal_what_was_read_then(
        fresh: Callable[[], Registry], part: int, steps: list[tuple[Any, ...]]) -> None:
    assert part in (0, 1)
    reg = fresh()
    _setup(reg)
    seen = []
    for s in steps:
        try:
            _run(reg, s)
        except ShopfloorError as exc:
            assert exc.code in ("insufficient_stock", "lot_required"), exc.to_payload()
        moment = datetime.now(UTC).isoformat()
        seen.append((moment, _stock(reg), _lots(reg),
                     {sku: _item(reg, sku) for sku in SKUS}))
    for moment, stock, lots, items in seen:
        assert _stock(reg, as_of=moment) == stock, moment
        assert _lots(reg, as_of=moment) == lots, moment
        assert {sku: _item(reg, sku, as_of=moment) for sku in SKUS} == items, moment
    reg.store.dispose()


def test_compare_to_gives_what_was_on_hand_then(registry: Registry, given: Given) -> None:
    given.company()
    given.stock({"M1": ("10", "2")}, reason="in")
    then = datetime.now(UTC).isoformat()
    given.stock({"M1": "-4"}, reason="out")
    given.stock({"M2": ("3", "1")}, location="SHOP", reason="in")
    rows = {(r["sku"], r["location"]): r for r in registry.invoke(
        "get_stock", {"compare_to": then}, ADMIN)["balances"]}
    assert (rows[("M1", "MAIN")]["on_hand"], rows[("M1", "MAIN")]["was"]) == ("6", "10")
    assert (rows[("M2", "SHOP")]["on_hand"], rows[("M2", "SHOP")]["was"]) == ("3", "0")
    assert rows[("M1", "MAIN")]["committed"] is None
    assert rows[("M1", "MAIN")]["held"] is None  # holds are not in the ledger either
    past = registry.invoke("get_stock", {"as_of": then}, ADMIN)["balances"]
    assert [(r["sku"], r["on_hand"], r["average_cost"]) for r in past] == [("M1", "10", "2")]


def test_as_of_must_be_a_written_moment(registry: Registry) -> None:
    for bad in (0, "1700000000", "2026-01-01"):
        try:
            registry.invoke("get_stock", {"as_of": bad}, ADMIN)
        except ShopfloorError as exc:
            assert exc.code == "validation_error" and "as_of" in str(exc.to_payload())
        else:
            raise AssertionError(f"as_of={bad!r} accepted")
