"""A document's lots are found and created in work that grows with its lines, not faster:
the lookup probes the lots' unique key once per lot named (not once per pair of an item
and a lot number named anywhere on the document), and the inserts are statements whose
text PostgreSQL's driver parses once (not a placeholder per value, parsed on every call).
Counted, not timed: SQLite's virtual-machine instructions and the statements' text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import event, insert, select

from shopfloor.registry.registry import Registry
from shopfloor.store.bulk import insert_returning
from shopfloor.store.tables import Batch, Item, table
from shopfloor.store.tables.lots import LotBalance
from tests.given import Given
from tests.helpers import apply, ledger_mismatches

BATCHES = table(Batch)


def _tracked(registry: Registry, n: int) -> None:
    given = Given(registry)
    for i in range(n):  # counted to a millionth: the fractions below are its own
        given.item(f"T{i}", name=f"Tracked {i}", batch_tracked=True, precision=6)


def _receive(registry: Registry, lines: list[dict[str, Any]]) -> dict[str, Any]:
    po = apply(registry, "create_purchase_order", supplier="Acme", location="MAIN",
               lines=[{"sku": ln["sku"], "quantity": ln["quantity"], "unit_price": "1"}
                      for ln in lines])
    return apply(registry, "receive_purchase_order", number=po["number"], lines=lines)


def _one_lot_each(n: int, tag: str) -> list[dict[str, Any]]:
    return [{"sku": f"T{i}", "quantity": "2", "lots": [{"lot": f"{tag}-{i}"}]}
            for i in range(n)]


@contextmanager
def sqlite_steps(registry: Registry) -> Iterator[list[int]]:
    """SQLite virtual-machine instructions (in thousands) run while the block runs."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    def attach(conn: Any, *_: Any) -> None:
        conn.connection.dbapi_connection.set_progress_handler(tick, 1000)

    event.listen(registry.store.engine, "before_cursor_execute", attach)
    try:
        yield steps
    finally:
        event.remove(registry.store.engine, "before_cursor_execute", attach)


def test_lot_lookup_work_grows_with_lines_not_their_square(sqlite_url: str) -> None:
    from shopfloor.app.settings import Settings
    from shopfloor.app.wiring import open_registry

    registry = open_registry(Settings(database_url=sqlite_url))
    try:
        Given(registry).company()
        _tracked(registry, 240)
        per_line = {}
        for n in (40, 240):
            _receive(registry, _one_lot_each(n, f"warm{n}"))  # balances exist
            with sqlite_steps(registry) as steps:
                _receive(registry, _one_lot_each(n, f"R{n}"))
            per_line[n] = steps[0] / n
        # One probe a lot: per line the same work at 240 lines as at 40 (probing every
        # pair of two IN lists made it 2.7 times as much).
        assert per_line[240] < 1.5 * per_line[40], per_line
    finally:
        registry.store.dispose()


def test_lot_statements_do_not_grow_with_lines_on_postgresql(registry: Registry,
                                                             given: Given) -> None:
    given.company()
    _tracked(registry, 30)
    texts: dict[int, list[str]] = {}
    for n in (3, 30):
        _receive(registry, _one_lot_each(n, f"warm{n}"))
        seen: list[str] = []

        def keep(_c: Any, _cur: Any, statement: str, *_: Any, into: list[str] = seen) -> None:
            if "batches" in statement or "lot_balances" in statement:
                into.append(statement)

        event.listen(registry.store.engine, "before_cursor_execute", keep)
        try:
            _receive(registry, _one_lot_each(n, f"R{n}"))
        finally:
            event.remove(registry.store.engine, "before_cursor_execute", keep)
        texts[n] = seen
    assert len(texts[3]) == len(texts[30]) == 3  # lookup, lots, lot balances
    if registry.store.dialect == "postgresql":
        assert texts[3] == texts[30]


