"""executemany at the driver, for the few statements the write path runs once per document
with a row per line (ledger rows, document lines, balance updates).

SQLAlchemy's executemany builds each row's parameters through the compiled statement
(`construct_params`, default handling, one type-processor call per value): about half of
a 100-line adjustment's apply went there. Here the statement is compiled once per
dialect and set of columns, each column's bind processor looked up once, and the rows go
to the DB-API cursor as plain tuples (or dicts, for a named paramstyle): the same SQL, the
same conversions (our `Dec` and `UtcDateTime` types run as before), through the same
connection and transaction, with the engine's statement events firing as usual.

On both databases: sqlite3's executemany runs in process, and psycopg's sends every row
in one pipeline (what SQLAlchemy's own path hands it too, after building each row's
parameters: a third of a 100-line PostgreSQL apply's client time). The rows go to the
driver's cursor itself unless something listens to the engine's statement events (see
store/prepared.py), when they go through `exec_driver_sql` so that it sees them. A
statement that needs what only SQLAlchemy's path does (a column default computed in
Python for a column the rows leave out, an expanding parameter) is run by SQLAlchemy
instead, so this is only ever faster, never different.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Connection, Row, Table, insert
from sqlalchemy.sql.dml import Insert, UpdateBase, ValuesBase
from sqlalchemy.sql.elements import ColumnElement

from shopfloor.store.prepared import observed, on_cursor

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Plan:
    sql: str
    names: tuple[str, ...]
    processors: tuple[Processor, ...]
    named: bool = False
    """The driver takes each row as a mapping (PostgreSQL's pyformat), not a tuple."""
    arrays: bool = False
    """PostgreSQL's INSERT: one statement taking an array per column (see `_unnest`)."""

    def params(self, rows: Sequence[Mapping[str, Any]]) -> Any:
        """The rows as the driver takes them, converted column by column: a value that is
        the very object the row above had (the operation's timestamp, its actor, a
        repeated quantity) is converted once."""
        get = itemgetter(*self.names)
        table = [list(get(r)) for r in rows] if len(self.names) > 1 else [
            [get(r)] for r in rows]
        for i, convert in enumerate(self.processors):
            if convert is None:
                continue
            prev: Any = _UNSET
            done: Any = None
            for t in table:
                v = t[i]
                if v is not prev:
                    prev, done = v, convert(v)
                t[i] = done
        if self.arrays:
            return {f"p{i}": list(col) for i, col in enumerate(zip(*table, strict=True))}
        if self.named:
            names = self.names
            return [dict(zip(names, t, strict=True)) for t in table]
        return list(map(tuple, table))

    def one(self, row: Mapping[str, Any]) -> Any:
        """`params` of one row, without the table (a document's header, its entry)."""
        values = [v if p is None else p(v) for p, v in zip(
            self.processors, map(row.__getitem__, self.names), strict=True)]
        return dict(zip(self.names, values, strict=True)) if self.named else tuple(values)


_UNSET = object()
_ARRAYS_FROM = 4
"""PostgreSQL: rows from which an INSERT sends arrays (a few rows cost less as rows)."""


_PLANS: dict[tuple[int, tuple[str, ...], str],
             tuple[UpdateBase, _Plan | None, _Plan | None]] = {}
"""By the statement's id, holding the statement itself: an id is never reused while its
plan is kept (the write path's statements are module constants)."""


def _plan(conn: Connection, stmt: UpdateBase, keys: tuple[str, ...]) -> _Plan | None:
    dialect = conn.dialect
    compiled = stmt.compile(dialect=dialect, for_executemany=True, column_keys=list(
        keys) if isinstance(stmt, ValuesBase) else None)
    if compiled.insert_prefetch or compiled.update_prefetch or any(
            b.expanding for b in compiled.binds.values()):
        return None  # Python-side defaults or expanding parameters: SQLAlchemy's own path
    if compiled.positional:
        names = tuple(compiled.positiontup or ())
    elif dialect.paramstyle == "pyformat":
        names = tuple(compiled.bind_names.values())
    else:
        return None
    if set(names) - set(keys) or stmt.exported_columns:
        return None  # a literal's parameter, or rows to return: SQLAlchemy's own path
    processors = tuple(compiled.binds[n].type.dialect_impl(dialect).bind_processor(dialect)
                       for n in names)
    return _Plan(compiled.string, names, processors, named=not compiled.positional)


def _unnest(conn: Connection, stmt: UpdateBase, plan: _Plan) -> _Plan | None:
    """PostgreSQL: a plain INSERT of many rows as one statement over an array per column
    (`INSERT ... SELECT * FROM unnest(...)`, the arrays sent in binary), as
    `insert_returning` does: psycopg's executemany adapts and sends each row as a
    statement of its own, ~4x the client time for a hundred rows."""
    if conn.dialect.name != "postgresql" or not isinstance(stmt, Insert):
        return None
    dialect, table = conn.dialect, stmt.table
    if not isinstance(table, Table):
        return None
    quote = dialect.identifier_preparer.quote
    cols = [table.c[n] for n in plan.names]
    target = dialect.identifier_preparer.format_table(table)
    head = f"INSERT INTO {target} ({', '.join(quote(c.name) for c in cols)})"
    if not plan.sql.startswith(head + " VALUES") or any(
            isinstance(c.type, JSON) for c in cols):
        return None  # values given in the statement itself, or JSON: row by row
    arrays = ", ".join(f"CAST(%(p{i})b AS {c.type.compile(dialect=dialect)}[])"
                       for i, c in enumerate(cols))
    return _Plan(f"{head} SELECT * FROM unnest({arrays})", plan.names, plan.processors,
                 arrays=True)


def executemany(conn: Connection, stmt: UpdateBase,
                rows: Sequence[Mapping[str, Any]]) -> int:
    """Run `stmt` once per row (every row with the same keys); returns the rows affected
    (-1 where the driver cannot tell)."""
    if not rows:
        return 0
    keys = tuple(rows[0])
    cache_key = (id(stmt), keys, conn.dialect.name)
    entry = _PLANS.get(cache_key)
    if entry is None or entry[0] is not stmt:
        row_plan = _plan(conn, stmt, keys)
        entry = _PLANS[cache_key] = (stmt, row_plan,
                                     row_plan and _unnest(conn, stmt, row_plan))
    plan = entry[2] if entry[2] is not None and len(rows) >= _ARRAYS_FROM else entry[1]
    if plan is None:
        return int(conn.execute(stmt, list(rows)).rowcount)
    params = plan.params(rows)
    if observed(conn):
        return int(conn.exec_driver_sql(plan.sql, params).rowcount)

    def run(cursor: Any) -> int:
        if plan.arrays or len(params) == 1:
            cursor.execute(plan.sql, params if plan.arrays else params[0])
        else:
            cursor.executemany(plan.sql, params)
        return int(cursor.rowcount)

    return on_cursor(conn, plan.sql, params, run)


@dataclass(frozen=True)
class _Returning:
    """An INSERT ... RETURNING for one table, set of columns and dialect, said once."""

    head: str
    """SQLite: the statement up to VALUES; PostgreSQL: the whole statement."""
    tail: str
    group: str
    """SQLite: one row's placeholders."""
    plan: _Plan


_RETURNING: dict[tuple[int, tuple[str, ...], tuple[str, ...], str],
                 tuple[Table, _Returning | None]] = {}
_ROWS_PER_INSERT = 500
"""SQLite: rows per statement (its limit is 32,766 parameters)."""


def _returning(conn: Connection, table: Table, keys: tuple[str, ...],
               returning: tuple[str, ...]) -> _Returning | None:
    dialect = conn.dialect
    cols = [table.c[k] for k in keys]
    if any(c.default is not None for c in table.c if c.key not in keys and not c.primary_key):
        return None  # a Python-side default for a column the rows leave out
    if any(table.c[r].type.dialect_impl(dialect).result_processor(dialect, None) is not None
           for r in returning):
        return None
    quote = dialect.identifier_preparer.quote
    names = ", ".join(quote(c.name) for c in cols)
    back = ", ".join(quote(table.c[r].name) for r in returning)
    processors = tuple(c.type.dialect_impl(dialect).bind_processor(dialect) for c in cols)
    target = dialect.identifier_preparer.format_table(table)
    if dialect.name == "postgresql":
        arrays = ", ".join(f"CAST(%(p{i})b AS {c.type.compile(dialect=dialect)}[])"
                           for i, c in enumerate(cols))
        sql = f"INSERT INTO {target} ({names}) SELECT * FROM unnest({arrays}) RETURNING {back}"
        return _Returning(sql, "", "", _Plan(sql, keys, processors))
    if dialect.name != "sqlite" or dialect.paramstyle != "qmark":
        return None
    return _Returning(f"INSERT INTO {target} ({names}) VALUES ", f" RETURNING {back}",
                      "(" + ", ".join("?" * len(cols)) + ")", _Plan("", keys, processors))


def insert_returning(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]],
                     returning: Sequence[str]) -> list[Row[Any]]:
    """Insert `rows` (every row with the same keys) and return the `returning` columns of
    each, in no particular order: a caller matches them by a key it gave.

    SQLAlchemy's own path ("insertmanyvalues") builds each row's parameters through the
    compiled statement and, on PostgreSQL, sends one INSERT with a placeholder per value,
    which psycopg re-parses on every call (it caches only short statements): about 20 us a
    row for a document's new lots. Here PostgreSQL gets one short statement that inserts
    from an array per column (`unnest`), parsed and prepared once, the arrays sent in
    binary (psycopg's text form quotes every element through a regular expression: a
    third of the insert's client time), and SQLite one multi-row VALUES per 500 rows;
    values convert through the columns' own types."""
    if not rows:
        return []
    keys, back = tuple(rows[0]), tuple(returning)
    cache_key = (id(table), keys, back, conn.dialect.name)
    entry = _RETURNING.get(cache_key)
    if entry is None or entry[0] is not table:
        entry = _RETURNING[cache_key] = (table, _returning(conn, table, keys, back))
    said = entry[1]
    if said is None:
        stmt = insert(table).returning(*(table.c[r] for r in back))
        return list(conn.execute(stmt, list(rows)).all())
    params = said.plan.params(rows)
    if conn.dialect.name == "postgresql":
        columns = {f"p{i}": list(col) for i, col in enumerate(zip(*params, strict=True))}
        return list(conn.exec_driver_sql(said.head, columns).all())
    out: list[Row[Any]] = []
    for start in range(0, len(params), _ROWS_PER_INSERT):
        chunk = params[start:start + _ROWS_PER_INSERT]
        sql = said.head + ", ".join([said.group] * len(chunk)) + said.tail
        out += conn.exec_driver_sql(sql, tuple(v for row in chunk for v in row)).all()
    return out


