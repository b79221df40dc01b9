"""The schema, one module per concept, none holding more than eight tables. A name is
imported from its module when first asked for (`from shopfloor.store.tables import Item`
loads items.py and the modules it imports only): mapping a declarative class is most of a
millisecond, and a CLI read that maps all fifty-odd tables pays a third of its start-up
for tables it never touches. Each module's relationships point within itself or to a
module it imports (core.py, the base every module imports, points nowhere), so any module
with its imports maps and configures on its own.

`Base` (and so `Base.metadata`) asked for here loads every module first: Alembic, the
tests' truncation, backups and the violation reader need every table on it.
`everything()` does the same for a caller that holds `Base` from core.py.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm.mapper import _CONFIGURE_MUTEX as CONFIGURE_MUTEX

if TYPE_CHECKING:  # the type checker sees every name as before
    from shopfloor.store.tables.accounting import *  # noqa: F403
    from shopfloor.store.tables.accounts import *  # noqa: F403
    from shopfloor.store.tables.bills import *  # noqa: F403
    from shopfloor.store.tables.buying import *  # noqa: F403
    from shopfloor.store.tables.company import *  # noqa: F403
    from shopfloor.store.tables.core import *  # noqa: F403
    from shopfloor.store.tables.corrections import *  # noqa: F403
    from shopfloor.store.tables.events import *  # noqa: F403
    from shopfloor.store.tables.floor import *  # noqa: F403
    from shopfloor.store.tables.items import *  # noqa: F403
    from shopfloor.store.tables.locations import *  # noqa: F403
    from shopfloor.store.tables.lots import *  # noqa: F403
    from shopfloor.store.tables.manufacturing import *  # noqa: F403
    from shopfloor.store.tables.operations import *  # noqa: F403
    from shopfloor.store.tables.partners import *  # noqa: F403
    from shopfloor.store.tables.period import *  # noqa: F403
    from shopfloor.store.tables.planning import *  # noqa: F403
    from shopfloor.store.tables.proposals import *  # noqa: F403
    from shopfloor.store.tables.purchasing import *  # noqa: F403
    from shopfloor.store.tables.sales import *  # noqa: F403
    from shopfloor.store.tables.stock import *  # noqa: F403
    from shopfloor.store.tables.stock_documents import *  # noqa: F403
    from shopfloor.store.tables.valuation import *  # noqa: F403

MODULES = ("core", "accounting", "accounts", "bills", "buying", "company", "corrections",
           "events", "floor", "items", "locations", "lots", "manufacturing", "operations",
           "partners", "period", "planning", "proposals", "purchasing", "sales", "stock",
           "stock_documents", "valuation")
_DEFINED = re.compile(r"^(?:class|def) ([A-Za-z]\w*)|^([A-Za-z]\w*)\s*[:=]", re.MULTILINE)


@cache
def defined_in() -> dict[str, str]:
    """Which module defines each public top-level name, read from the modules' text (no
    import); a unit test holds it to the modules themselves."""
    here = Path(__file__).parent
    found: dict[str, str] = {}
    for module in MODULES:
        for match in _DEFINED.finditer((here / f"{module}.py").read_text("utf-8")):
            found.setdefault(match.group(1) or match.group(2), module)
    return found


def loaded(module: str) -> ModuleType:
    """A table module, imported whole before any other thread configures the mappers.

    A module half imported has mapped its first classes but not the ones they point to
    by name: a query in another thread (the job worker beside an MCP call) configuring
    the mappers then failed on "name 'SupplierBillCharge' is not defined". SQLAlchemy
    configures, and maps each class, under one re-entrant lock; an import held under it
    finishes before any configuration starts. A private name of SQLAlchemy's, pinned by
    tests/system/test_tables_lazy.py, which makes that race happen every time."""
    with CONFIGURE_MUTEX:
        return import_module(f"{__name__}.{module}")


def everything() -> None:
    """Every table on `Base.metadata`."""
    for module in MODULES:
        loaded(module)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    module = defined_in().get(name)
    if name == "Base" or module is None:
        everything()
        module = module or next((m for m in MODULES if hasattr(loaded(m), name)), None)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(loaded(module), name)
    globals()[name] = value  # asked once
    return value
