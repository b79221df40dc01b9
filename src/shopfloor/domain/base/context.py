"""An operation in progress: the session, who acts, and what it changes.

Domain functions take an `Op` so a preview and an apply run the very same code; the
only difference is that a preview turns refusals into blocking warnings and is rolled
back by the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import Select
from sqlalchemy.orm import Session

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.kernel.numbers import fmt
from shopfloor.kernel.roles import Role

S = TypeVar("S", bound=Select[Any])


@dataclass(slots=True)
class Change:
    """Kept as the values themselves and worded only when shown: a hundred-line document
    records two changes a line, and most are never read before the result is built."""

    entity: str
    key: str
    field: str
    was: Any
    now: Any
    currency: str | None = None
    """The currency an amount is in, where the change is money: a surface draws before and
    after with it (a receipt's average cost is the books' money, not the order's)."""

    @property
    def before(self) -> str | None:
        return _text(self.was)

    @property
    def after(self) -> str | None:
        return _text(self.now)

    def as_dict(self) -> dict[str, Any]:
        out = {
            "entity": self.entity,
            "key": self.key,
            "field": self.field,
            "before": self.before,
            "after": self.after,
        }
        if self.currency is not None:
            out["currency"] = self.currency
        return out


@dataclass
class Caution:
    """What a preview warns of, blocking or not (not `Warning`: that is Python's own)."""

    code: str
    message: str
    blocking: bool = False
    field: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "blocking": self.blocking,
            "field": self.field,
        }


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return fmt(value)
    return str(value)


def _same(before: Any, after: Any) -> bool:
    """Equal as a person reads them: decimals by value (2.50 is 2.5), the rest as text."""
    if type(before) is Decimal and type(after) is Decimal:
        return before == after
    return _text(before) == _text(after)


@dataclass
class Op:
    session: Session
    actor: str
    now: datetime
    dialect: str = "sqlite"
    preview: bool = False
    locks_rows: bool = False
    operation_id: str | None = None
    changes: list[Change] = field(default_factory=list)
    warnings: list[Caution] = field(default_factory=list)
    _index: dict[tuple[str, str, str], Change] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)
    checkpoint: Callable[[float, str], None] | None = None
    flushers: list[Callable[[], None]] = field(default_factory=list)
    finishers: Sequence[Callable[[Op], None]] = ()
    """Run after every flush, once the rows are written: what is derived from all of an
    operation's rows (the journal) is posted here, handed down by the registry so that
    this row of the domain needs to know nothing above it."""
    roles: frozenset[Role] = frozenset()
    options: Mapping[str, Any] = field(default_factory=dict)
    """Deployment settings a rule consults (`webhook_allow_private`), handed down by the
    registry: the domain never reads the environment itself."""
    catalogue: object = None
    """The tools this operation runs among, handed down by the registry and opaque here
    (the domain knows no tool): a tool that reads another's declared facts (how a revert
    undoes it, the role it needs) asks `registry.catalogue.of(op)`, never the catalogue
    package, so what it reads is the registry's own."""

    def progress(self, fraction: float, message: str) -> None:
        """Long operations report here; inside a job this is a checkpoint that may stop the
        work (cancel), anywhere else it does nothing."""
        if self.checkpoint is not None:
            self.checkpoint(fraction, message)

    def flush(self) -> None:
        """Write what the operation kept in memory (its ledger rows and balances), then the
        ORM's pending rows: once, at the end of a handler."""
        for write in self.flushers:
            write()
        self.session.flush()
        for finish in self.finishers:
            finish(self)

    def lock(self, stmt: S) -> S:
        """FOR UPDATE OF the selected table on PostgreSQL (not its eagerly joined
        neighbours); SQLite already holds the database write lock."""
        if not self.locks_rows:
            return stmt
        return stmt.with_for_update(of=stmt.column_descriptions[0]["entity"])

    def change(self, entity: str, key: str, fld: str, before: Any, after: Any, *,
               currency: str | None = None) -> None:
        """Record a change; repeated changes to one field keep the first before. An amount
        names its `currency`."""
        existing = self._index.get((entity, key, fld))
        if existing is not None:
            existing.now = after
            return
        if _same(before, after):
            return
        c = Change(entity, key, fld, before, after, currency)
        self._index[(entity, key, fld)] = c
        self.changes.append(c)

    def warn(self, code: str, message: str, *, fld: str | None = None) -> None:
        self.warnings.append(Caution(code, message, False, fld))

    def refuse(self, error: ShopfloorError) -> None:
        """An apply stops here; a preview shows it as a warning that blocks Confirm."""
        if not self.preview:
            raise error
        self.warnings.append(Caution(error.code, error.message, True, error.field))

    @property
    def blocked(self) -> bool:
        return any(w.blocking for w in self.warnings)

    def final_changes(self) -> list[dict[str, Any]]:
        return [c.as_dict() for c in self.changes if not _same(c.was, c.now)]
