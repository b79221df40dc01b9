"""The `shopfloor` command. A plain `call` or `tools list` is served without the CLI
framework (quick.py: a script's call pays little more than its own imports); everything
else by the typer app (commands.py)."""

from __future__ import annotations

from typing import Any

__all__ = ["main"]


def main() -> None:
    import sys

    from shopfloor.surfaces.cli.quick import run

    status = run(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from shopfloor.surfaces.cli.commands import app

    app()


def __getattr__(name: str) -> Any:
    """The typer app and its helpers (`shopfloor.surfaces.cli.app`), imported when asked."""
    if name.startswith("__"):
        raise AttributeError(name)
    from importlib import import_module

    return getattr(import_module("shopfloor.surfaces.cli.commands"), name)