@dataclass(frozen=True)
class _WithParent:
    parent: Insert
    child: Insert
    sql: str
    """PostgreSQL: the whole statement; SQLite: the parent's INSERT ... RETURNING."""
    head: _Plan
    lines: _Plan
    """The children (PostgreSQL: as arrays), without their parent's key."""
    values: str = ""
    """SQLite: the children's INSERT, their parent's key first, up to its rows."""
    group: str = ""
    """SQLite: one child row's placeholders."""
    few: tuple[str, str, tuple[str, ...], _Plan] | None = None
    """PostgreSQL, for fewer than `_ARRAYS_FROM` children: the statement before and after
    their VALUES, each column's cast, their plan as rows (binary arrays cost psycopg
    more to build than a few scalars: half the client time of an entry of two lines)."""


_WITH_PARENT: dict[tuple[int, int, tuple[str, ...], tuple[str, ...], tuple[int, ...], str],
                   _WithParent | None] = {}


def insert_with_parent(conn: Connection, parent: Insert, row: Mapping[str, Any], child: Insert,
                       key: str, rows: Sequence[Mapping[str, Any]],
                       reads: Sequence[ColumnElement[Any]] = ()) -> tuple[Any, ...] | None:
    """One row of `parent` and its `rows` of `child` (each given the parent's new primary
    key as `key`) in the fewest round trips and driver calls: on PostgreSQL one statement
    (`WITH parent AS (INSERT ... RETURNING id), lines AS (INSERT ... SELECT parent.id,
    u.* FROM parent, unnest(...)) SELECT * FROM parent`), where the two inserts take two,
    or three when psycopg pipelines a few rows; on SQLite the parent's INSERT ...
    RETURNING and one multi-row INSERT of its children, on one cursor. `reads`: columns
    read in the parent's RETURNING (subqueries: constants, or ones over the row written).
    Gives the parent's new key and the values `reads` read, or None where it cannot
    (another database, no child rows, a statement only SQLAlchemy runs): the caller
    inserts them itself."""
    dialect = conn.dialect.name
    if dialect not in ("postgresql", "sqlite") or not rows:
        return None
    heads, lines = tuple(row), tuple(rows[0])
    cache_key = (id(parent), id(child), heads, lines, tuple(id(r) for r in reads), dialect)
    if cache_key not in _WITH_PARENT:
        _WITH_PARENT[cache_key] = _parent_plan(conn, parent, heads, child, key, lines, reads)
    said = _WITH_PARENT[cache_key]
    if said is None or said.parent is not parent or said.child is not child:
        return None
    head = said.head.one(row)
    if dialect == "postgresql" and said.few is not None and len(rows) < _ARRAYS_FROM:
        before, after, casts, as_rows = said.few
        values: dict[str, Any] = dict(head)
        for r, t in enumerate(as_rows.params(rows)):
            values.update({f"v{r}_{i}": v for i, v in enumerate(t)})
        placed = ", ".join("(" + ", ".join(f"CAST(%(v{r}_{i})s AS {c})" for i, c in
                                           enumerate(casts)) + ")" for r in range(len(rows)))
        statements = [(f"{before}{placed}{after}", values)]
        table: list[tuple[Any, ...]] = []
    elif dialect == "postgresql":
        statements = [(said.sql, {**head, **said.lines.params(rows)})]
        table = []
    else:
        statements = [(said.sql, head)]
        table = said.lines.params(rows)

    def children(parent_id: Any) -> list[tuple[str, Any]]:
        out = []
        for start in range(0, len(table), _ROWS_PER_INSERT):
            chunk = table[start:start + _ROWS_PER_INSERT]
            flat: list[Any] = []
            for r in chunk:
                flat.append(parent_id)
                flat.extend(r)
            out.append((said.values + ", ".join([said.group] * len(chunk)), flat))
        return out

    if observed(conn):
        got = conn.exec_driver_sql(*statements[0]).one()
        for sql, params in children(got[0]):
            conn.exec_driver_sql(sql, tuple(params))
        return tuple(got)

    def run(cursor: Any) -> Any:
        cursor.execute(*statements[0])
        got = cursor.fetchone()
        for sql, params in children(got[0]):
            cursor.execute(sql, params)
        return got

    return tuple(on_cursor(conn, statements[0][0], head, run))


