"""landed costs: freight and duty added to what a purchase order brought in; items take a
weight (kg per stock unit) to allocate them by

Existing items have no weight: a landed cost allocated by weight is refused for them
until one is set.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    op.add_column("items", sa.Column("weight", Dec(), nullable=True))
    op.create_table(
        "landed_costs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=64), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("receipt_operation_id", sa.String(length=36), nullable=True),
        sa.Column("amount", Dec(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("rate", Dec(), nullable=False),
        sa.Column("company_amount", Dec(), nullable=False),
        sa.Column("allocate_by", sa.String(length=16), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["order_id"], ["purchase_orders.id"],
                                name=op.f("fk_landed_costs_order_id_purchase_orders")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_landed_costs")),
        sa.UniqueConstraint("number", name=op.f("uq_landed_costs_number")),
    )
    op.create_index(op.f("ix_landed_costs_order_id"), "landed_costs", ["order_id"])
    op.create_index(op.f("ix_landed_costs_operation_id"), "landed_costs", ["operation_id"])
    op.create_table(
        "landed_cost_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("landed_cost_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("quantity", Dec(), nullable=False),
        sa.Column("base", Dec(), nullable=False),
        sa.Column("share", Dec(), nullable=False),
        sa.Column("capitalised", Dec(), nullable=False),
        sa.Column("expensed", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_landed_cost_lines_item_id_items")),
        sa.ForeignKeyConstraint(["landed_cost_id"], ["landed_costs.id"],
                                name=op.f("fk_landed_cost_lines_landed_cost_id_landed_costs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_landed_cost_lines")),
    )
    op.create_index(op.f("ix_landed_cost_lines_landed_cost_id"), "landed_cost_lines",
                    ["landed_cost_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_landed_cost_lines_landed_cost_id"), table_name="landed_cost_lines")
    op.drop_table("landed_cost_lines")
    op.drop_index(op.f("ix_landed_costs_operation_id"), table_name="landed_costs")
    op.drop_index(op.f("ix_landed_costs_order_id"), table_name="landed_costs")
    op.drop_table("landed_costs")
    op.drop_column("items", "weight")
