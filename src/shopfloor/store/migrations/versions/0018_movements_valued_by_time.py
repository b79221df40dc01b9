"""the ledger's time index covers what a valuation sums

A value as at a day's end, and a period's flows, are sums over the ledger rows of a time
range. Indexed by `created_at` alone, each row in the range costs a visit to the table;
with the columns those sums read in the index, a range is read from the index alone. It
replaces the plain time index (same leading column, so whatever used that one uses this):
one index per ledger row written, as before.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

COLUMNS = ["created_at", "item_id", "location_id", "quantity", "value", "reason",
           "document_type", "document_number"]


def upgrade() -> None:
    op.drop_index("ix_movements_created", table_name="stock_movements")
    op.create_index("ix_movements_at", "stock_movements", COLUMNS)


def downgrade() -> None:
    op.drop_index("ix_movements_at", table_name="stock_movements")
    op.create_index("ix_movements_created", "stock_movements", ["created_at"])
