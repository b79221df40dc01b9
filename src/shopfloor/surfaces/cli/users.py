"""`shopfloor user ...`: local accounts for signing in to the web admin.

The password is read from standard input when that is not a terminal (so scripts pipe
it and it never appears in the process list or shell history), else prompted twice
without echo. Accounts are a surface's concern, not a tool: the registry never sees a
password.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from shopfloor.app.accounts import Accounts
    from shopfloor.surfaces.cli.context import Context

user_app = typer.Typer(no_args_is_help=True,
                       help="Local accounts that sign in to the web admin with a password.")


def _root(ctx: typer.Context) -> Context:
    """The CLI's context object (not re-imported: under `python -m` the CLI module is
    `__main__`, and its classes are not those of `shopfloor.surfaces.cli`)."""
    obj: Context = ctx.find_root().obj
    return obj


def _accounts(ctx: typer.Context) -> Accounts:
    from shopfloor.app.accounts import Accounts

    return Accounts(_root(ctx).registry().store)


def _password() -> str:
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        return line[:-1] if line.endswith("\n") else line
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _run(ctx: typer.Context, action: str, fn: object) -> None:
    from shopfloor.kernel.errors import ShopfloorError
    from shopfloor.surfaces.cli.context import fail

    try:
        fn()  # type: ignore[operator]
    except ShopfloorError as exc:
        fail(_root(ctx), exc.to_payload())
    typer.echo(action, err=True)


@user_app.command("create")
def user_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username to sign in with")],
    role: Annotated[str, typer.Option(help="viewer, operator or admin")],
) -> None:
    """Create an account (password from stdin when piped, else prompted)."""
    accounts = _accounts(ctx)
    password = _password()
    _run(ctx, f"Created {name} ({role}).", lambda: accounts.create(name, password, role))


@user_app.command("password")
def user_password(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
) -> None:
    """Set a new password (ends the account's open sessions)."""
    accounts = _accounts(ctx)
    password = _password()
    _run(ctx, f"Password changed for {name}; its sessions were ended.",
         lambda: accounts.set_password(name, password))


@user_app.command("role")
def user_role(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
    role: Annotated[str, typer.Option(help="viewer, operator or admin")],
) -> None:
    """Change an account's role (ends its open sessions, so it applies at once)."""
    accounts = _accounts(ctx)
    _run(ctx, f"{name} is now {role}.", lambda: accounts.set_role(name, role))


@user_app.command("disable")
def user_disable(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
    enable: Annotated[bool, typer.Option("--enable", help="enable it again")] = False,
) -> None:
    """Disable an account and end its sessions (or --enable it again)."""
    accounts = _accounts(ctx)
    _run(ctx, f"{name} {'enabled' if enable else 'disabled'}.",
         lambda: accounts.set_disabled(name, not enable))


@user_app.command("list")
def user_list(ctx: typer.Context) -> None:
    """The accounts, their roles and whether they are enabled."""
    _root(ctx).out({"accounts": _accounts(ctx).list()})


@user_app.command("hint")
def user_hint(ctx: typer.Context) -> None:
    """Where the web admin is and how to sign in to it (printed by `make run`)."""
    settings = _root(ctx).settings()
    accounts = _accounts(ctx).list()
    typer.echo(f"\nWeb admin: http://{settings.host}:{settings.port}/")
    if accounts:
        names = ", ".join(f"{a['username']} ({a['role']})" for a in accounts[:5])
        typer.echo(f"Sign in with an account: {names}. Reset a password with "
                   "`.venv/bin/shopfloor user password NAME`.")
    elif sys.stdin.isatty():
        typer.echo("No account yet: create the first one (an admin) to sign in with.")
        name = str(typer.prompt("Username", default="admin"))
        accounts_api = _accounts(ctx)
        password = _password()
        _run(ctx, f"Created {name} (admin): sign in with it.",
             lambda: accounts_api.create(name, password, "admin"))
    else:
        typer.echo("No account yet. Create one to sign in (it asks for the password):\n"
                   "  .venv/bin/shopfloor user create admin --role admin")
    typer.echo("API clients: POST /api/v1/auth/token (username, password) or "
               "`shopfloor token create --role operator`.\n")
