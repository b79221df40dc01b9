"""The write transaction's session: its connection handed back without the ORM's lookup.

The write path asks `session.connection()` a dozen times an apply (each rule's plain
statements run on it); the ORM answers through its transaction's state machine, ~7 us a
time, a twentieth of a one-line adjustment on SQLite. Within one transaction the answer
never changes, so it is kept from the transaction's begin to its end and handed back
when asked with no arguments; anything else (other binds, options) asks the ORM.

A rule may also leave a check for the commit (`before_commit`): something it trusted
without reading it in this transaction (a process's kept read of the chart of accounts),
confirmed before the transaction may commit, unless the rule confirmed it on the way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.orm import Session, SessionTransaction

from shopfloor.store.prepared import heard, quiet_while

_KEPT = "shopfloor.connection"
_CHECKS = "shopfloor.before_commit"


class WriteSession(Session):
    def connection(self, bind_arguments: Any = None,
                   execution_options: Any = None) -> Connection:
        if bind_arguments is None and execution_options is None:
            kept = self.info.get(_KEPT)
            # within a savepoint, the ORM's own answer: it emits the SAVEPOINT, lazily
            if kept is not None and self.get_nested_transaction() is None:
                return kept  # type: ignore[no-any-return]
        return super().connection(bind_arguments, execution_options)


@event.listens_for(WriteSession, "after_begin")
def _keep(session: Session, transaction: SessionTransaction, connection: Connection) -> None:
    if transaction.parent is None and not transaction.nested:
        session.info[_KEPT] = connection
        quiet_while(connection)


@event.listens_for(WriteSession, "after_transaction_end")
def _drop(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        kept = session.info.pop(_KEPT, None)
        if kept is not None:
            heard(kept)


def before_commit(session: Session, name: str, check: Callable[[], None]) -> None:
    """`check` runs when `session` commits its transaction (once per name; one left for
    a transaction that rolls back is dropped with it). It may raise to refuse the commit
    (RetryTransaction runs the whole transaction again)."""
    session.info.setdefault(_CHECKS, {})[name] = check


def settled(session: Session, name: str) -> None:
    """The check named `name` is done already: the commit needs not run it."""
    session.info.get(_CHECKS, {}).pop(name, None)


@event.listens_for(Session, "before_commit")
def _check(session: Session) -> None:
    for check in list(session.info.get(_CHECKS, {}).values()):
        check()


@event.listens_for(Session, "after_transaction_end")
def _checked(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_CHECKS, None)
