"""manufacturing orders count their scrapped units

Scrap leaves no mark in the stock ledger of its own (its components' consumption is
indistinguishable from a variance), but every completion that scrapped logged it: the
operation log's `scrapped` change of `complete_manufacturing_order` (`scrapped_quantity`
since). The new column is the sum of those, leaving out completions that were reverted.

Until now scrap did not count against the order: one whose good and scrapped units reached
its quantity stayed in progress with the scrapped units' components committed. Each open
order gives up that commitment (never more than it still held) and, if complete, is done.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from alembic import op

from shopfloor.store.types import Dec

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_log = sa.table("operation_log", sa.column("operation_id", sa.String),
                sa.column("tool", sa.String), sa.column("result", sa.JSON))
_reverts = sa.table("reverts", sa.column("reverted_operation_id", sa.String))
_orders = sa.table("manufacturing_orders", sa.column("id", sa.Integer),
                   sa.column("number", sa.String), sa.column("location_id", sa.Integer),
                   sa.column("quantity", Dec()), sa.column("completed_quantity", Dec()),
                   sa.column("scrapped_quantity", Dec()), sa.column("status", sa.String),
                   sa.column("version", sa.Integer))
_components = sa.table("manufacturing_components", sa.column("order_id", sa.Integer),
                       sa.column("item_id", sa.Integer),
                       sa.column("quantity_per_unit", Dec()))
_balances = sa.table("balances", sa.column("id", sa.Integer), sa.column("item_id", sa.Integer),
                     sa.column("location_id", sa.Integer), sa.column("committed", Dec()),
                     sa.column("version", sa.Integer))


def _logged_scrap(conn: Any) -> dict[str, Decimal]:
    reverted = sa.select(_reverts.c.reverted_operation_id)
    scrap: dict[str, Decimal] = defaultdict(Decimal)
    for (result,) in conn.execute(sa.select(_log.c.result).where(
            _log.c.tool == "complete_manufacturing_order",
            ~_log.c.operation_id.in_(reverted))):
        for c in (result or {}).get("changes", []):
            if c.get("entity") != "manufacturing_order" or not c.get("after"):
                continue
            if c.get("field") == "scrapped":
                scrap[c["key"]] += Decimal(c["after"])
            elif c.get("field") == "scrapped_quantity":  # logged so since (a re-upgrade)
                scrap[c["key"]] += Decimal(c["after"]) - Decimal(c.get("before") or 0)
    return scrap


def upgrade() -> None:
    with op.batch_alter_table("manufacturing_orders", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scrapped_quantity", Dec(), nullable=False,
                                      server_default="0"))
    conn = op.get_bind()
    scrap = _logged_scrap(conn)
    if not scrap:
        return
    o = _orders.c
    for mo in conn.execute(sa.select(_orders).where(o.number.in_(sorted(scrap)))).all():
        scrapped = scrap[mo.number]
        values: dict[str, Any] = {"scrapped_quantity": scrapped, "version": mo.version + 1}
        if mo.status in ("planned", "in_progress"):
            _commit(conn, mo, -_owed(mo.quantity - mo.completed_quantity, scrapped))
            if mo.completed_quantity + scrapped >= mo.quantity:
                values["status"] = "done"
        conn.execute(_orders.update().where(o.id == mo.id).values(**values))


def _owed(left: Decimal, scrapped: Decimal) -> Decimal:
    """The scrapped units the old rule kept committed: never more than it had left."""
    return min(scrapped, max(left, Decimal(0)))


def _commit(conn: Any, mo: Any, units: Decimal) -> None:
    """Commit (negative: release) the components of `units` units of the order."""
    if units == 0:
        return
    b = _balances.c
    for item_id, per_unit in conn.execute(sa.select(
            _components.c.item_id, _components.c.quantity_per_unit).where(
            _components.c.order_id == mo.id)).all():
        bal = conn.execute(sa.select(b.id, b.committed, b.version).where(
            b.item_id == item_id, b.location_id == mo.location_id)).first()
        if bal is None:
            continue
        conn.execute(_balances.update().where(b.id == bal.id).values(
            committed=max(Decimal(0), bal.committed + per_unit * units),
            version=bal.version + 1))


def downgrade() -> None:
    """Back to the old rule, so that upgrading again gives the same figures: an order
    finished by its scrap is in progress again, the scrapped units' components committed."""
    conn = op.get_bind()
    o = _orders.c
    for mo in conn.execute(sa.select(_orders).where(
            o.scrapped_quantity > 0, o.status.in_(("planned", "in_progress", "done")),
            o.completed_quantity < o.quantity)).all():
        _commit(conn, mo, _owed(mo.quantity - mo.completed_quantity, mo.scrapped_quantity))
        if mo.status == "done":
            conn.execute(_orders.update().where(o.id == mo.id).values(
                status="in_progress", version=mo.version + 1))
    # plain ALTER TABLE DROP COLUMN (SQLite 3.35+): a batch rebuild would trip the foreign
    # key of manufacturing_components, as in 0007
    op.drop_column("manufacturing_orders", "scrapped_quantity")