def test_lots_named_again_are_found_past_one_lookup_chunk(registry: Registry, given: Given) -> None:
    """500 lots on five lines (more than one lookup statement's 400 on SQLite): named
    again, every one is found, none created twice."""
    given.company()
    _tracked(registry, 5)
    lines = [{"sku": f"T{i}", "quantity": "100",
              "lots": [{"lot": f"L{j}", "quantity": "1"} for j in range(100)]}
             for i in range(5)]
    _receive(registry, lines)
    _receive(registry, lines[::-1])
    with registry.store.reading() as s:
        assert len(s.execute(select(BATCHES.c.id)).all()) == 500
        on_hand = s.scalars(select(LotBalance.on_hand)).all()
    assert sorted(set(on_hand)) == [Decimal(2)] and len(on_hand) == 500
    assert ledger_mismatches(registry) == []


def test_insert_returning_converts_like_sqlalchemy(registry: Registry, given: Given) -> None:
    """The driver-level insert stores what SQLAlchemy's would (dates, UTC datetimes,
    booleans, None), over more rows than one SQLite statement holds, and returns each
    row's key; a table whose left-out column has a Python default goes SQLAlchemy's way."""
    given.company()
    apply(registry, "create_item", sku="T0", name="Tracked", batch_tracked=True)
    now = datetime(2026, 11, 24, 12, 30, 1, 250, tzinfo=UTC)
    with registry.store.writing() as s:
        item = s.scalars(select(Item.id).where(Item.sku == "T0")).one()
        rows = [{"item_id": item, "lot_number": f"N{j}", "expiry": date(2027, 1, 1 + j % 28)
                 if j % 3 else None, "held": j % 2 == 0, "created_at": now, "version": 1}
                for j in range(1100)]
        conn = s.connection()
        back = insert_returning(conn, BATCHES, rows, ("id", "lot_number"))
        assert sorted(r.lot_number for r in back) == sorted(r["lot_number"] for r in rows)
        defaulted = insert_returning(conn, BATCHES, [
            {"item_id": item, "lot_number": "D1", "created_at": now}], ("id", "lot_number"))
        stored = {r.lot_number: r for r in s.execute(select(BATCHES))}
        s.commit()
    for r in back:
        got = stored[r.lot_number]
        want = rows[int(r.lot_number[1:])]
        assert got.id == r.id
        assert (got.expiry, got.held, got.created_at, got.version) == (
            want["expiry"], want["held"], now, 1)
    assert stored["D1"].held is False and stored["D1"].version == 1
    assert defaulted[0].id == stored["D1"].id


def test_sqlalchemy_insert_and_ours_agree(registry: Registry, given: Given) -> None:
    """The same rows through SQLAlchemy's insert and through ours read back the same."""
    given.company()
    apply(registry, "create_item", sku="T0", name="Tracked", batch_tracked=True)
    now = datetime.now(UTC)
    with registry.store.writing() as s:
        item = s.scalars(select(Item.id).where(Item.sku == "T0")).one()

        def row(tag: str) -> dict[str, Any]:
            return {"item_id": item, "lot_number": tag, "expiry": date(2027, 3, 1),
                    "held": True, "created_at": now, "version": 1}

        s.execute(insert(BATCHES), [row("SA")])
        insert_returning(s.connection(), BATCHES, [row("US")], ("id",))
        got = {r.lot_number: r for r in s.execute(select(BATCHES))}
        s.commit()
    a, b = got["SA"], got["US"]
    assert (a.expiry, a.held, a.created_at, a.version) == (b.expiry, b.held, b.created_at,
                                                          b.version)


def test_new_lot_balances_keep_their_decimals(registry: Registry, given: Given) -> None:
    """A fraction survives the lot balance's insert (sent in binary on PostgreSQL)."""
    given.company()
    _tracked(registry, 2)
    _receive(registry, [{"sku": "T0", "quantity": "2.125", "lots": [{"lot": "F1"}]},
                        {"sku": "T1", "quantity": "0.000001",
                         "lots": [{"lot": "F2", "expiry": "2027-02-28"}]}])
    with registry.store.reading() as s:
        got = {r.lot_number: (r.on_hand, r.expiry) for r in s.execute(
            select(BATCHES.c.lot_number, LotBalance.on_hand, BATCHES.c.expiry)
            .join(LotBalance, LotBalance.batch_id == BATCHES.c.id))}
    assert got == {"F1": (Decimal("2.125"), None), "F2": (Decimal("0.000001"), date(2027, 2, 28))}
