"""supplier bills: a supplier's bill matched to its orders' receipts, its charges, and the
price tolerance a supplier's bills post within

Revision ID: 0030
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0030"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    op.add_column("suppliers", sa.Column("bill_tolerance_percent", Dec(), nullable=False,
                                         server_default="0"))
    op.add_column("suppliers", sa.Column("bill_tolerance_amount", Dec(), nullable=False,
                                         server_default="0"))
    op.create_table(
        "supplier_bills",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=64), nullable=False),
        sa.Column("supplier_id", sa.Integer(), nullable=False),
        sa.Column("supplier_number", sa.String(length=64), nullable=False),
        sa.Column("bill_date", sa.Date(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("rate", Dec(), nullable=False),
        sa.Column("amount", Dec(), nullable=False),
        sa.Column("company_amount", Dec(), nullable=False),
        sa.Column("grni", Dec(), nullable=False),
        sa.Column("exchange", Dec(), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["supplier_id"], ["suppliers.id"],
                                name=op.f("fk_supplier_bills_supplier_id_suppliers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_supplier_bills")),
        sa.UniqueConstraint("number", name=op.f("uq_supplier_bills_number")),
    )
    op.create_index("ix_supplier_bills_supplier", "supplier_bills",
                    ["supplier_id", "supplier_number"])
    op.create_index(op.f("ix_supplier_bills_operation_id"), "supplier_bills",
                    ["operation_id"])
    op.create_table(
        "supplier_bill_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bill_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("order_line_id", sa.Integer(), nullable=False),
        sa.Column("quantity", Dec(), nullable=False),
        sa.Column("stock_quantity", Dec(), nullable=False),
        sa.Column("unit_price", Dec(), nullable=False),
        sa.Column("ordered_price", Dec(), nullable=False),
        sa.Column("grni", Dec(), nullable=False),
        sa.Column("repriced", Dec(), nullable=False),
        sa.Column("capitalised", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["bill_id"], ["supplier_bills.id"],
                                name=op.f("fk_supplier_bill_lines_bill_id_supplier_bills")),
        sa.ForeignKeyConstraint(
            ["order_line_id"], ["purchase_order_lines.id"],
            name=op.f("fk_supplier_bill_lines_order_line_id_purchase_order_lines")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_supplier_bill_lines")),
    )
    op.create_index(op.f("ix_supplier_bill_lines_bill_id"), "supplier_bill_lines",
                    ["bill_id"])
    op.create_index(op.f("ix_supplier_bill_lines_order_line_id"), "supplier_bill_lines",
                    ["order_line_id"])
    op.create_table(
        "supplier_bill_charges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bill_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("amount", Dec(), nullable=False),
        sa.Column("order_number", sa.String(length=64), nullable=False),
        sa.Column("allocate_by", sa.String(length=16), nullable=False),
        sa.Column("landed_cost", sa.String(length=64), nullable=True),
        sa.Column("company_amount", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["bill_id"], ["supplier_bills.id"],
                                name=op.f("fk_supplier_bill_charges_bill_id_supplier_bills")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_supplier_bill_charges")),
    )
    op.create_index(op.f("ix_supplier_bill_charges_bill_id"), "supplier_bill_charges",
                    ["bill_id"])


def downgrade() -> None:
    op.drop_table("supplier_bill_charges")
    op.drop_table("supplier_bill_lines")
    op.drop_table("supplier_bills")
    op.drop_column("suppliers", "bill_tolerance_amount")
    op.drop_column("suppliers", "bill_tolerance_percent")
