"""A tool is declared once: name, models, facts, description, handler.

A catalogue module makes a `Toolset`, decorates its handlers with everything the rest of
the system needs to know about each (its `Facts`), and the registry takes the toolsets
in at start-up: declaring and registering are separate steps, and the registry never
imports a tool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, StringConstraints, WithJsonSchema

from shopfloor.domain.base.context import Op
from shopfloor.kernel.roles import Role
from shopfloor.registry.facts import COACHING, NEVER, Facts, Undo, subject_of
from shopfloor.registry.schema import input_schema, output_schema

if TYPE_CHECKING:
    from shopfloor.registry.jobs import Runner

Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp", bound=BaseModel)


class Request(BaseModel):
    """Every tool argument model: unknown arguments are an error, not silently dropped.
    Its validator is built when first used (`defer_build`): a process that calls one tool
    does not build every other tool's."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True)


def _unpadded(value: object) -> object:
    """An idempotency key is matched byte for byte: trimming " abc " to "abc" would replay
    another request's result, so a padded key is refused rather than changed."""
    if isinstance(value, str) and value != value.strip():
        raise ValueError("must not start or end with whitespace (keys are used exactly "
                         "as sent)")
    return value


IdempotencyKey = Annotated[
    str,
    StringConstraints(strip_whitespace=False, min_length=1, max_length=200,
                      pattern=r"^[^\x00-\x1f\x7f]+$"),
    BeforeValidator(_unpadded),
]


class WriteRequest(Request):
    """The three control arguments every write shares; the coaching text explains them once,
    so their schemas stay bare (an agent reads them on every turn, for every write tool)."""

    preview: Annotated[bool, WithJsonSchema({"type": "boolean", "default": True})] = True
    preview_token: Annotated[str | None, StringConstraints(max_length=2000),
                             WithJsonSchema({"type": "string"})] = None
    idempotency_key: Annotated[IdempotencyKey | None, WithJsonSchema({"type": "string"})] = None


CONTROL_FIELDS = frozenset({"preview", "preview_token", "idempotency_key"})


@dataclass(frozen=True)
class Done(Generic[Resp]):
    """What a write handler returns: a one-line summary and the document it wrote.
    `shown_once`: fields the apply's caller sees and nothing keeps (a webhook's secret):
    not in the operation log, not in the idempotency key's replay."""

    summary: str
    document: Resp
    shown_once: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    request: type[BaseModel]
    response: type[BaseModel]
    facts: Facts
    handler: Callable[[Op, Any], Any]

    @property
    def app_only(self) -> bool:
        return self.facts.app_only

    @property
    def subject(self) -> str:
        return self.facts.subject or subject_of(self.name)

    @property
    def full_description(self) -> str:
        return f"{self.description} {COACHING}" if self.facts.writes else self.description

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.request)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """A read's result schema; none for a write (registry/results.py says why)."""
        return None if self.facts.writes else output_schema(self.response)


Decorator = Callable[[Callable[[Op, Any], Any]], Callable[[Op, Any], Any]]


@dataclass
class Toolset:
    """The tools of one catalogue module, in declaration order. `area` is the toolset all
    its tools belong to (the module's name, a test); `everyday=True` puts a tool in the
    `default` selection an MCP host is listed first."""

    area: str
    tools: list[Tool] = field(default_factory=list)

    def read(self, name: str, *, title: str, description: str, response: type[Resp],
             app_only: bool = False, role: Role = Role.viewer, everyday: bool = False,
             enables: bool = False) -> Decorator:
        """`app_only`: for cards to call (MCP Apps visibility ["app"]), hidden from the model;
        it is still a normal, role-checked tool on every surface. `role`: a read not every
        viewer may make (the accounts)."""
        return self._declare(name, title, description, response, Facts(
            writes=False, role=role, destructive=False, toolset=self.area,
            app_only=app_only, everyday=everyday, enables=enables))

    def write(self, name: str, *, title: str, description: str, response: type[Resp],
              destructive: bool, undo: Undo = NEVER, role: Role = Role.operator,
              subject: str = "", approves: bool = False, decides: bool = False,
              open_world: bool = False, everyday: bool = False,
              holds: bool = False) -> Decorator:
        """`destructive` is the author's word, checked against the naming rules by a test;
        `undo` says how a revert undoes an apply (by default: it cannot). `approves`: the
        registry applies the proposal it names (registry/proposals.py), not the handler;
        `decides` (implied by `approves`): a decision on a proposal; `open_world`: what it
        sets up reaches other systems."""
        return self._declare(name, title, description, response, Facts(
            writes=True, role=role, destructive=destructive, undo=undo, subject=subject,
            toolset=self.area, approves=approves, decides=decides or approves,
            open_world=open_world, everyday=everyday, holds=holds))

    def job(self, name: str, *, title: str, description: str, response: type[Resp],
            runs: tuple[str, Runner], role: Role = Role.operator,
            everyday: bool = False) -> Decorator:
        """A tool that queues a background job of kind `runs[0]`, run by `runs[1]`, and
        returns its id at once: it changes no stock itself."""
        return self._declare(name, title, description, response, Facts(
            writes=False, role=role, destructive=False, job=True, runs=runs,
            toolset=self.area, everyday=everyday))

    def write_job(self, name: str, *, title: str, description: str, response: type[Resp],
                  destructive: bool, undo: Undo = NEVER, role: Role = Role.operator,
                  subject: str = "") -> Decorator:
        """A previewed write whose apply queues a job (the job does the work)."""
        return self._declare(name, title, description, response, Facts(
            writes=True, role=role, destructive=destructive, job=True, undo=undo,
            subject=subject, toolset=self.area))

    def _declare(self, name: str, title: str, description: str, response: type[BaseModel],
                 facts: Facts) -> Decorator:
        def decorate(fn: Callable[[Op, Any], Any]) -> Callable[[Op, Any], Any]:
            request = fn.__annotations__.get("req")
            if isinstance(request, str):
                request = fn.__globals__[request]
            if not (isinstance(request, type) and issubclass(request, BaseModel)):
                raise TypeError(f"{name}: the handler's `req` must be annotated with its model")
            if facts.writes and not issubclass(request, WriteRequest):
                raise TypeError(f"{name}: a write tool's request must extend WriteRequest")
            self.tools.append(Tool(name, title, description, request, response, facts, fn))
            return fn

        return decorate

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)
