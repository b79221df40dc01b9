"""What every CLI command shares: the options it was started with and how it fails.

A module of its own so that sub-command groups (`shopfloor user ...`) reach it without
importing the CLI that mounts them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from shopfloor.surfaces.cli.quick import failed
from shopfloor.surfaces.render import render

if TYPE_CHECKING:
    from shopfloor.app.settings import Settings
    from shopfloor.registry.registry import Registry


@dataclass
class Context:
    db: str | None
    fmt: str
    config: str | None
    opened: Registry | None = field(default=None, repr=False)
    """The registry this process opened: `shopfloor run` sets up, shows the overview and
    serves on one (opening it again per step was most of a restart's time)."""

    def settings(self) -> Settings:
        from shopfloor.app.settings import Settings

        return Settings.load(self.config, database_url=self.db)

    def registry(self, *, lazy: bool = False) -> Registry:
        from shopfloor.app.wiring import open_registry

        if self.opened is None:
            self.opened = open_registry(self.settings(), lazy=lazy)
        return self.opened

    def out(self, payload: Any) -> None:
        typer.echo(render(payload, self.fmt))



def fail(c: Context, payload: dict[str, Any]) -> NoReturn:
    raise typer.Exit(failed(payload, c.fmt))
