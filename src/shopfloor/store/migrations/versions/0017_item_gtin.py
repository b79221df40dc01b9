"""items take a GTIN (the key their barcodes and a scanner's reading carry)

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("items", sa.Column("gtin", sa.String(14), nullable=True))
    op.create_index("ix_items_gtin", "items", ["gtin"])


def downgrade() -> None:
    op.drop_index("ix_items_gtin", table_name="items")
    op.drop_column("items", "gtin")
