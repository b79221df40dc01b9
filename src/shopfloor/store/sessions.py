"""The write transaction's session: its connection handed back without the ORM's lookup.

The write path asks `session.connection()` a dozen times an apply (each rule's plain
statements run on it); the ORM answers through its transaction's state machine, ~7 us a
time, a twentieth of a one-line adjustment on SQLite. Within one transaction the answer
never changes, so it is kept from the transaction's begin to its end and handed back
when asked with no arguments; anything else (other binds, options) asks the ORM.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.orm import Session, SessionTransaction

_KEPT = "shopfloor.connection"


class WriteSession(Session):
    def connection(self, bind_arguments: Any = None,
                   execution_options: Any = None) -> Connection:
        if bind_arguments is None and execution_options is None:
            kept = self.info.get(_KEPT)
            if kept is not None:
                return kept  # type: ignore[no-any-return]
        return super().connection(bind_arguments, execution_options)


@event.listens_for(WriteSession, "after_begin")
def _keep(session: Session, transaction: SessionTransaction, connection: Connection) -> None:
    if transaction.parent is None and not transaction.nested:
        session.info[_KEPT] = connection


@event.listens_for(WriteSession, "after_transaction_end")
def _drop(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_KEPT, None)
