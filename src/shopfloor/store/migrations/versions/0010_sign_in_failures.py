"""failed sign-ins, counted per account name and per client address, for throttling

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import shopfloor.store.types

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

When = shopfloor.store.types.UtcDateTime


def upgrade() -> None:
    op.create_table(
        "sign_in_failures",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failed_at", When(), nullable=False),
        sa.Column("locked_until", When(), nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_sign_in_failures")),
    )
    op.create_index(op.f("ix_sign_in_failures_last_failed_at"), "sign_in_failures",
                    ["last_failed_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_sign_in_failures_last_failed_at"), table_name="sign_in_failures")
    op.drop_table("sign_in_failures")
