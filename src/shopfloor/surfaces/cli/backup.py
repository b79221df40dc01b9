"""`shopfloor backup FILE` and `shopfloor restore FILE`: operations on the whole database.

Commands and not tools, on purpose: nothing in the registry can copy out the books (the
secret, the password hashes) or bring a company back, so no agent or HTTP client can.
Neither opens the registry: that would migrate (and, for SQLite, create) the database
before a restore could see whether it is empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from shopfloor.surfaces.cli.context import Context


def _root(ctx: typer.Context) -> Context:
    obj: Context = ctx.find_root().obj
    return obj


def backup(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="where to write the backup")],
    force: Annotated[bool, typer.Option("--force", help="replace FILE if it exists")] = False,
) -> None:
    """Copy the database to FILE while the server runs: consistent, every write wholly in
    or out. SQLite: a SQLite file. PostgreSQL: a pg_dump custom-format archive."""
    from shopfloor.app import backup as books
    from shopfloor.kernel.errors import ShopfloorError
    from shopfloor.surfaces.cli.context import fail

    c = _root(ctx)
    try:
        settings = c.settings()
        report = books.backup(settings.database_url, file, overwrite=force,
                              pg_bin_dir=settings.pg_bin_dir)
    except ShopfloorError as exc:
        fail(c, exc.to_payload())
    typer.echo(f"Backed up revision {report.revision} to {report.file} ({report.bytes} "
               f"bytes, {report.seconds:.2f} s)", err=True)
    if c.fmt != "text":
        c.out(report.payload())


def restore(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="a file `shopfloor backup` wrote")],
    unsealed: Annotated[bool, typer.Option(
        "--unsealed", help="restore a SQLite backup that has no seal (one from before "
        "seals, or altered since): only one you trust; its books are still checked")
    ] = False,
) -> None:
    """Restore FILE into an empty database (one with no Shopfloor tables), then migrate it
    to this version's schema, checking its books before it commits. Refuses a database
    with data, a backup from a newer Shopfloor, an unsealed SQLite backup (unless
    --unsealed) and books that disagree."""
    from shopfloor.app import backup as books
    from shopfloor.kernel.errors import ShopfloorError
    from shopfloor.surfaces.cli.context import fail

    c = _root(ctx)
    try:
        settings = c.settings()
        report = books.restore(settings.database_url, file, pg_bin_dir=settings.pg_bin_dir,
                               unsealed=unsealed)
    except ShopfloorError as exc:
        fail(c, exc.to_payload())
    for warning in report.warnings or []:
        typer.echo(f"warning: {warning}", err=True)
    upgraded = f", migrated to {report.upgraded_to}" if report.upgraded_to else ""
    typer.echo(f"Restored {report.file} (revision {report.revision}{upgraded}) in "
               f"{report.seconds:.2f} s", err=True)
    if c.fmt != "text":
        c.out(report.payload())
