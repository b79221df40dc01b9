"""proposals: writes held for approval, and accounts that need it

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import shopfloor.store.types

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

When = shopfloor.store.types.UtcDateTime


def upgrade() -> None:
    op.create_table(
        "proposals",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("roles", sa.String(length=64), nullable=False),
        sa.Column("reads", sa.String(length=64), nullable=False),
        sa.Column("preview", sa.JSON(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", When(), nullable=False),
        sa.Column("decided_by", sa.String(length=200), nullable=True),
        sa.Column("decided_at", When(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposals")),
    )
    op.create_index("ix_proposals_status", "proposals", ["status", "created_at"])
    op.create_index(op.f("ix_proposals_actor"), "proposals", ["actor"])
    with op.batch_alter_table("accounts") as batch_op:
        batch_op.add_column(sa.Column("needs_approval", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch_op:
        batch_op.drop_column("needs_approval")
    op.drop_index(op.f("ix_proposals_actor"), table_name="proposals")
    op.drop_index("ix_proposals_status", table_name="proposals")
    op.drop_table("proposals")
