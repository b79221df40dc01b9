"""The schema's package imports a table's module when the table is first named (start-up
of a one-call process, issue 32); every name is found where it is defined, and `Base`
asked for there carries every table."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import pytest

from shopfloor.store import tables

pytestmark = pytest.mark.quick


def test_each_name_is_read_from_the_module_that_defines_it() -> None:
    found = tables.defined_in()
    for module in tables.MODULES:
        loaded = import_module(f"shopfloor.store.tables.{module}")
        public = {n for n, v in vars(loaded).items()
                  if not n.startswith("_") and getattr(v, "__module__", None) == loaded.__name__}
        assert public, module
        for name in public:
            assert found.get(name) == module, (name, module, found.get(name))
            assert getattr(tables, name) is getattr(loaded, name)


def test_every_module_of_the_package_is_listed() -> None:
    from pathlib import Path

    files = {p.stem for p in Path(tables.__file__).parent.glob("*.py")} - {"__init__"}
    assert files == set(tables.MODULES)


def test_base_asked_for_carries_every_table_and_a_table_alone_maps_alone() -> None:
    code = (
        "import sys\n"
        "from shopfloor.store.tables import Item\n"
        "from sqlalchemy.orm import configure_mappers\n"
        "configure_mappers()\n"  # a subset configures on its own
        "loaded = sorted(m for m in sys.modules if m.startswith('shopfloor.store.tables.'))\n"
        "assert loaded == ['shopfloor.store.tables.core'], loaded\n"
        "from shopfloor.store.tables import Base\n"
        "assert {'journal_entries', 'events', 'work_centres'} <= set(Base.metadata.tables)\n"
        "configure_mappers()\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
