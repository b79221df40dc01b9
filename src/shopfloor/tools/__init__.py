"""The catalogue: one module per area, each with its `tools` toolset."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from shopfloor.domain.corrections.ledger import Reverser
from shopfloor.registry.tool import Toolset

MODULES = ("items", "partners", "stock", "orders", "production", "audit", "jobs", "bulk",
           "lots", "corrections", "returns", "planning", "valuation", "proposals",
           "paper", "events", "accounts", "floor", "buying", "accounting")


def catalogue() -> list[Toolset]:
    return [import_module(f"shopfloor.tools.{name}").tools for name in MODULES]


@cache
def undo_of() -> dict[str, Reverser | str]:
    """How revert_operation undoes each tool's apply, as each tool declared it: its
    reverser, or the reason it cannot be undone and what to do instead."""
    return {t.name: t.facts.undo.reverser or t.facts.undo.instead
            for toolset in catalogue() for t in toolset}
