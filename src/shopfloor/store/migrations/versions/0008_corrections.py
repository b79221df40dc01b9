"""corrections, returns, close short, stocktakes (issue 12)

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import shopfloor.store.types

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Dec = shopfloor.store.types.Dec
When = shopfloor.store.types.UtcDateTime


def upgrade() -> None:
    for name in ("purchase_order_lines", "sales_order_lines"):
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.add_column(sa.Column("returned_quantity", Dec(), nullable=False,
                                          server_default="0"))
    with op.batch_alter_table("stock_adjustment_lines", schema=None) as batch_op:
        batch_op.add_column(sa.Column("counted_at", When(), nullable=True))
    op.create_table(
        "reverts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reverted_operation_id", sa.String(length=36), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("created_at", When(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reverts")),
        sa.UniqueConstraint("reverted_operation_id", name=op.f("uq_reverts_reverted_operation_id")),
    )
    with op.batch_alter_table("reverts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_reverts_operation_id"), ["operation_id"],
                              unique=False)
    op.create_table(
        "stock_returns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("order_number", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("created_at", When(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stock_returns")),
        sa.UniqueConstraint("number", name=op.f("uq_stock_returns_number")),
    )
    with op.batch_alter_table("stock_returns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stock_returns_order_number"), ["order_number"],
                              unique=False)
    op.create_table(
        "stock_return_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("return_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("quantity", Dec(), nullable=False),
        sa.Column("unit_cost", Dec(), nullable=False),
        sa.Column("disposition", sa.String(length=16), nullable=False),
        sa.Column("lot_number", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(["return_id"], ["stock_returns.id"],
                                name=op.f("fk_stock_return_lines_return_id_stock_returns")),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_stock_return_lines_item_id_items")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_stock_return_lines_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stock_return_lines")),
    )
    with op.batch_alter_table("stock_return_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stock_return_lines_return_id"), ["return_id"],
                              unique=False)
    op.create_table(
        "cost_adjustments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("operation_id", sa.String(length=36), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        sa.Column("source_document", sa.String(length=100), nullable=False),
        sa.Column("document_type", sa.String(length=32), nullable=True),
        sa.Column("document_number", sa.String(length=64), nullable=True),
        sa.Column("amount", Dec(), nullable=False),
        sa.Column("created_at", When(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_cost_adjustments_item_id_items")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_cost_adjustments_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cost_adjustments")),
    )
    with op.batch_alter_table("cost_adjustments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cost_adjustments_operation_id"), ["operation_id"],
                              unique=False)


def downgrade() -> None:
    for name in ("cost_adjustments", "stock_return_lines", "stock_returns", "reverts"):
        op.drop_table(name)
    # plain ALTER TABLE DROP COLUMN (SQLite 3.35+), no batch rebuild under foreign keys
    op.drop_column("stock_adjustment_lines", "counted_at")
    for name in ("sales_order_lines", "purchase_order_lines"):
        op.drop_column(name, "returned_quantity")
