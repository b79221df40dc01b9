"""The books' stamp: what lets a process keep the chart of accounts and the period lock it
read, rather than read both on every apply that posts.

The stamp is a `meta` row holding a random token, replaced in the same transaction as any
change of the rules or the lock (`bump`), by whichever process makes it (the CLI, the
server, an MCP session). A process keeps its last read of the chart and the lock with the
stamp read in the same statement; an apply that posts uses what is kept, and reads the
stamp in the statement that writes its journal entry (no round trip of its own). A stamp
other than the kept one runs the whole transaction again, with a fresh read: so nothing
is committed on a chart or a lock that was no longer the database's when it committed,
as before. A write that posts no entry has its stamp read before its commit instead.

A random token rather than a counter: a database emptied (the tests) or restored from
another's backup never shows a kept stamp with other rules behind it. No stamp row (a
database a process of before the stamp last changed) keeps nothing: every apply reads.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Engine, event, insert, select, update
from sqlalchemy.orm import Session, SessionTransaction

from shopfloor.domain.base.context import Op
from shopfloor.store.engine import RetryTransaction
from shopfloor.store.prepared import Prepared, connection_of
from shopfloor.store.sessions import before_commit, settled
from shopfloor.store.tables import Meta, table

KEY = "books_stamp"
META = table(Meta)
STAMP = select(META.c.value).where(META.c.key == KEY).scalar_subquery()
"""The stamp as a column of another statement."""
_READ = Prepared(select(STAMP.label("stamp")))
_TRUSTED = "books_stamp.trusted"
"""session.info: the stamp of the kept read this transaction used, until confirmed."""
_CHANGED = "books_stamp.changed"
"""session.info: this transaction changed the rules or the lock (it keeps nothing)."""


@dataclass(frozen=True)
class Kept:
    stamp: str
    chart: Any
    """The `Chart` (chart.py): kept here, read there."""
    lock: date | None


_KEPT: WeakKeyDictionary[Engine, Kept] = WeakKeyDictionary()


def bump(op: Op) -> None:
    """Before a change of the rules or the lock, in its transaction: a new stamp."""
    conn = op.session.connection()
    op.session.info[_CHANGED] = True
    op.session.info.pop(_TRUSTED, None)
    new = secrets.token_hex(16)
    if not conn.execute(update(META).where(META.c.key == KEY).values(value=new)).rowcount:
        conn.execute(insert(META).values(key=KEY, value=new))


def ensure(conn: Connection) -> None:
    """At a database's open: a stamp, if it has none yet (then the first apply keeps)."""
    if conn.execute(select(STAMP)).scalar() is None:
        conn.execute(insert(META).values(key=KEY, value=secrets.token_hex(16)))


def kept(op: Op) -> Kept | None:
    """The process's read for an apply to use (a preview, a read and a transaction that
    changes the books read afresh); the stamp it rests on is confirmed before commit."""
    if op.preview or op.operation_id is None or _CHANGED in op.session.info:
        return None
    session = op.session
    found = _KEPT.get(connection_of(session).engine)
    if found is not None:
        session.info[_TRUSTED] = found.stamp
        before_commit(session, KEY, lambda: recheck(session))
    return found


def recheck(session: Session) -> None:
    """The trusted stamp confirmed by a read of its own (see `confirm`)."""
    if _TRUSTED in session.info:
        confirm(session, _READ.all(connection_of(session), {})[0][0])


def keep(op: Op, stamp: str | None, chart: Any, lock: date | None) -> None:
    """A fresh read, with the stamp read in the same statement, for the next applies."""
    if stamp is not None and _CHANGED not in op.session.info:
        _KEPT[connection_of(op.session).engine] = Kept(stamp, chart, lock)


def trusting(session: Session) -> bool:
    """Did this transaction use a kept read not yet confirmed?"""
    return _TRUSTED in session.info


def confirm(session: Session, stamp: str | None) -> None:
    """The stamp as read now in this transaction: another than the trusted one drops the
    process's read and runs the transaction again."""
    trusted = session.info.pop(_TRUSTED, None)
    settled(session, KEY)
    if trusted is not None and stamp != trusted:
        _KEPT.pop(connection_of(session).engine, None)
        raise RetryTransaction


@event.listens_for(Session, "after_transaction_end")
def _ended(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_TRUSTED, None)
        session.info.pop(_CHANGED, None)
