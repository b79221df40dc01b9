"""What every CLI command shares: the options it was started with and how it fails.

A module of its own so that sub-command groups (`shopfloor user ...`) reach it without
importing the CLI that mounts them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from shopfloor.surfaces.render import render

if TYPE_CHECKING:
    from shopfloor.app.settings import Settings
    from shopfloor.registry.registry import Registry

EXIT_CODES = {
    "internal": 1,
    "validation_error": 2,
    "not_found": 3,
    "conflict": 4,
    "insufficient_stock": 5,
    "stale_preview": 6,
    "forbidden": 7,
    "unauthenticated": 8,
}


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

    def registry(self) -> Registry:
        from shopfloor.app.wiring import open_registry

        if self.opened is None:
            self.opened = open_registry(self.settings())
        return self.opened

    def out(self, payload: Any) -> None:
        typer.echo(render(payload, self.fmt))



def fail(c: Context, payload: dict[str, Any]) -> NoReturn:
    err = payload["error"]
    if c.fmt == "json":
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    where = f" (field: {err['field']})" if err.get("field") else ""
    typer.echo(f"error[{err['code']}]: {err['message']}{where}", err=True)
    raise typer.Exit(EXIT_CODES.get(err["code"], 1))
