"""The tools a registry knows, by name: handed in at start-up, never imported here.

`app/wiring.py` adds the catalogue's tools (all at once, or lazily: each module when one
of its tools is first named); the registry finds a tool by name or lists them all. It
hands itself down on every `Op` it makes: a tool that reads another tool's facts (a
revert, how each tool is undone; a job's cancel, the role that started it) reads them
with `of(op)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import Internal, NotFound
from shopfloor.registry.tool import Tool


class Catalogue:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._find: Callable[[str], Iterable[Tool]] | None = None
        self._every: Callable[[], Iterable[Tool]] | None = None

    def add(self, tools: Iterable[Tool]) -> None:
        for t in tools:
            if t.name in self._tools:
                raise ValueError(f"tool {t.name!r} declared twice")
            self._tools[t.name] = t

    def add_lazily(self, find: Callable[[str], Iterable[Tool]],
                   every: Callable[[], Iterable[Tool]]) -> None:
        """Tools loaded when first named (`find`: the tools declared beside it) and all
        of them, in order, once listed (`every`): a one-call process (the CLI) imports
        only its own tool's module."""
        self._find, self._every = find, every

    def tools(self) -> list[Tool]:
        if self._every is not None:
            self._tools = {t.name: t for t in self._every()}
            self._find = self._every = None
        return list(self._tools.values())

    def find(self, name: str) -> Tool | None:
        """The tool of that name, or None: a name an old log row or a queued job spells
        may be no tool now."""
        found = self._tools.get(name)
        if found is None and self._find is not None:
            for t in self._find(name):
                self._tools.setdefault(t.name, t)
            found = self._tools.get(name)
        return found

    def get(self, name: str) -> Tool:
        found = self.find(name)
        if found is None:
            raise NotFound(f"no tool named {name!r}", field="name")
        return found


def of(op: Op) -> Catalogue:
    """The catalogue `op` runs among, as its registry handed it down: one built outside
    a registry has none, and a tool that needs one says so rather than read another."""
    found = op.catalogue
    if not isinstance(found, Catalogue):
        raise Internal("this operation was started outside a registry: it knows no tools")
    return found
