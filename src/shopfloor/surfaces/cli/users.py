"""`shopfloor user ...`: local accounts for signing in to the web admin.

Each command calls the accounts' tool (`create_user`, `set_user_role`, `disable_user`,
`reset_user_password`, `list_users`) as the local actor, previewing then applying as
every surface does, so the CLI's changes are in the operation log like the admin's. The
password is read from standard input when that is not a terminal (so scripts pipe it and
it never appears in the process list or shell history), else prompted twice without
echo; the log keeps it masked.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from shopfloor.surfaces.cli.context import Context

user_app = typer.Typer(no_args_is_help=True,
                       help="Local accounts that sign in to the web admin with a password.")


def _root(ctx: typer.Context) -> Context:
    """The CLI's context object (not re-imported: under `python -m` the CLI module is
    `__main__`, and its classes are not those of `shopfloor.surfaces.cli`)."""
    obj: Context = ctx.find_root().obj
    return obj


def _call(ctx: typer.Context, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool as the local actor: a write is previewed, then applied with the preview's
    token (the password resent, as the preview shows it masked)."""
    from shopfloor.kernel.errors import ShopfloorError
    from shopfloor.registry.actor import Actor
    from shopfloor.surfaces.cli.context import fail

    c = _root(ctx)
    settings = c.settings()
    actor = Actor.of(settings.local_actor, settings.local_role)
    registry = c.registry()
    try:
        shown = registry.invoke(tool, args, actor)
        if not shown.get("preview"):
            return shown
        blocking = [w for w in shown.get("warnings", []) if w.get("blocking")]
        if blocking:
            fail(c, {"error": {"code": blocking[0]["code"], "message": blocking[0]["message"],
                               "field": blocking[0].get("field")}})
        secret = {k: v for k, v in args.items() if k == "password"}
        done: dict[str, Any] = registry.invoke(tool, {**shown["apply"]["arguments"], **secret},
                                               actor)
        return done
    except ShopfloorError as exc:
        fail(c, exc.to_payload())


def _password() -> str:
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        return line[:-1] if line.endswith("\n") else line
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


@user_app.command("create")
def user_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username to sign in with")],
    role: Annotated[str, typer.Option(help="viewer, operator or admin")],
    needs_approval: Annotated[bool, typer.Option(
        "--needs-approval", help="its writes are held as proposals for someone to approve")
    ] = False,
) -> None:
    """Create an account (password from stdin when piped, else prompted)."""
    password = _password()
    _call(ctx, "create_user", {"username": name, "role": role.strip().lower(),
                               "password": password, "needs_approval": needs_approval})
    typer.echo(f"Created {name} ({role}).", err=True)


@user_app.command("password")
def user_password(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
) -> None:
    """Set a new password (ends the account's open sessions)."""
    password = _password()
    _call(ctx, "reset_user_password", {"username": name, "password": password})
    typer.echo(f"Password changed for {name}; its sessions were ended.", err=True)


@user_app.command("role")
def user_role(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
    role: Annotated[str, typer.Option(help="viewer, operator or admin")],
    needs_approval: Annotated[bool | None, typer.Option(
        "--needs-approval/--no-approval", help="hold its writes as proposals, or not")
    ] = None,
) -> None:
    """Change an account's role (ends its open sessions, so it applies at once)."""
    _call(ctx, "set_user_role", {"username": name, "role": role.strip().lower(),
                                 **({} if needs_approval is None
                                    else {"needs_approval": needs_approval})})
    typer.echo(f"{name} is now {role}.", err=True)


@user_app.command("disable")
def user_disable(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the username")],
    enable: Annotated[bool, typer.Option("--enable", help="enable it again")] = False,
) -> None:
    """Disable an account and end its sessions (or --enable it again)."""
    _call(ctx, "disable_user", {"username": name, "disabled": not enable})
    typer.echo(f"{name} {'enabled' if enable else 'disabled'}.", err=True)


@user_app.command("list")
def user_list(ctx: typer.Context) -> None:
    """The accounts, their roles and whether they are enabled."""
    _root(ctx).out({"accounts": _call(ctx, "list_users", {})["users"]})


@user_app.command("hint")
def user_hint(ctx: typer.Context) -> None:
    """Where the web admin is and how to sign in to it (printed by `make run`)."""
    settings = _root(ctx).settings()
    accounts = _call(ctx, "list_users", {})["users"]
    typer.echo(f"\nWeb admin: http://{settings.host}:{settings.port}/")
    if accounts:
        names = ", ".join(f"{a['username']} ({a['role']})" for a in accounts[:5])
        typer.echo(f"Sign in with an account: {names}. Reset a password with "
                   "`.venv/bin/shopfloor user password NAME`.")
    elif sys.stdin.isatty():
        typer.echo("No account yet: create the first one (an admin) to sign in with.")
        name = str(typer.prompt("Username", default="admin"))
        password = _password()
        _call(ctx, "create_user", {"username": name, "role": "admin", "password": password})
        typer.echo(f"Created {name} (admin): sign in with it.", err=True)
    else:
        typer.echo("No account yet. Create one to sign in (it asks for the password):\n"
                   "  .venv/bin/shopfloor user create admin --role admin")
    typer.echo("API clients: POST /api/v1/auth/token (username, password) or "
               "`shopfloor token create --role operator`.\n")
