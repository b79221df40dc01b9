"""what each key looks like (its skeleton), indexed, for look-alike warnings

Keys are typed in one form now (NFKC, nothing invisible), so an older key stored in
another would be out of reach: each is renamed to that form where no other row has it
(a key that would clash is left as it was, and logged). Then every key's skeleton is
stored beside it.

Revision ID: 0011
Revises: 0009
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from shopfloor.kernel import keys

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")
_KEYS = (("items", "sku"), ("locations", "code"), ("suppliers", "name"), ("customers", "name"))


def upgrade() -> None:
    conn = op.get_bind()
    for table, key in _KEYS:
        skeleton = f"{key}_skeleton"
        # plain ALTER TABLE ADD COLUMN on both databases: a batch rebuild of these tables
        # would trip the foreign keys that point at them
        op.add_column(table, sa.Column(skeleton, sa.Text(), nullable=True))
        rows = sa.table(table, sa.column("id", sa.Integer), sa.column(key, sa.String),
                        sa.column(skeleton, sa.Text))
        found = conn.execute(sa.select(rows.c.id, rows.c[key])).all()
        taken = {value for _, value in found}
        updates = []
        for id_, value in found:
            clean = keys.cleaned(value)
            if clean != value and clean and clean not in taken:
                taken.add(clean)
                value = clean
            elif clean != value:
                log.warning("%s %s %r kept as it is: %r is blank or taken", table, key,
                            value, clean)
            updates.append({"row": id_, "key": value, "fold": keys.skeleton(value)})
        if updates:
            conn.execute(sa.update(rows).where(rows.c.id == sa.bindparam("row"))
                         .values({key: sa.bindparam("key"), skeleton: sa.bindparam("fold")}),
                         updates)
        op.create_index(op.f(f"ix_{table}_{skeleton}"), table, [skeleton], unique=False)


def downgrade() -> None:
    for table, key in _KEYS:
        op.drop_index(op.f(f"ix_{table}_{key}_skeleton"), table_name=table)
        op.drop_column(table, f"{key}_skeleton")
