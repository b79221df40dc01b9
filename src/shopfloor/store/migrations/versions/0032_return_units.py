"""a supplier return line's unit: the order line's purchase unit, its pack and the
quantity in it, so a return of a line bought in boxes reads in boxes

Lines of returns made before keep their stock figures; they take their order line's unit
and pack, and read their quantity in it converted back from stock units.

Revision ID: 0032
Revises: 0031
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

_FROM_ORDER = """
UPDATE stock_return_lines SET {column} = (
    SELECT MAX(pol.{column}) FROM purchase_order_lines pol
    JOIN purchase_orders po ON pol.order_id = po.id
    JOIN stock_returns r ON r.order_number = po.number
    WHERE r.id = stock_return_lines.return_id AND r.kind = 'supplier'
      AND pol.item_id = stock_return_lines.item_id AND pol.unit_quantity IS NOT NULL)
"""


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    op.add_column("stock_return_lines", sa.Column("unit", sa.String(length=32), nullable=True))
    op.add_column("stock_return_lines", sa.Column("units_per_unit", Dec(), nullable=True))
    op.add_column("stock_return_lines", sa.Column("unit_quantity", Dec(), nullable=True))
    for column in ("unit", "units_per_unit"):
        op.execute(_FROM_ORDER.format(column=column))


def downgrade() -> None:
    for column in ("unit_quantity", "units_per_unit", "unit"):
        op.drop_column("stock_return_lines", column)
