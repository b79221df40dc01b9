"""A replaced order line is copied from its table's columns, so a column added to a line
table is carried by every modify without a change there. Plain rows, no database."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from shopfloor.domain.lines.columns import carried_columns, copied
from shopfloor.store.tables import PurchaseOrderLine, SalesOrderLine

pytestmark = pytest.mark.quick

D = Decimal


def test_every_column_but_the_keys_is_carried() -> None:
    for table in (PurchaseOrderLine, SalesOrderLine):
        columns = {c.name for c in table.__table__.columns}
        assert set(carried_columns(table)) == columns - {"id", "order_id"}, table


def test_a_kept_line_keeps_what_the_change_does_not_name() -> None:
    old = PurchaseOrderLine(id=7, order_id=3, item_id=1, position=0, quantity=D(12),
                            unit_price=D(2), received_quantity=D(5), returned_quantity=D(1),
                            expected_date=date(2026, 5, 1), unit="box",
                            units_per_unit=D(6), unit_quantity=D(2), unit_received=D(1),
                            unit_returned=D(0))
    new = copied(old, PurchaseOrderLine, position=2, quantity=D(18), unit_quantity=D(3))
    assert new is not old and new.id is None and new.order_id is None
    assert (new.position, new.quantity, new.unit_quantity) == (2, D(18), D(3))
    assert {k: getattr(new, k) for k in carried_columns(PurchaseOrderLine)
            if k not in ("position", "quantity", "unit_quantity")} == \
        {k: getattr(old, k) for k in carried_columns(PurchaseOrderLine)
         if k not in ("position", "quantity", "unit_quantity")}


def test_a_new_line_starts_from_the_tables_defaults() -> None:
    new = copied(None, SalesOrderLine, item_id=4, quantity=D(3), unit_price=D("9.50"))
    assert (new.fulfilled_quantity, new.returned_quantity, new.position) == (D(0), D(0), 0)
    assert (new.item_id, new.quantity, new.unit_price) == (4, D(3), D("9.50"))
