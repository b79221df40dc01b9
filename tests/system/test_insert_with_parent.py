"""store/bulk.py's insert of a row and its children in one call (the journal's entry and
lines: one statement on PostgreSQL, one cursor on SQLite) writes what the two plain inserts
write: the same values through the same column types, each child naming its new parent."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from shopfloor.registry.registry import Registry
from shopfloor.store.bulk import executemany, insert_with_parent
from shopfloor.store.tables import JournalEntry, JournalLine

AT = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
ENTRY = {"posted_at": AT, "operation_id": None, "document_type": "stock_adjustment",
         "document_number": "ADJ-1", "memo": 'a "memo", with comma', "reverses": None,
         "created_at": AT}
LINES = [{"account": a, "role": r, "debit": d, "credit": c, "item_id": None,
          "location_id": None, "posted_at": AT}
         for a, r, d, c in (("1310", "inventory", Decimal("12.345678"), Decimal(0)),
                            ("5100", "adjustments", Decimal(0), Decimal("12.34")),
                            ("7990", "rounding", Decimal(0), Decimal("0.005678")))]


def _written(registry: Registry) -> list[tuple[Any, ...]]:
    e, ln = JournalEntry, JournalLine
    with registry.store.reading() as s:
        return [tuple(r) for r in s.execute(
            select(e.id, e.posted_at, e.document_type, e.document_number, e.memo,
                   e.created_at, ln.account, ln.role, ln.debit, ln.credit, ln.posted_at)
            .join(ln, ln.entry_id == e.id).order_by(e.id, ln.id))]


def test_an_entry_and_its_lines_in_one_statement_equal_two_inserts(
        registry: Registry) -> None:
    before = len(_written(registry))
    with registry.store.writing() as s:
        conn = s.connection()
        read = insert_with_parent(conn, insert(JournalEntry), ENTRY, insert(JournalLine),
                                  "entry_id", LINES)
        one = read is not None
        if not one:  # the other databases: the two inserts, as the journal writes them
            (entry_id,) = conn.execute(insert(JournalEntry).returning(JournalEntry.id),
                                       ENTRY).one()
            executemany(conn, insert(JournalLine), [{"entry_id": entry_id, **r}
                                                    for r in LINES])
        (entry_id,) = conn.execute(insert(JournalEntry).returning(JournalEntry.id),
                                   ENTRY).one()
        executemany(conn, insert(JournalLine), [{"entry_id": entry_id, **r} for r in LINES])
        s.commit()
    assert one and read is not None and len(read) == 1  # the entry's new id, nothing read
    rows = _written(registry)[before:]
    assert len(rows) == 6
    first, second = rows[:3], rows[3:]
    assert len({r[0] for r in first}) == 1 and first[0][0] != second[0][0]
    assert read is not None and first[0][0] == read[0]
    assert [r[1:] for r in first] == [r[1:] for r in second]
    assert [(r[8], r[9]) for r in first] == [(x["debit"], x["credit"]) for x in LINES]
    assert first[0][1] == AT and first[0][10] == AT
