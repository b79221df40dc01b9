"""partners and letterhead: suppliers' and customers' contact, address, tax id, payment
terms and default lead time; notes and the partner's reference on every order and return;
the company's profile (its letterhead) in one row

Every new column is nullable: existing rows read as "not given".

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import UtcDateTime

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

PARTNERS = ("suppliers", "customers")
REFERENCED = ("purchase_orders", "sales_orders", "manufacturing_orders", "stock_returns")
NOTED = ("manufacturing_orders", "stock_returns")  # the orders had notes already


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    for table in PARTNERS:
        op.add_column(table, sa.Column("contact", sa.String(length=200), nullable=True))
        op.add_column(table, sa.Column("address", sa.Text(), nullable=True))
        op.add_column(table, sa.Column("tax_id", sa.String(length=64), nullable=True))
        op.add_column(table, sa.Column("payment_terms_days", sa.Integer(), nullable=True))
        op.add_column(table, sa.Column("lead_time_days", sa.Integer(), nullable=True))
    for table in NOTED:
        op.add_column(table, sa.Column("notes", sa.Text(), nullable=True))
    for table in REFERENCED:
        op.add_column(table, sa.Column("reference", sa.String(length=100), nullable=True))
    op.create_table(
        "company_profile",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("address", sa.Text(), nullable=True),
        sa.Column("tax_id", sa.String(length=64), nullable=True),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("phone", sa.String(length=64), nullable=True),
        sa.Column("logo", sa.Text(), nullable=True),
        sa.Column("logo_type", sa.String(length=32), nullable=True),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_company_profile")),
    )


def downgrade() -> None:
    op.drop_table("company_profile")
    for table in REFERENCED:
        op.drop_column(table, "reference")
    for table in NOTED:
        op.drop_column(table, "notes")
    for table in PARTNERS:
        for column in ("lead_time_days", "payment_terms_days", "tax_id", "address", "contact"):
            op.drop_column(table, column)
