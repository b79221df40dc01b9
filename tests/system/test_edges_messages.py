"""Numbers in what people read (summaries, warnings, error messages, change values) look
like the README: 10 and 2.5, never 10.000000 or 2.50 (the database keeps six places).
Money is the exception that proves it: an amount with its currency has the currency's
minor units (EUR10.00, as issue 29 asks), so amounts said with a currency are left out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply

TRAILING_ZERO = re.compile(r"\d\.\d*0\b")
MONEY = re.compile(r"(?:[A-Z]{0,3}[€$£¥]|\b[A-Z]{3}\s?)-?[\d,]+(?:\.\d+)?")


def _plain(text: str) -> bool:
    return not TRAILING_ZERO.search(MONEY.sub("", text))


def _texts(result: dict[str, Any], *, details: bool) -> Iterator[str]:
    yield result.get("summary") or ""
    if details:
        for w in result.get("warnings", []):
            yield w["message"]
        for c in result.get("changes", []):
            yield from (c["before"] or "", c["after"] or "")


def _story(registry: Registry, *, details: bool) -> list[str]:
    """A transfer of 10, a PO and its receipt, a sales order, a manufacturing order and its
    completion, each previewed and applied, quantities sent with their zeros as a client
    might ("10.000"), and a few refusals; every text a person reads, collected."""
    Given(registry).company()
    seen: list[str] = []

    def both(tool: str, **args: Any) -> dict[str, Any]:
        preview = registry.invoke(tool, args, ADMIN)
        done = apply(registry, tool, **args)
        seen.extend(_texts(preview, details=details))
        seen.extend(_texts(done, details=details))
        return done

    def refused(call: Callable[[], Any]) -> None:
        with pytest.raises(ShopfloorError) as info:
            call()
        if details:
            seen.append(info.value.message)

    apply(registry, "update_recipe", sku="P1", components=[{"sku": "M1", "quantity": "2"}])
    apply(registry, "modify_item", sku="M2", precision=2)  # 2.50 of it is a quantity
    apply(registry, "modify_item", sku="P1", precision=2)  # and 2.50 and 1.50 of P1
    both("create_stock_adjustment", location="MAIN", reason="count",
         lines=[{"sku": "M1", "quantity_delta": "30.000"}])
    both("create_stock_transfer", from_location="MAIN", to_location="SHOP",
         lines=[{"sku": "M1", "quantity": "10.000"}])
    po = both("create_purchase_order", supplier="Acme", location="MAIN",
              lines=[{"sku": "M2", "quantity": "10.00"}])
    refused(lambda: apply(registry, "receive_purchase_order", number=po["number"],
                          lines=[{"sku": "M2", "quantity": "12"}]))
    both("receive_purchase_order", number=po["number"],
         lines=[{"sku": "M2", "quantity": "2.50"}])
    both("create_sales_order", customer="Bob", location="MAIN",
         lines=[{"sku": "P1", "quantity": "5.0", "unit_price": "2.50"}])
    mo = both("create_manufacturing_order", sku="P1", quantity="2.50", location="MAIN")
    refused(lambda: apply(registry, "complete_manufacturing_order", number=mo["number"],
                          quantity="4"))
    both("complete_manufacturing_order", number=mo["number"], quantity="1.50")
    both("create_manufacturing_order", sku="P1", quantity="50", location="MAIN")
    if details:  # tools/bulk.py and domain/catalog.py, not only the domain's orders
        seen.extend(_texts(registry.invoke("batch_update_recipes",
                                           {"component": "M1", "scale": "0.50"}, ADMIN),
                           details=True))
        refused(lambda: apply(registry, "delete_item", sku="M1"))
    return seen


def test_summaries_carry_plain_numbers(registry: Registry) -> None:
    bad = [t for t in _story(registry, details=False) if not _plain(t)]
    assert not bad, "\n".join(bad)


def test_warnings_changes_and_errors_carry_plain_numbers(registry: Registry) -> None:
    bad = [t for t in _story(registry, details=True) if not _plain(t)]
    assert not bad, "\n".join(bad)
