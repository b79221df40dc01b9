"""the event outbox, webhooks and their deliveries, outbox cursors, alert digests

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import shopfloor.store.types

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

When = shopfloor.store.types.UtcDateTime


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("at", When(), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_events")),
        sa.UniqueConstraint("id", name=op.f("uq_events_id")),
    )
    op.create_index("ix_events_order", "events", ["tx", "seq"], unique=False)
    op.create_index("ix_events_type_order", "events", ["type", "tx", "seq"], unique=False)
    op.create_table(
        "webhooks",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", When(), nullable=False),
        sa.Column("deleted_at", When(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("webhook_id", sa.String(length=40), nullable=False),
        sa.Column("event_seq", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", When(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=True),
        sa.Column("lease_until", When(), nullable=True),
        sa.Column("last_attempt_at", When(), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("delivered_at", When(), nullable=True),
        sa.Column("created_at", When(), nullable=False),
        sa.ForeignKeyConstraint(["event_seq"], ["events.seq"],
                                name=op.f("fk_webhook_deliveries_event_seq_events")),
        sa.ForeignKeyConstraint(["webhook_id"], ["webhooks.id"],
                                name=op.f("fk_webhook_deliveries_webhook_id_webhooks")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint("webhook_id", "event_seq",
                            name=op.f("uq_webhook_deliveries_webhook_id")),
    )
    op.create_index("ix_webhook_deliveries_due", "webhook_deliveries",
                    ["status", "next_attempt_at"], unique=False)
    op.create_index("ix_webhook_deliveries_webhook", "webhook_deliveries",
                    ["webhook_id", "id"], unique=False)
    op.create_table(
        "event_cursors",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("tx", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("checked_at", When(), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_event_cursors")),
    )
    op.create_table(
        "alert_states",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("changed_at", When(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_alert_states")),
    )


def downgrade() -> None:
    op.drop_table("alert_states")
    op.drop_table("event_cursors")
    op.drop_index("ix_webhook_deliveries_webhook", table_name="webhook_deliveries")
    op.drop_index("ix_webhook_deliveries_due", table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
    op.drop_index("ix_events_type_order", table_name="events")
    op.drop_index("ix_events_order", table_name="events")
    op.drop_table("events")
