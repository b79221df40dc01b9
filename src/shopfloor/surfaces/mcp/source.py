"""Where an MCP server gets its registry: at hand, or opened once the session serves."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from shopfloor.kernel.errors import Internal

if TYPE_CHECKING:
    from shopfloor.registry.registry import Registry

log = logging.getLogger("shopfloor.mcp")


class RegistrySource:
    """Where a server gets its registry: at hand, or opened once the session is serving.

    `shopfloor mcp` answers initialize and tools/list without the database; opening it
    (imports, migration check, signing secret) runs in a thread once tools/list has been
    answered, at once when a call needs it, or `after` seconds into the session; the
    calls wait for it.
    """

    def __init__(self, registry: Registry | None = None, *,
                 opener: Callable[[], Registry] | None = None, after: float = 1.0) -> None:
        if (registry is None) == (opener is None):
            raise ValueError("give a registry or an opener")
        self.registry = registry
        self._opener = opener
        self._after = after
        self._wanted = anyio.Event()
        self._urgent = False
        self._called = anyio.Event()
        self._ready = anyio.Event()
        self._error: Exception | None = None
        self.answered = anyio.Event()
        """Set once a call has been answered (start-up's background work waits for it)."""
        self.running = 0
        self.last_answer = 0.0
        if registry is not None:
            self._ready.set()

    def want(self, *, urgent: bool) -> None:
        self._urgent = self._urgent or urgent
        self._wanted.set()
        if urgent:
            self._called.set()

    async def open(self) -> Registry | None:
        """Run by the session's task group: open the registry (once), never raise."""
        if self._opener is None or self._ready.is_set():
            return self.registry
        with anyio.move_on_after(self._after):
            await self._wanted.wait()
        if not self._urgent:  # let the tools/list reply leave before the imports; a call
            with anyio.move_on_after(0.02):  # coming in says it has (issue 32: the first
                await self._called.wait()  # call waited out the whole pause)
        try:
            self.registry = await anyio.to_thread.run_sync(self._opener)
        except Exception as exc:
            log.exception("could not open the database")
            self._error = exc
        finally:
            self._ready.set()
        return self.registry

    async def quiet(self, idle: float) -> None:
        """Return once no call has run for `idle` seconds (the caller bounds the wait)."""
        while True:
            since = anyio.current_time() - self.last_answer
            if not self.running and since >= idle:
                return
            await anyio.sleep(idle - since if not self.running else idle)

    async def get(self) -> Registry:
        if self.registry is not None:
            return self.registry
        self.want(urgent=True)
        await self._ready.wait()
        if self.registry is None:
            raise Internal(f"the database could not be opened: {self._error}")
        return self.registry
