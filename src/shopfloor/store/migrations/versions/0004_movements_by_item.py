"""stock_movements: an (item_id, id) index, so one item's history across locations pages
newest-first from the index instead of sorting all its rows

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_movements_item_id", "stock_movements", ["item_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_movements_item_id", table_name="stock_movements")
