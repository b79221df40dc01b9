"""sequences: move each document counter past the numbers callers chose that look like
generated ones, so a generated number is never checked and never collides

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

DOCUMENTS = {"purchase_orders": "PO", "sales_orders": "SO", "manufacturing_orders": "MO",
             "stock_adjustments": "ADJ", "stock_transfers": "TR"}


def upgrade() -> None:
    conn = op.get_bind()
    for table, prefix in DOCUMENTS.items():
        pattern = re.compile(rf"{prefix}-0*(\d{{1,9}})")
        highest = 0
        for (number,) in conn.execute(sa.text(f"SELECT number FROM {table}")):
            found = pattern.fullmatch(number)
            if found:
                highest = max(highest, int(found.group(1)))
        if not highest:
            continue
        current = conn.execute(sa.text("SELECT value FROM sequences WHERE name = :n"),
                               {"n": prefix}).scalar()
        if current is None:
            conn.execute(sa.text("INSERT INTO sequences (name, value) VALUES (:n, :v)"),
                         {"n": prefix, "v": highest})
        elif current < highest:
            conn.execute(sa.text("UPDATE sequences SET value = :v WHERE name = :n"),
                         {"n": prefix, "v": highest})


def downgrade() -> None:
    """Counters only ever move forward."""
