"""exact quantities in any unit: an item may set its unit's precision; a purchase line in
a supplier's unit keeps its quantities in that unit

Existing items set none (their unit's default applies). Existing lines in a supplier's
unit get their unit figures from their stock ones, to the six places a purchase unit
keeps. Unit names are stored like keys from now on: one typed in fullwidth letters or
with an invisible character is renamed to its plain form (`keys.cleaned`), so that the
same unit typed plainly finds it.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa
from alembic import op

from shopfloor.kernel.keys import cleaned
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
    for table, column in (("items", "uom"), ("supplier_items", "purchase_unit"),
                          ("purchase_order_lines", "unit")):
        col = sa.column(column, sa.String())
        named = sa.table(table, col)
        for (name,) in conn.execute(sa.select(col).where(col.is_not(None)).distinct()).all():
            plain = cleaned(name)
            if plain and plain != name:
                conn.execute(named.update().where(col == name).values({column: plain}))


def downgrade() -> None:
    for name in ("unit_returned", "unit_received", "unit_quantity"):
        op.drop_column("purchase_order_lines", name)
    op.drop_column("items", "precision")
