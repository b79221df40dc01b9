"""A receipt, a shipment and a close tell how many lines they moved from what the domain
returns, and act on the document found once, by number or by id alike."""

from __future__ import annotations

from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply


def _by_id(reg: Registry, tool: str, ident: int, **extra: Any) -> dict[str, Any]:
    preview = reg.invoke(tool, {"id": ident, **extra}, ADMIN)
    done = reg.invoke(tool, preview["apply"]["arguments"], ADMIN)
    assert done["applied"] is True and done["summary"] == preview["summary"], done
    return done


def test_summaries_count_the_lines_each_write_moved(registry: Registry, given: Given) -> None:
    given.company()
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": "M1", "quantity": "10", "unit_price": "5"},
                      {"sku": "M2", "quantity": "10", "unit_price": "2"},
                      {"sku": "P1", "quantity": "1", "unit_price": "9"}])
    got = _by_id(registry, "receive_purchase_order", po["id"],
                 lines=[{"sku": "M1", "quantity": "4"}, {"sku": "M2", "quantity": "4"}])
    assert got["summary"] == "Receive 2 line(s) of PO-00001: now partially received"
    closed = _by_id(registry, "close_purchase_order", po["id"])
    assert closed["summary"] == ("Close purchase order PO-00001 short: 3 lines outstanding "
                                 "dropped")

    so = apply(registry, "create_sales_order", customer="Bob", location="MAIN",
               lines=[{"sku": "M1", "quantity": "3", "unit_price": "9"},
                      {"sku": "M2", "quantity": "2", "unit_price": "9"}])
    shipped = _by_id(registry, "fulfill_order", so["id"], lines=[{"sku": "M1", "quantity": "2"}])
    assert shipped["summary"] == "Ship 1 line(s) of SO-00001: now partially fulfilled"
    closed = _by_id(registry, "close_sales_order", so["id"])
    assert closed["summary"] == "Close sales order SO-00001 short: 2 lines outstanding dropped"
