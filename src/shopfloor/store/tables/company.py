"""The company's own letterhead: one row, read by every printed document.

Versioned like any row a preview reads, so a letterhead changed between a preview and its
apply makes the apply stale. The logo is kept in the row (at most 200 KB, base64): a
backup of the database is then a backup of the letterhead.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shopfloor.store.tables.core import Base, Versioned


class CompanyProfile(Versioned, Base):
    __tablename__ = "company_profile"
    id: Mapped[int] = mapped_column(primary_key=True)  # always 1
    name: Mapped[str] = mapped_column(String(200))
    address: Mapped[str | None] = mapped_column(Text)  # lines joined by newlines
    tax_id: Mapped[str | None] = mapped_column(String(64))
    email: Mapped[str | None] = mapped_column(String(320))
    phone: Mapped[str | None] = mapped_column(String(64))
    logo: Mapped[str | None] = mapped_column(Text)  # base64 of the file
    logo_type: Mapped[str | None] = mapped_column(String(32))  # image/png or image/svg+xml
    updated_at: Mapped[datetime]
