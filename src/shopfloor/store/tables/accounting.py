"""The journal: the accountant's view of every value the stock books moved (issue 31).

Each operation that moved value (a ledger row, a variance) posts one balanced entry per
document it touched, in the same transaction; a revert posts the exact negation of the
entries it reverts. `account_rules` holds only what a company changed: the chart's
defaults live in the domain (`domain/accounting/chart.py`), so a new role needs no row.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base

__all__ = ["AccountRule", "JournalEntry", "JournalLine"]


class AccountRule(Base):
    """Which account a role posts to: for every location and item kind (both null), or
    only for one location or one kind of item (the most specific rule wins)."""

    __tablename__ = "account_rules"
    __table_args__ = (UniqueConstraint("role", "location_id", "item_kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    role: Mapped[str] = mapped_column(String(32))
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"))
    item_kind: Mapped[str | None] = mapped_column(String(16))
    code: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(200))


class JournalEntry(Base):
    """`posted_at` is the movement's time (the books' date); `created_at` when it was
    written. `reverses` names the operation whose entries this one negates. An
    operation's entries are found by their documents (each entry is one document's) and
    its id, in one index: an index of the operation id alone was a random page more to
    write on every entry (issue 31), for lookups only a revert makes."""

    __tablename__ = "journal_entries"
    __table_args__ = (
        Index("ix_journal_entries_posted", "posted_at", "id"),
        Index("ix_journal_entries_document", "document_number", "document_type",
              "operation_id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    posted_at: Mapped[datetime]
    operation_id: Mapped[str | None] = mapped_column(String(36))
    document_type: Mapped[str | None] = mapped_column(String(32))
    document_number: Mapped[str | None] = mapped_column(String(64))
    memo: Mapped[str] = mapped_column(Text, default="")
    reverses: Mapped[str | None] = mapped_column(String(36))
    created_at: Mapped[datetime]


class JournalLine(Base):
    """One side of an entry; `posted_at` is copied from the entry so a trial balance is
    one indexed range scan per account."""

    __tablename__ = "journal_lines"
    __table_args__ = (
        Index("ix_journal_lines_account", "account", "posted_at", "debit", "credit"),
        Index("ix_journal_lines_entry", "entry_id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("journal_entries.id"))
    account: Mapped[str] = mapped_column(String(32))
    role: Mapped[str] = mapped_column(String(32))
    """What the amount is (inventory, GRNI ...), kept beside the account a company's rules
    chose then: the stock accounts' lines are found by it, whatever the rules say later."""
    debit: Mapped[Decimal]
    credit: Mapped[Decimal]
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id"))
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"))
    posted_at: Mapped[datetime]
