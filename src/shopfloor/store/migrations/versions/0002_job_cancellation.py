"""jobs: cancel_requested, a claim-order index, no row version (workers own the row)

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("cancel_requested", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.create_index("ix_jobs_status_created", ["status", "created_at"], unique=False)
        batch_op.drop_column("version")


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=False,
                                      server_default="1"))
        batch_op.drop_index("ix_jobs_status_created")
        batch_op.drop_column("cancel_requested")
