"""the journal's entries found by operation through their document index: the index of
the operation id alone (a random page more written on every entry) is merged into the
(document number, type) one, as its third column (issue 31)

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_journal_entries_operation_id", table_name="journal_entries")
    op.drop_index("ix_journal_entries_document", table_name="journal_entries")
    op.create_index("ix_journal_entries_document", "journal_entries",
                    ["document_number", "document_type", "operation_id"])


def downgrade() -> None:
    op.drop_index("ix_journal_entries_document", table_name="journal_entries")
    op.create_index("ix_journal_entries_document", "journal_entries",
                    ["document_number", "document_type"])
    op.create_index("ix_journal_entries_operation_id", "journal_entries", ["operation_id"])
