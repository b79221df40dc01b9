"""The catalogue: one module per area (or a package of them), each with its `tools`
toolset."""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shopfloor.registry.tool import Tool, Toolset

MODULES = ("items", "partners", "stock", "purchasing.orders", "sales", "production", "history",
           "jobs", "bulk", "lots", "corrections", "returns", "planning", "valuation",
           "proposals", "paper", "events", "accounts", "floor", "purchasing.terms",
           "discovery", "company", "accounting.books", "accounting.period", "bills",
           "accounting.revaluing")
"""The catalogue's modules in its order; a dotted name is a module of an area's package,
and an area (its toolset) is the module's name, or its package's."""

ABOUT = {
    "items": "Look items up, create and change them, and their recipes.",
    "partners": "Locations, suppliers and customers.",
    "stock": "Stock on hand per location, low stock, availability, movements, counts "
             "and transfers.",
    "purchasing": "Buy: purchase orders and receiving them, supplier terms, exchange "
                  "rates, landed costs.",
    "sales": "Sell: sales orders and shipping them.",
    "production": "Make: manufacturing orders, completing them.",
    "history": "The operation log: who changed what, when.",
    "jobs": "Background jobs: follow, list and cancel them.",
    "planning": "Plan: projected stock, MRP runs and applying their plan.",
    "bulk": "Imports and bulk changes, rebuilding balances.",
    "lots": "Lots and serials: expiry, holds, traceability.",
    "corrections": "Close short, correct receipts, shipments and production, revert.",
    "returns": "Customer and supplier returns.",
    "valuation": "What the stock is worth, its value now, at a date or over a period.",
    "proposals": "Writes held for approval: approve or reject them.",
    "paper": "Scanned codes and pick lists.",
    "events": "Events and webhooks to other systems.",
    "accounts": "Users and their roles.",
    "floor": "Shop floor: work centres, routings, operation times, load and scheduling.",
    "discovery": "Find tools and list more of them.",
    "company": "The company's letterhead on every printed document.",
    "bills": "Supplier bills matched to orders and receipts; goods received not billed.",
    "accounting": "The journal stock movements post, the trial balance, the stock "
                  "accounts, exports for an accounting system.",
}
"""Each toolset's one line, said once: what `list_toolsets` shows and `find_tools` also
ranks by."""


def catalogue() -> list[Toolset]:
    return [import_module(f"shopfloor.tools.{name}").tools for name in MODULES]


_DECLARED = re.compile(r'@tools\.(?:read|write|job|write_job)\(\s*"(\w+)"')


@cache
def declared_in() -> dict[str, str]:
    """Which module declares each tool, read from the modules' own text (no import): what
    lets a one-call process import one module. A unit test holds it to the catalogue."""
    here = Path(__file__).parent
    return {tool: module for module in MODULES
            for tool in _DECLARED.findall(
                (here / f"{module.replace('.', '/')}.py").read_text("utf-8"))}


def tools_beside(name: str) -> list[Tool]:
    """The tools of the module that declares `name` (none for a name nobody declares)."""
    module = declared_in().get(name)
    return list(import_module(f"shopfloor.tools.{module}").tools) if module else []


def every_tool() -> list[Tool]:
    return [t for toolset in catalogue() for t in toolset]
