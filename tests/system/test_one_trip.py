"""A receipt, a shipment and a close tell how many lines they moved from what the domain
returns, and act on the document found once, by number or by id alike."""

from __future__ import annotations

from typing import Any

from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN


def _by_id(reg: Registry, tool: str, ident: int, **extra: Any) -> dict[str, Any]:
    preview = reg.invoke(tool, {"id": ident, **extra}, ADMIN)
    done = reg.invoke(tool, preview["apply"]["arguments"], ADMIN)
    assert done["applied"] is True and done["summary"] == preview["summary"], done
    return done


def test_summaries_count_the_lines_each_write_moved(registry: Registry, given: Given) -> None:
    given.company()
    po = given.po({"M1": ("10", "5"), "M2": ("10", "2"), "P1": ("1", "9")})
    got = _by_id(registry, "receive_purchase_order", po["id"],
                 lines=[{"sku": "M1", "quantity": "4"}, {"sku": "M2", "quantity": "4"}])
    assert got["summary"] == "Receive 2 line(s) of PO-00001: now partially received"
    closed = _by_id(registry, "close_purchase_order", po["id"])
    assert closed["summary"] == ("Close purchase order PO-00001 short: 3 lines outstanding "
                                 "dropped")

    so = given.so({"M1": ("3", "9"), "M2": ("2", "9")})
    shipped = _by_id(registry, "fulfill_order", so["id"], lines=[{"sku": "M1", "quantity": "2"}])
    assert shipped["summary"] == "Ship 1 line(s) of SO-00001: now partially fulfilled"
    closed = _by_id(registry, "close_sales_order", so["id"])
    assert closed["summary"] == "Close sales order SO-00001 short: 2 lines outstanding dropped"
