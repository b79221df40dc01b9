"""PostgreSQL backups: pg_dump of our schema, restored through our own migrations.

The backup is pg_dump's custom format (-Fc) of the one schema our tables live in (the
first schema of the URL's search_path that exists: `public` unless the URL carries
`options=-csearch_path=...`), taken under pg_dump's single snapshot, so a concurrent write
is wholly in it or wholly not. Custom rather than plain SQL: it is compressed; pg_restore
reads parts of it (the schema revision first, then the data alone); a truncated file
fails loudly instead of loading half a script; and it is still the standard archive an
operator can read by hand (`pg_restore -l`, `pg_restore -d`).

The restore does not replay the archive's DDL: pg_dump names every object with the schema
it was taken from, so that DDL could only rebuild the same schema. Instead, in one
transaction: our migrations build the backup's revision in the target schema, foreign keys
are dropped, our tables' data is streamed from `pg_restore --data-only` into COPY (a table
of someone else's that shared the schema is in the archive but is not ours to restore),
sequences are set, the foreign keys are added back (and so checked), the schema is
migrated to head and the books are checked (`app.books`). A failure anywhere rolls all
of it back: the target is left as empty as it was.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Connection, inspect, make_url, text

from shopfloor.kernel.errors import Conflict, Internal, NotFound, ValidationFailed
from shopfloor.store.engine import Store
from shopfloor.store.migrate import migrate
from shopfloor.store.tables import Base

MAGIC = b"PGDMP"
OURS = frozenset(Base.metadata.tables) | {"alembic_version"}
_COPY = re.compile(rb"^COPY (?P<name>.+?) (?:\((?P<cols>.*)\) )?FROM stdin;\n$")
_SETVAL = re.compile(
    rb"^SELECT pg_catalog\.setval\('(?P<name>(?:[^']|'')+)', (?P<value>-?\d+), "
    rb"(?P<called>true|false)\);\n$")
_PASS = (b"--", b"SET ", b"SELECT pg_catalog.set_config(", b"\\restrict", b"\\unrestrict")
_IDENT = re.compile(r'"((?:[^"]|"")*)"|([^."]+)')


def tool(name: str, bin_dir: str = "") -> str:
    """pg_dump or pg_restore: in `bin_dir` if given, else on PATH, else the newest under
    /usr/lib/postgresql/*/bin (Debian's layout)."""
    if bin_dir:
        candidate = Path(bin_dir) / name
        if os.access(candidate, os.X_OK):
            return str(candidate)
        raise NotFound(f"{name} is not in {bin_dir} (SHOPFLOOR_PG_BIN_DIR)", field=name)
    found = shutil.which(name)
    if found:
        return found

    def major(path: str) -> int:
        version = Path(path).parent.parent.name
        return int(version) if version.isdigit() else 0

    installed = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=major)
    if installed:
        return installed[-1]
    raise NotFound(
        f"{name} was not found on PATH nor under /usr/lib/postgresql/*/bin: install the "
        "PostgreSQL client tools (Debian and Ubuntu: postgresql-client) of the server's "
        "version or newer, or set SHOPFLOOR_PG_BIN_DIR to where they are", field=name)


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def client(url: str) -> tuple[str, dict[str, str]]:
    """The URL as a libpq connection string for --dbname, and the environment to run with:
    the password goes in PGPASSWORD, never on a command line others can list."""
    u = make_url(url)
    params: dict[str, Any] = {"host": u.host, "port": u.port, "user": u.username,
                              "dbname": u.database}
    for key, value in u.query.items():
        params[key] = value[-1] if isinstance(value, tuple) else value
    conninfo = " ".join(f"{k}={_quote(str(v))}" for k, v in params.items() if v is not None)
    env = dict(os.environ)
    if u.password is not None:
        env["PGPASSWORD"] = str(u.password)
    return conninfo, env


