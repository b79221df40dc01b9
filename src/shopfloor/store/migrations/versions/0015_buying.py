"""buying in the supplier's terms: supplier items, exchange rates, purchase units, currencies,
recipe yield and by-products

Every new column has the default that keeps an existing row meaning what it meant: no
currency is the company's, no unit is the item's own, a recipe line loses nothing and
needs no set-up, and a recipe gives nothing besides its product.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_YIELD = ("recipe_lines", "manufacturing_components")


def upgrade() -> None:
    op.create_table(
        "supplier_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("supplier_id", sa.Integer(), nullable=False),
        sa.Column("supplier_sku", sa.String(length=64), nullable=True),
        sa.Column("purchase_unit", sa.String(length=32), nullable=False),
        sa.Column("units_per_purchase_unit", Dec(), nullable=False),
        sa.Column("minimum_order", Dec(), nullable=False),
        sa.Column("order_multiple", Dec(), nullable=True),
        sa.Column("lead_time_days", sa.Integer(), nullable=False),
        sa.Column("price_breaks", sa.JSON(), nullable=False),
        sa.Column("preferred", sa.Boolean(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_supplier_items_item_id_items")),
        sa.ForeignKeyConstraint(["supplier_id"], ["suppliers.id"],
                                name=op.f("fk_supplier_items_supplier_id_suppliers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_supplier_items")),
        sa.UniqueConstraint("item_id", "supplier_id", name=op.f("uq_supplier_items_item_id")),
    )
    op.create_index(op.f("ix_supplier_items_supplier_id"), "supplier_items", ["supplier_id"])
    op.create_table(
        "exchange_rates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("rate", Dec(), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exchange_rates")),
        sa.UniqueConstraint("currency", "valid_from", name=op.f("uq_exchange_rates_currency")),
    )
    op.create_table(
        "recipe_by_products",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("product_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("quantity", Dec(), nullable=False),
        sa.Column("cost_share_percent", Dec(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_recipe_by_products_item_id_items")),
        sa.ForeignKeyConstraint(["product_id"], ["items.id"],
                                name=op.f("fk_recipe_by_products_product_id_items")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recipe_by_products")),
    )
    op.create_index(op.f("ix_recipe_by_products_product_id"), "recipe_by_products",
                    ["product_id"])
    # plain ALTER TABLE ADD COLUMN: a batch rebuild would trip the foreign keys (as in 0011)
    for table in ("suppliers", "customers", "purchase_orders", "sales_orders"):
        op.add_column(table, sa.Column("currency", sa.String(length=3), nullable=True))
    op.add_column("purchase_order_lines", sa.Column("unit", sa.String(length=32), nullable=True))
    op.add_column("purchase_order_lines", sa.Column("units_per_unit", Dec(), nullable=True))
    for table in _YIELD:
        op.add_column(table, sa.Column("attrition_percent", Dec(), nullable=False,
                                       server_default="0"))
        op.add_column(table, sa.Column("setup_quantity", Dec(), nullable=False,
                                       server_default="0"))
        op.add_column(table, sa.Column("rounding_multiple", Dec(), nullable=True))
    op.add_column("manufacturing_orders", sa.Column("by_products", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("manufacturing_orders", "by_products")
    for table in _YIELD:
        for column in ("rounding_multiple", "setup_quantity", "attrition_percent"):
            op.drop_column(table, column)
    op.drop_column("purchase_order_lines", "units_per_unit")
    op.drop_column("purchase_order_lines", "unit")
    for table in ("suppliers", "customers", "purchase_orders", "sales_orders"):
        op.drop_column(table, "currency")
    op.drop_index(op.f("ix_recipe_by_products_product_id"), table_name="recipe_by_products")
    op.drop_table("recipe_by_products")
    op.drop_table("exchange_rates")
    op.drop_index(op.f("ix_supplier_items_supplier_id"), table_name="supplier_items")
    op.drop_table("supplier_items")
