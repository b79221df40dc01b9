"""the shop floor: work centres, routings, the operations of manufacturing orders (issue 22)

Existing orders have no operations: they keep being dated by their item's lead time and
costed at their materials, as before.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "work_centres",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("hourly_cost", Dec(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.Column("efficiency_percent", Dec(), nullable=False),
        sa.Column("calendar", sa.JSON(), nullable=False),
        sa.Column("closed_dates", sa.JSON(), nullable=False),
        sa.Column("time_zone", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_work_centres"),
        sa.UniqueConstraint("code", name="uq_work_centres_code"),
    )
    op.create_table(
        "routing_operations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("work_centre_id", sa.Integer(), nullable=False),
        sa.Column("setup_minutes", Dec(), nullable=False),
        sa.Column("run_minutes", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name="fk_routing_operations_item_id_items"),
        sa.ForeignKeyConstraint(["work_centre_id"], ["work_centres.id"],
                                name="fk_routing_operations_work_centre_id_work_centres"),
        sa.PrimaryKeyConstraint("id", name="pk_routing_operations"),
        sa.UniqueConstraint("item_id", "sequence", name="uq_routing_operations_item_sequence"),
    )
    op.create_index("ix_routing_operations_item_id", "routing_operations", ["item_id"])
    op.create_table(
        "manufacturing_operations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("order_id", sa.Integer(), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("work_centre_id", sa.Integer(), nullable=False),
        sa.Column("setup_minutes", Dec(), nullable=False),
        sa.Column("run_minutes", Dec(), nullable=False),
        sa.Column("planned_minutes", Dec(), nullable=False),
        sa.Column("planned_start", UtcDateTime(), nullable=True),
        sa.Column("planned_finish", UtcDateTime(), nullable=True),
        sa.Column("logged_minutes", Dec(), nullable=False),
        sa.Column("logged_quantity", Dec(), nullable=False),
        sa.Column("status", sa.String(24), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"], ["manufacturing_orders.id"],
            name="fk_manufacturing_operations_order_id_manufacturing_orders"),
        sa.ForeignKeyConstraint(
            ["work_centre_id"], ["work_centres.id"],
            name="fk_manufacturing_operations_work_centre_id_work_centres"),
        sa.PrimaryKeyConstraint("id", name="pk_manufacturing_operations"),
    )
    op.create_index("ix_manufacturing_operations_order_id", "manufacturing_operations",
                    ["order_id"])
    op.create_index("ix_manufacturing_operations_centre_start", "manufacturing_operations",
                    ["work_centre_id", "planned_start"])


def downgrade() -> None:
    op.drop_table("manufacturing_operations")
    op.drop_table("routing_operations")
    op.drop_table("work_centres")
