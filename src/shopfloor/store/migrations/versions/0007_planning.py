"""time-phased planning: lot sizing, line dates, pegging (issue 13)

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
