"""every ledger row carries its value; balances keep theirs; variances (issue 21)

`stock_movements.value` is the signed change of stock value a row makes, backfilled as
quantity x unit cost (rounded to the column's six places, as every value is).
`balances.stock_value` is the value of the stock on hand: the books as they stood, on hand
x average cost. The ledger as written before did not always sum to that (a price
correction's pair of rows kept the share already shipped, which a cost adjustment
documented; a supplier return's floor dropped value; a revert put back a logged average):
where a balance's rows sum to something else, one quantity-0 `revaluation` row brings the
ledger to the balance and a variance of kind `opening` records the difference, so that
from here on a balance's rows sum to its value exactly and nothing is lost unrecorded.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec, UtcDateTime

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_Q = Decimal("0.000001")
_moves = sa.table("stock_movements", sa.column("id", sa.Integer),
                  sa.column("item_id", sa.Integer), sa.column("location_id", sa.Integer),
                  sa.column("batch_id", sa.Integer), sa.column("quantity", Dec()),
                  sa.column("unit_cost", Dec()), sa.column("value", Dec()),
                  sa.column("reason", sa.String), sa.column("document_type", sa.String),
                  sa.column("document_number", sa.String), sa.column("actor", sa.String),
                  sa.column("operation_id", sa.String), sa.column("created_at", UtcDateTime()))
_balances = sa.table("balances", sa.column("id", sa.Integer), sa.column("item_id", sa.Integer),
                     sa.column("location_id", sa.Integer), sa.column("on_hand", Dec()),
                     sa.column("average_cost", Dec()), sa.column("stock_value", Dec()))


def _round(v: Decimal) -> Decimal:
    return v.quantize(_Q, rounding=ROUND_HALF_EVEN)


def upgrade() -> None:
    with op.batch_alter_table("stock_movements", schema=None) as batch_op:
        batch_op.add_column(sa.Column("value", Dec(), nullable=False, server_default="0"))
    with op.batch_alter_table("balances", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stock_value", Dec(), nullable=False,
                                      server_default="0"))
    op.create_table(
        "variances",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("location_id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("amount", Dec(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("document_type", sa.String(length=32), nullable=True),
        sa.Column("document_number", sa.String(length=64), nullable=True),
        sa.Column("operation_id", sa.String(length=36), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_variances_item_id_items")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"],
                                name=op.f("fk_variances_location_id_locations")),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"],
                                name=op.f("fk_variances_batch_id_batches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_variances")),
    )
    with op.batch_alter_table("variances", schema=None) as batch_op:
        batch_op.create_index("ix_variances_item_location", ["item_id", "location_id", "id"])
        batch_op.create_index("ix_variances_created", ["created_at"])
        batch_op.create_index("ix_variances_document", ["document_number", "document_type"])
        batch_op.create_index(batch_op.f("ix_variances_operation_id"), ["operation_id"])
    _backfill(op.get_bind())


def _backfill(conn: Any) -> None:
    m = _moves.c
    sums: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    last = 0
    while True:
        rows = conn.execute(sa.select(m.id, m.item_id, m.location_id, m.quantity, m.unit_cost)
                            .where(m.id > last).order_by(m.id).limit(5000)).all()
        if not rows:
            break
        params = []
        for r in rows:
            v = _round(r.quantity * r.unit_cost)
            sums[(r.item_id, r.location_id)] += v
            params.append({"m_id": r.id, "m_value": v})
        conn.execute(_moves.update().where(m.id == sa.bindparam("m_id"))
                     .values(value=sa.bindparam("m_value")), params)
        last = rows[-1].id
    b = _balances.c
    now = datetime.now(UTC)
    fixes: list[dict[str, Any]] = []
    gaps: list[dict[str, Any]] = []
    params = []
    for bal in conn.execute(sa.select(b.id, b.item_id, b.location_id, b.on_hand,
                                      b.average_cost)).all():
        value = _round(bal.on_hand * bal.average_cost)
        params.append({"b_id": bal.id, "b_value": value})
        gap = sums.get((bal.item_id, bal.location_id), Decimal(0)) - value
        if gap == 0:
            continue
        where = {"item_id": bal.item_id, "location_id": bal.location_id, "batch_id": None,
                 "document_type": None, "document_number": "0013", "operation_id": None,
                 "created_at": now}
        fixes.append({**where, "quantity": Decimal(0), "unit_cost": Decimal(0), "value": -gap,
                      "reason": "revaluation", "actor": "migration"})
        gaps.append({**where, "amount": gap, "kind": "opening",
                     "reason": "the ledger held this beyond the balance's value before "
                               "values were kept"})
    if params:
        conn.execute(_balances.update().where(b.id == sa.bindparam("b_id"))
                     .values(stock_value=sa.bindparam("b_value")), params)
    if fixes:
        conn.execute(_moves.insert(), fixes)
        variances = sa.table(
            "variances", *(sa.column(k) for k in ("item_id", "location_id", "batch_id",
                                                  "document_type", "document_number",
                                                  "operation_id", "kind", "reason")),
            sa.column("amount", Dec()), sa.column("created_at", UtcDateTime()))
        conn.execute(variances.insert(), gaps)


def downgrade() -> None:
    conn = op.get_bind()
    m = _moves.c
    conn.execute(_moves.delete().where(m.reason == "revaluation", m.actor == "migration",
                                       m.document_number == "0013"))
    op.drop_table("variances")
    op.drop_column("balances", "stock_value")
    op.drop_column("stock_movements", "value")
