"""A purchase line's own expected date is the one a receipt is judged by (MRP planned on
it): the preview and the result say which lines came late or early against that date,
the order's date only standing in for lines without one; get_purchase_order shows each
line's date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply


def _days(n: int) -> str:
    return (datetime.now(UTC).date() + timedelta(days=n)).isoformat()


def _order(reg: Registry, order_date: str | None, lines: list[dict[str, Any]]) -> str:
    args: dict[str, Any] = {"supplier": "Acme", "location": "MAIN", "lines": lines}
    if order_date:
        args["expected_date"] = order_date
    return str(apply(reg, "create_purchase_order", **args)["number"])


def _said(result: dict[str, Any]) -> dict[str, tuple[str, str, str | None]]:
    """Late/early warnings by SKU: (code, message, field)."""
    return {w["message"].split()[0]: (w["code"], w["message"], w["field"])
            for w in result["warnings"] if w["code"] in ("late", "early")}


def test_receipt_judges_each_line_by_its_own_date(registry: Registry, given: Given) -> None:
    given.company()
    number = _order(registry, _days(10), [
        # due 3 days ago on its line, though the order says in 10 days: late
        {"sku": "M1", "quantity": "5", "unit_price": "2", "expected_date": _days(-3)},
        # no date of its own: the order's (in 10 days) stands in: early
        {"sku": "M2", "quantity": "4", "unit_price": "3"},
        # due today on its line: neither
        {"sku": "P1", "quantity": "2", "unit_price": "1", "expected_date": _days(0)}])

    shown = registry.invoke("get_purchase_order", {"number": number}, ADMIN)
    assert [(ln["sku"], ln["expected_date"]) for ln in shown["lines"]] == \
        [("M1", _days(-3)), ("M2", _days(10)), ("P1", _days(0))]

    preview = registry.invoke("receive_purchase_order", {"number": number}, ADMIN)
    assert preview["preview"] is True
    assert [(ln["sku"], ln["expected_date"]) for ln in preview["document"]["lines"]] == \
        [("M1", _days(-3)), ("M2", _days(10)), ("P1", _days(0))]
    said = _said(preview)
    assert set(said) == {"M1", "M2"}
    assert said["M1"] == ("late", f"M1 received 3 days late (expected {_days(-3)}, "
                                  "its line's date)", "lines")
    assert said["M2"] == ("early", f"M2 received 10 days early (expected {_days(10)}, "
                                   "the order's date)", "lines")
    assert not any(w["blocking"] for w in preview["warnings"])
    assert preview["summary"] == f"Receive 3 line(s) of {number} (1 late, 1 early): now received"

    done = registry.invoke("receive_purchase_order", preview["apply"]["arguments"], ADMIN)
    assert done["status"] == "received"
    assert _said(done) == said
    assert [(ln["sku"], ln["expected_date"], ln["done_quantity"]) for ln in done["lines"]] == \
        [("M1", _days(-3), "5"), ("M2", _days(10), "4"), ("P1", _days(0), "2")]


def test_partial_receipt_names_the_line_asked_for(registry: Registry, given: Given) -> None:
    given.company()
    number = _order(registry, _days(-1), [
        {"sku": "M1", "quantity": "5", "unit_price": "2", "expected_date": _days(1)},
        {"sku": "M2", "quantity": "4", "unit_price": "3"}])
    # M2 first in the request, M1 second: each warning names its place in the request
    done = apply(registry, "receive_purchase_order", number=number,
                 lines=[{"sku": "M2", "quantity": "1"}, {"sku": "M1", "quantity": "2"}])
    said = _said(done)
    assert said["M1"] == ("early", f"M1 received 1 day early (expected {_days(1)}, "
                                   "its line's date)", "lines[1]")
    assert said["M2"] == ("late", f"M2 received 1 day late (expected {_days(-1)}, "
                                  "the order's date)", "lines[0]")
    assert done["status"] == "partially_received"


def test_no_date_no_judgement(registry: Registry, given: Given) -> None:
    given.company()
    number = _order(registry, None, [
        {"sku": "M1", "quantity": "5", "unit_price": "2"},
        {"sku": "M2", "quantity": "4", "unit_price": "3", "expected_date": _days(0)}])
    shown = registry.invoke("get_purchase_order", {"number": number}, ADMIN)
    assert [ln["expected_date"] for ln in shown["lines"]] == [None, _days(0)]
    done = apply(registry, "receive_purchase_order", number=number)
    assert _said(done) == {}
    assert done["status"] == "received"