def _run(cmd: list[str], env: dict[str, str], what: str) -> str:
    done = subprocess.run(cmd, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise Internal(f"{what} failed: {' / '.join(said) or f'exit {done.returncode}'}",
                       details={"command": Path(cmd[0]).name, "status": done.returncode})
    return done.stdout.decode(errors="replace")


def _schema(conn: Connection) -> str:
    schema = conn.execute(text("SELECT current_schema()")).scalar()
    if schema is None:
        raise NotFound("the database URL's search_path names no schema that exists: create "
                       "it first", field="database_url")
    return str(schema)


def dump(url: str, staging: Path, bin_dir: str = "") -> str:
    """pg_dump our schema into `staging`; returns the schema revision read back from it
    (which also proves the archive readable)."""
    pg_dump = tool("pg_dump", bin_dir)
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            schema = _schema(conn)
            if not inspect(conn).has_table("alembic_version"):
                raise NotFound(f"no Shopfloor database in schema {schema}",
                               field="database_url")
    finally:
        store.dispose()
    conninfo, env = client(url)
    pattern = '"' + schema.replace('"', '""') + '"'  # quoted: no wildcards, exact case
    _run([pg_dump, "--format=custom", f"--schema={pattern}", "--no-owner", "--no-privileges",
          "--encoding=UTF8", "--lock-wait-timeout=60s", f"--file={staging}",
          f"--dbname={conninfo}"], env, "pg_dump")
    return file_revision(staging, bin_dir)


def file_revision(file: Path, bin_dir: str = "") -> str:
    out = _run([tool("pg_restore", bin_dir), "--data-only", "--table=alembic_version",
                "--file=-", str(file)], dict(os.environ), f"reading {file}")
    lines = iter(out.splitlines())
    for line in lines:
        if line.startswith("COPY "):
            version = next(lines, "\\.")
            if version != "\\.":
                return version.split("\t")[0]
    raise ValidationFailed(f"{file} holds no Shopfloor schema", field="file")


def restore(url: str, file: Path, revision: str, bin_dir: str = "",
            check: Callable[[Connection], None] | None = None) -> None:
    """Load the archive into the URL's schema, which must hold none of our tables (tables
    of others may stay: nothing of ours touches them). `check` reads the restored books
    in the same transaction, before it commits; what it raises rolls all of it back."""
    pg_restore = tool("pg_restore", bin_dir)
    store = Store(url)
    try:
        with store.engine.begin() as conn:
            schema = _schema(conn)
            before = set(inspect(conn).get_table_names())
            if before & OURS:
                found = sorted(before & OURS)
                raise Conflict(
                    f"schema {schema} already holds Shopfloor tables ({', '.join(found[:5])}"
                    f"{', ...' if len(found) > 5 else ''}): restore only into an empty "
                    "database or schema", field="database_url", details={"tables": len(found)})
            sequences = _sequences(conn)
            migrate(conn, revision)
            created = set(inspect(conn).get_table_names()) - before
            sequences = _sequences(conn) - sequences
            keys = _drop_foreign_keys(conn, created)
            conn.exec_driver_sql("TRUNCATE " + ", ".join(_ident(t) for t in sorted(created)))
            conn.exec_driver_sql("SET LOCAL client_encoding = 'UTF8'")
            _load(conn, pg_restore, file, created, sequences)
            for table, name, definition in keys:
                conn.exec_driver_sql(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
            migrate(conn, "head")
            if check is not None:
                check(conn)
    finally:
        store.dispose()


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _last(qualified: str) -> str:
    """`schema.name` (either part perhaps quoted) -> name."""
    quoted, plain = _IDENT.findall(qualified)[-1]
    return str(quoted.replace('""', '"') if quoted else plain)


def _cut(file: Path) -> ValidationFailed:
    return ValidationFailed(f"{file} is damaged or cut off: its data ends mid-table",
                            field="file")


def _sequences(conn: Connection) -> set[str]:
    return {str(n) for n in conn.execute(text(
        "SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")).scalars()}


def _drop_foreign_keys(conn: Connection, tables: set[str]) -> list[tuple[str, str, str]]:
    """Drop the foreign keys among the new tables; returns them to add back after the
    load (the archive's data comes in no particular order)."""
    keys = [(str(t), str(n), str(d)) for t, n, d in conn.execute(text(
        "SELECT c.conrelid::regclass::text, quote_ident(c.conname), pg_get_constraintdef(c.oid) "
        "FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid "
        "JOIN pg_namespace s ON s.oid = r.relnamespace "
        "WHERE c.contype = 'f' AND s.nspname = current_schema() AND r.relname = ANY(:t)"),
        {"t": sorted(tables)})]
    for table, name, _ in keys:
        conn.exec_driver_sql(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
    return keys


def _load(conn: Connection, pg_restore: str, file: Path, tables: set[str],
          sequences: set[str]) -> None:
    """Stream the archive's data section into our tables (COPY text passes through as it
    is) and set our sequences. Tables and sequences of others that shared the schema are
    in the archive (it holds the whole schema) and are not restored; any other statement
    is refused, never skipped."""
    raw = conn.connection.driver_connection
    assert raw is not None
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen([pg_restore, "--data-only", "--file=-", str(file)],
                                stdout=subprocess.PIPE, stderr=errors)
        assert proc.stdout is not None
        try:
            _statements(conn, raw, proc.stdout, file, tables, sequences)
        except BaseException:
            proc.kill()  # its own failure (a broken pipe) must not hide ours
            raise
        finally:
            proc.stdout.close()
            status = proc.wait()
        if status != 0:
            errors.seek(0)
            said = errors.read().decode(errors="replace").strip().splitlines()[-5:]
            raise Internal(f"reading {file} failed: {' / '.join(said)}")


def _statements(conn: Connection, raw: Any, lines: IO[bytes], file: Path,
                tables: set[str], sequences: set[str]) -> None:
    for line in lines:
        if line == b"\n" or line.startswith(_PASS):
            continue
        if copy := _COPY.match(line):
            table = _last(copy["name"].decode())
            if table not in tables:  # not ours: its rows are passed over
                for row in lines:
                    if row == b"\\.\n":
                        break
                continue
            cols = f" ({copy['cols'].decode()})" if copy["cols"] is not None else ""
            with raw.cursor() as cur, cur.copy(f"COPY {_ident(table)}{cols} FROM STDIN") as cp:
                for row in lines:
                    if row == b"\\.\n":
                        break
                    if not row.endswith(b"\n"):
                        raise _cut(file)
                    cp.write(row)
                else:
                    raise _cut(file)
            continue
        if setval := _SETVAL.match(line):
            name = _last(setval["name"].decode().replace("''", "'"))
            if name not in sequences:
                continue
            conn.execute(text(
                "SELECT pg_catalog.setval(format('%I.%I', current_schema(), CAST(:n AS text))"
                "::regclass, CAST(:v AS bigint), CAST(:c AS boolean))"),
                {"n": name, "v": int(setval["value"]), "c": setval["called"] == b"true"})
            continue
        raise ValidationFailed(f"{file} holds a statement a Shopfloor backup does not: "
                               f"{line[:80].decode(errors='replace')!r}", field="file")
