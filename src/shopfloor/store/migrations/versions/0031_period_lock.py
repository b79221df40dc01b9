"""the period lock: the last day of the books no write may post into, one row per setting

Revision ID: 0031
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import UtcDateTime

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "period_locks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lock_date", sa.Date(), nullable=True),
        sa.Column("previous", sa.Date(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_period_locks")),
    )


def downgrade() -> None:
    op.drop_table("period_locks")
