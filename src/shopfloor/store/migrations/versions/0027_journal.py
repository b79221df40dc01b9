"""the journal: balanced entries for every value the stock books move, and the rules that
choose their accounts

Existing movements get no entries here: `shopfloor` posts the history's entries the first
time the journal is read on a database that has movements and no entries (an opening
journal, built by the same rules), so this migration needs no domain code.

Revision ID: 0027
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0027"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_rules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=True),
        sa.Column("item_kind", sa.String(length=16), nullable=True),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_account_rules_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_account_rules")),
        sa.UniqueConstraint("role", "location_id", "item_kind",
                            name=op.f("uq_account_rules_role")),
    )
    op.create_table(
        "journal_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("posted_at", UtcDateTime(), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("document_type", sa.String(length=32), nullable=True),
        sa.Column("document_number", sa.String(length=64), nullable=True),
        sa.Column("memo", sa.Text(), nullable=False),
        sa.Column("reverses", sa.String(length=36), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_entries")),
    )
    op.create_index("ix_journal_entries_posted", "journal_entries", ["posted_at", "id"])
    op.create_index("ix_journal_entries_document", "journal_entries",
                    ["document_number", "document_type"])
    op.create_index(op.f("ix_journal_entries_operation_id"), "journal_entries",
                    ["operation_id"])
    op.create_table(
        "journal_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("debit", Dec(), nullable=False),
        sa.Column("credit", Dec(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=True),
        sa.Column("location_id", sa.Integer(), nullable=True),
        sa.Column("posted_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["entry_id"], ["journal_entries.id"],
                                name=op.f("fk_journal_lines_entry_id_journal_entries")),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_journal_lines_item_id_items")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_journal_lines_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_lines")),
    )
    op.create_index("ix_journal_lines_account", "journal_lines",
                    ["account", "posted_at", "debit", "credit"])
    op.create_index("ix_journal_lines_entry", "journal_lines", ["entry_id"])


def downgrade() -> None:
    op.drop_table("journal_lines")
    op.drop_table("journal_entries")
    op.drop_table("account_rules")
