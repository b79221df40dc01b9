"""exact quantities in any unit: an item may set its unit's precision; a purchase line in
a supplier's unit keeps its quantities in that unit

Existing items set none (their unit's default applies). Existing lines in a supplier's
unit get their unit figures from their stock ones, to the six places a purchase unit
keeps.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

_SIX = Decimal("0.000001")
_LINES = sa.table("purchase_order_lines", sa.column("id", sa.Integer()),
                  sa.column("quantity", Dec()), sa.column("received_quantity", Dec()),
                  sa.column("returned_quantity", Dec()), sa.column("units_per_unit", Dec()),
                  sa.column("unit_quantity", Dec()), sa.column("unit_received", Dec()),
                  sa.column("unit_returned", Dec()))


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    op.add_column("items", sa.Column("precision", sa.Integer(), nullable=True))
    for name in ("unit_quantity", "unit_received", "unit_returned"):
        op.add_column("purchase_order_lines", sa.Column(name, Dec(), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.select(
        _LINES.c.id, _LINES.c.quantity, _LINES.c.received_quantity,
        _LINES.c.returned_quantity, _LINES.c.units_per_unit
    ).where(_LINES.c.units_per_unit.is_not(None))).all()
    for line_id, qty, got, back, per in rows:
        conn.execute(_LINES.update().where(_LINES.c.id == line_id).values(
            unit_quantity=(qty / per).quantize(_SIX), unit_received=(got / per).quantize(_SIX),
            unit_returned=(back / per).quantize(_SIX)))


def downgrade() -> None:
    for name in ("unit_returned", "unit_received", "unit_quantity"):
        op.drop_column("purchase_order_lines", name)
    op.drop_column("items", "precision")
