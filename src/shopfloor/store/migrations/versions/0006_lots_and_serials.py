"""Lots and serial numbers through the ledger: per-lot balances, holds, numbering rules

Existing stock keeps every figure: lot balances are the ledger's sums per lot. A tracked
item that was shipped without naming lots (before lots reached shipments) has lots that
sum to more than its balance; the difference is reclassified out of its lots
(first-expiring first) by pairs of ledger rows that net to zero, so the balance, the
cost and history are unchanged and every lot's balance equals its ledger.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_movements = sa.table(
    "stock_movements", sa.column("id", sa.Integer), sa.column("item_id", sa.Integer),
    sa.column("location_id", sa.Integer), sa.column("batch_id", sa.Integer),
    sa.column("quantity", Dec()), sa.column("unit_cost", Dec()),
    sa.column("reason", sa.String), sa.column("document_type", sa.String),
    sa.column("document_number", sa.String), sa.column("actor", sa.String),
    sa.column("operation_id", sa.String), sa.column("created_at", UtcDateTime()))
_lots = sa.table("lot_balances", sa.column("item_id", sa.Integer),
                 sa.column("location_id", sa.Integer), sa.column("batch_id", sa.Integer),
                 sa.column("on_hand", Dec()), sa.column("version", sa.Integer))
_balances = sa.table("balances", sa.column("item_id", sa.Integer),
                     sa.column("location_id", sa.Integer), sa.column("on_hand", Dec()),
                     sa.column("average_cost", Dec()))
_batches = sa.table("batches", sa.column("id", sa.Integer), sa.column("expiry", sa.Date))
_items = sa.table("items", sa.column("id", sa.Integer), sa.column("batch_tracked", sa.Boolean))


def upgrade() -> None:
    # plain ALTER TABLE ADD/DROP COLUMN on both databases (SQLite 3.35+): a batch
    # rebuild of `items` would trip the foreign keys that point at it
    op.add_column("items", sa.Column("serial_tracked", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("items", sa.Column("lot_numbering", sa.String(64), nullable=True))
    op.add_column("items", sa.Column("shelf_life_days", sa.Integer(), nullable=True))
    op.add_column("batches", sa.Column("held", sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.add_column("batches", sa.Column("hold_reason", sa.String(500), nullable=True))
    op.add_column("batches", sa.Column("created_at", sa.DateTime(timezone=True),
                                       nullable=True))
    op.add_column("batches", sa.Column("version", sa.Integer(), nullable=False,
                                       server_default="1"))
    op.create_index("ix_movements_batch", "stock_movements", ["batch_id", "id"])
    op.create_index("ix_movements_document", "stock_movements",
                    ["document_number", "document_type"])
    op.create_table(
        "lot_balances",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("on_hand", Dec(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"],
                                name=op.f("fk_lot_balances_batch_id_batches")),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_lot_balances_item_id_items")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_lot_balances_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lot_balances")),
        sa.UniqueConstraint("item_id", "location_id", "batch_id",
                            name=op.f("uq_lot_balances_item_id")),
    )
    op.create_index("ix_lot_balances_batch", "lot_balances", ["batch_id"])
    _fill_lot_balances()


def _fill_lot_balances() -> None:
    conn = op.get_bind()
    m = _movements.c
    sums = conn.execute(
        sa.select(m.item_id, m.location_id, m.batch_id, sa.func.sum(m.quantity).label("q"))
        .where(m.batch_id.is_not(None)).group_by(m.item_id, m.location_id, m.batch_id)).all()
    if not sums:
        return
    tracked = {r.id for r in conn.execute(sa.select(_items.c.id)
                                          .where(_items.c.batch_tracked.is_(True)))}
    expiry = {r.id: r.expiry for r in conn.execute(sa.select(_batches.c.id, _batches.c.expiry))}
    balances = {(r.item_id, r.location_id): r for r in conn.execute(sa.select(_balances))}
    lots: dict[tuple[int, int], dict[int, Decimal]] = defaultdict(dict)
    for r in sums:
        lots[(r.item_id, r.location_id)][r.batch_id] = Decimal(r.q)
    now = datetime.now(UTC)
    moves: list[dict[str, object]] = []
    for (item_id, location_id), by_lot in lots.items():
        bal = balances.get((item_id, location_id))
        excess = sum(by_lot.values(), Decimal(0)) - (bal.on_hand if bal else Decimal(0))
        if item_id not in tracked or excess <= 0:
            continue
        for batch_id in sorted(by_lot, key=lambda b: (expiry[b] or date.max, b)):
            take = min(excess, max(by_lot[batch_id], Decimal(0)))
            if take <= 0:
                continue
            by_lot[batch_id] -= take
            excess -= take
            cost = bal.average_cost if bal else Decimal(0)
            for batch, qty in ((batch_id, -take), (None, take)):
                moves.append({"item_id": item_id, "location_id": location_id,
                              "batch_id": batch, "quantity": qty, "unit_cost": cost,
                              "reason": "lot_reclass", "document_type": None,
                              "document_number": None, "actor": "migration 0006",
                              "operation_id": None, "created_at": now})
            if excess <= 0:
                break
    if moves:
        conn.execute(sa.insert(_movements), moves)
    conn.execute(sa.insert(_lots), [
        {"item_id": item_id, "location_id": location_id, "batch_id": batch_id,
         "on_hand": qty, "version": 1}
        for (item_id, location_id), by_lot in lots.items() for batch_id, qty in by_lot.items()])


def downgrade() -> None:
    op.drop_index("ix_lot_balances_batch", table_name="lot_balances")
    op.drop_table("lot_balances")
    op.drop_index("ix_movements_document", table_name="stock_movements")
    op.drop_index("ix_movements_batch", table_name="stock_movements")
    for column in ("version", "created_at", "hold_reason", "held"):
        op.drop_column("batches", column)
    for column in ("shelf_life_days", "lot_numbering", "serial_tracked"):
        op.drop_column("items", column)
