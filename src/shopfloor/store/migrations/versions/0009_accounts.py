"""local accounts for signing in (issue 14)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('accounts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('username', sa.String(length=200), nullable=False),
    sa.Column('password_hash', sa.String(length=500), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('password_changed_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_accounts')),
    sa.UniqueConstraint('username', name=op.f('uq_accounts_username'))
    )
    op.create_table('account_sessions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_reason', sa.String(length=32), nullable=True),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'],
                            name=op.f('fk_account_sessions_account_id_accounts')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_account_sessions'))
    )
    op.create_index(op.f('ix_account_sessions_account_id'), 'account_sessions',
                    ['account_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_account_sessions_account_id'), table_name='account_sessions')
    op.drop_table('account_sessions')
    op.drop_table('accounts')
