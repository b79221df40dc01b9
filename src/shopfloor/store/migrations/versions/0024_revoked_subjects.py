"""revoked token subjects: `shopfloor token revoke` refuses every token of a subject
issued up to that moment, and withdraws its pending proposals

Revision ID: 0024
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import UtcDateTime

revision = "0024"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "revoked_subjects",
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("revoked_at", UtcDateTime(), nullable=False),
        sa.Column("revoked_by", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("subject", name=op.f("pk_revoked_subjects")),
    )


def downgrade() -> None:
    op.drop_table("revoked_subjects")