def _parent_plan(conn: Connection, parent: Insert, heads: tuple[str, ...], child: Insert,
                 key: str, lines: tuple[str, ...], reads: Sequence[ColumnElement[Any]]
                 ) -> _WithParent | None:
    dialect = conn.dialect
    head_plan = _plan(conn, parent, heads)
    line_plan = _plan(conn, child, lines)
    parent_table, child_table = parent.table, child.table
    if head_plan is None or line_plan is None or not isinstance(
            parent_table, Table) or not isinstance(child_table, Table):
        return None
    (pk,) = parent_table.primary_key.columns
    prep = dialect.identifier_preparer
    also = [str(r.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
            for r in reads]
    back = ", ".join([prep.quote(pk.name), *(f"{r} AS r{i}" for i, r in enumerate(also))])
    target = prep.format_table(child_table)
    into = f"INSERT INTO {target} ("
    keyed = f"{into}{prep.quote(child_table.c[key].name)}, "
    if dialect.name == "sqlite":
        values, found, group = line_plan.sql.partition(" VALUES ")
        if not found or not values.startswith(into) or not group.startswith("("):
            return None
        return _WithParent(parent, child, f"{head_plan.sql} RETURNING {back}", head_plan,
                           line_plan, values.replace(into, keyed, 1) + found,
                           "(?, " + group[1:])
    arrays = _unnest(conn, child, line_plan)
    if arrays is None or not head_plan.named or any(
            n[:1] in "pv" and n[1:2].isdigit() for n in head_plan.names):
        return None
    head, _, tail = arrays.sql.partition(") SELECT * FROM ")
    start = (f"WITH parent AS ({head_plan.sql} RETURNING {back}), "
             f"lines AS ({head.replace(into, keyed, 1)}) SELECT parent.{prep.quote(pk.name)}, ")
    casts = tuple(child_table.c[n].type.compile(dialect=dialect) for n in line_plan.names
                  if n in child_table.c)
    few = (f"{start}v.* FROM parent, (VALUES ", ") AS v) SELECT * FROM parent", casts,
           replace(line_plan, named=False)) if len(casts) == len(line_plan.names) else None
    return _WithParent(parent, child, f"{start}u.* FROM parent, {tail} AS u) SELECT * FROM "
                       "parent", head_plan, arrays, few=few)


_Pairs = tuple[tuple[str, str], ...]
_UPDATES: dict[tuple[int, tuple[str, ...], _Pairs, _Pairs], tuple[Table, _Plan]] = {}


def update_arrays(conn: Connection, table: Table, rows: Sequence[Mapping[str, Any]],
                  match: Mapping[str, str], sets: Mapping[str, str]) -> int | None:
    """PostgreSQL: many rows of `table` updated by one statement over an array per
    parameter (`UPDATE ... SET col = u.col FROM unnest(...) AS u WHERE ...`), each row
    only where every `match` column equals its row's value. `match` and `sets` name, for
    each row key, the column it is compared with or written to. Returns the rows updated,
    or None where it cannot (another database, a few rows): the caller runs its own
    executemany. psycopg's executemany adapts and sends each row as a statement of its
    own, which for a hundred balances was a tenth of an adjustment's client time."""
    if conn.dialect.name != "postgresql" or len(rows) < _ARRAYS_FROM:
        return None
    keys = tuple(rows[0])
    cache_key = (id(table), keys, tuple(match.items()), tuple(sets.items()))
    entry = _UPDATES.get(cache_key)
    if entry is None or entry[0] is not table:
        entry = _UPDATES[cache_key] = (table, _update_plan(conn, table, keys, match, sets))
    plan = entry[1]
    params = plan.params(rows)
    if observed(conn):
        return int(conn.exec_driver_sql(plan.sql, params).rowcount)

    def run(cursor: Any) -> int:
        cursor.execute(plan.sql, params)
        return int(cursor.rowcount)

    return on_cursor(conn, plan.sql, params, run)


def _update_plan(conn: Connection, table: Table, keys: tuple[str, ...],
                 match: Mapping[str, str], sets: Mapping[str, str]) -> _Plan:
    if set(keys) != set(match) | set(sets) or set(match) & set(sets):
        raise ValueError(f"rows {sorted(keys)} must give each key to match or to set once")
    dialect = conn.dialect
    prep = dialect.identifier_preparer
    target = prep.format_table(table)
    column = {**match, **sets}
    cols = [table.c[column[k]] for k in keys]
    arrays = ", ".join(f"CAST(%(p{i})b AS {c.type.compile(dialect=dialect)}[])"
                       for i, c in enumerate(cols))
    names = ", ".join(f"u{i}" for i in range(len(keys)))
    at = {k: f"u.u{i}" for i, k in enumerate(keys)}
    assign = ", ".join(f"{prep.quote(table.c[c].name)} = {at[k]}" for k, c in sets.items())
    where = " AND ".join(f"{target}.{prep.quote(table.c[c].name)} = {at[k]}"
                         for k, c in match.items())
    sql = (f"UPDATE {target} SET {assign} FROM unnest({arrays}) AS u({names}) "
           f"WHERE {where}")
    processors = tuple(c.type.dialect_impl(dialect).bind_processor(dialect) for c in cols)
    return _Plan(sql, keys, processors, arrays=True)
