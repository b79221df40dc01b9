"""The catalogue: one module per area, each with its `tools` toolset."""

from __future__ import annotations

from importlib import import_module

from shopfloor.registry.tool import Toolset

MODULES = ("items", "partners", "stock", "orders", "production", "audit", "jobs", "bulk",
           "lots", "corrections", "returns", "planning")


def catalogue() -> list[Toolset]:
    return [import_module(f"shopfloor.tools.{name}").tools for name in MODULES]
