"""time-phased planning: lot sizing on items, dates on purchase lines, pegs (issue 13)

Existing rows keep their meaning: no order multiple (any quantity), no period of supply
(lot for lot), and purchase lines without a date of their own follow their order's.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("items") as batch:
        batch.add_column(sa.Column("order_multiple", Dec(), nullable=True))
        batch.add_column(sa.Column("supply_period_days", sa.Integer(), nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("purchase_order_lines") as batch:
        batch.add_column(sa.Column("expected_date", sa.Date(), nullable=True))
    op.create_table(
        "pegs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("purchase_order_id", sa.Integer(), nullable=True),
        sa.Column("manufacturing_order_id", sa.Integer(), nullable=True),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("need_kind", sa.String(32), nullable=False),
        sa.Column("need_number", sa.String(64), nullable=True),
        sa.Column("need_date", sa.Date(), nullable=False),
        sa.Column("quantity", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["purchase_order_id"], ["purchase_orders.id"],
                                name="fk_pegs_purchase_order_id_purchase_orders"),
        sa.ForeignKeyConstraint(["manufacturing_order_id"], ["manufacturing_orders.id"],
                                name="fk_pegs_manufacturing_order_id_manufacturing_orders"),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name="fk_pegs_item_id_items"),
        sa.PrimaryKeyConstraint("id", name="pk_pegs"),
    )
    op.create_index("ix_pegs_purchase_order", "pegs", ["purchase_order_id"])
    op.create_index("ix_pegs_manufacturing_order", "pegs", ["manufacturing_order_id"])


def downgrade() -> None:
    op.drop_index("ix_pegs_manufacturing_order", "pegs")
    op.drop_index("ix_pegs_purchase_order", "pegs")
    op.drop_table("pegs")
    # plain ALTER TABLE DROP COLUMN (SQLite 3.35+): a batch rebuild of `items` would trip
    # the foreign keys that point at it
    op.drop_column("purchase_order_lines", "expected_date")
    op.drop_column("items", "supply_period_days")
    op.drop_column("items", "order_multiple")
