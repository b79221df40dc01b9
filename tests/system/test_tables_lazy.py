"""The schema's package imports a table's module when the table is first named (start-up
of a one-call process, issue 32); every name is found where it is defined, and `Base`
asked for there carries every table."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

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
    files = {p.stem for p in Path(tables.__file__).parent.glob("*.py")} - {"__init__"}
    assert files == set(tables.MODULES)


def test_base_asked_for_carries_every_table_and_a_table_alone_maps_alone() -> None:
    code = (
        "import sys\n"
        "from shopfloor.store.tables import Item\n"
        "from sqlalchemy.orm import configure_mappers\n"
        "configure_mappers()\n"  # a subset configures on its own
        "loaded = sorted(m for m in sys.modules if m.startswith('shopfloor.store.tables.'))\n"
        "assert [m.rsplit('.', 1)[1] for m in loaded] == ['core', 'items', 'partners'], loaded\n"
        "from shopfloor.store.tables import Base\n"
        "assert {'journal_entries', 'events', 'work_centres'} <= set(Base.metadata.tables)\n"
        "configure_mappers()\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def imports_of(module: str) -> set[str]:
    """The package's modules that `module` imports, directly or through another."""
    here = Path(tables.__file__).parent
    found: set[str] = set()
    todo = [module]
    while todo:
        tree = ast.parse((here / f"{todo.pop()}.py").read_text("utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith(f"{tables.__name__}.")):
                name = node.module.rsplit(".", 1)[1]
                if name not in found:
                    found.add(name)
                    todo.append(name)
    return found


def test_each_module_s_relationships_point_within_it_or_to_a_module_it_imports() -> None:
    """What lets any one module map and configure without the rest: a relationship to a
    class whose module was never imported fails at configure time, in some process only."""
    from shopfloor.store.tables.core import Base

    tables.everything()
    outside, seen = [], 0
    for mapper in Base.registry.mappers:
        here = mapper.class_.__module__.rsplit(".", 1)[1]
        for rel in mapper.relationships:
            there = rel.mapper.class_.__module__.rsplit(".", 1)[1]
            seen += 1
            if there != here and there not in imports_of(here):
                outside.append(f"{mapper.class_.__name__}.{rel.key} -> {there}")
    assert seen > 20  # the walk saw the schema's relationships
    assert outside == []
    assert imports_of("core") == set()  # the base every module imports imports none


HALFWAY = '''
import __future__, ast, importlib.abc, importlib.util, sys, threading
from sqlalchemy.orm import configure_mappers

NAME, failed = "shopfloor.store.tables.bills", []


def configure():
    try:
        configure_mappers()
    except Exception as e:
        failed.append(repr(e))


class Halfway(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports bills.py up to its first class, lets another thread configure the
    mappers, then imports the rest: the moment a lazy import shares with a query."""

    def find_spec(self, name, path, target=None):
        if name != NAME:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        self.real, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        body = ast.parse(self.real.get_source(NAME)).body
        cut = next(i for i, s in enumerate(body) if isinstance(s, ast.ClassDef)) + 1
        flags = __future__.annotations.compiler_flag
        for half, part in enumerate((body[:cut], body[cut:])):
            code = compile(ast.Module(part, []), module.__file__, "exec", flags=flags)
            exec(code, module.__dict__)
            if half == 0:
                OTHER.start()
                OTHER.join(0.5)  # it waits for the import, or fails at once without the lock


OTHER = threading.Thread(target=configure)
sys.meta_path.insert(0, Halfway())
from shopfloor.store.tables import SupplierBill
OTHER.join()
print(failed)
'''


def test_a_query_in_another_thread_waits_for_a_table_module_imported_halfway() -> None:
    """The job worker's query configured the mappers while an MCP call's thread was
    importing bills.py: its first class pointed to a second not yet defined, and the
    worker failed on "name 'SupplierBillCharge' is not defined". Here that moment is made
    to happen every time."""
    done = subprocess.run([sys.executable, "-c", HALFWAY], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
