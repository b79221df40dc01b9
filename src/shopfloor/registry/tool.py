"""A tool is declared once: name, models, policy, description, handler.

Nothing about a surface lives here. A catalogue module makes a `Toolset`, decorates its
handlers, and the registry takes the toolsets in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, StringConstraints, WithJsonSchema

from shopfloor.domain.context import Op
from shopfloor.kernel.roles import Role
from shopfloor.registry.policy import COACHING, Policy, subject
from shopfloor.registry.schema import input_schema, output_schema

Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp", bound=BaseModel)


class Request(BaseModel):
    """Every tool argument model: unknown arguments are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


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
    """What a write handler returns: a one-line summary and the document it wrote."""

    summary: str
    document: Resp


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    request: type[BaseModel]
    response: type[BaseModel]
    policy: Policy
    handler: Callable[[Op, Any], Any]

    app_only: bool = False

    @property
    def subject(self) -> str:
        return subject(self.name)

    @property
    def full_description(self) -> str:
        return f"{self.description} {COACHING}" if self.policy.writes else self.description

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.request)

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """A read's result schema; none for a write (registry/results.py says why)."""
        return None if self.policy.writes else output_schema(self.response)


@dataclass
class Toolset:
    """The tools of one catalogue module, in declaration order."""

    tools: list[Tool] = field(default_factory=list)

    def read(self, name: str, *, title: str, description: str, response: type[Resp],
             app_only: bool = False
             ) -> Callable[[Callable[[Op, Req], Resp]], Callable[[Op, Req], Resp]]:
        """`app_only`: for cards to call (MCP Apps visibility ["app"]), hidden from the model;
        it is still a normal, role-checked tool on every surface."""
        return self._declare(name, title, description, response, Policy.read(), app_only)

    def write(self, name: str, *, title: str, description: str, response: type[Resp],
              role: Role = Role.operator
              ) -> Callable[[Callable[[Op, Req], Done[Resp]]], Callable[[Op, Req], Done[Resp]]]:
        return self._declare(name, title, description, response, Policy.write(name, role))

    def job(self, name: str, *, title: str, description: str, response: type[Resp],
            role: Role = Role.operator
            ) -> Callable[[Callable[[Op, Req], Resp]], Callable[[Op, Req], Resp]]:
        """A tool that starts a background job and returns its id at once."""
        return self._declare(name, title, description, response, Policy.start(role))

    def write_job(self, name: str, *, title: str, description: str, response: type[Resp],
                  role: Role = Role.operator
                  ) -> Callable[[Callable[[Op, Req], Done[Resp]]], Callable[[Op, Req], Done[Resp]]]:
        """A previewed write whose apply queues a job (the job does the work)."""
        return self._declare(name, title, description, response,
                             Policy.write(name, role, job=True))

    def _declare(self, name: str, title: str, description: str, response: type[BaseModel],
                 policy: Policy, app_only: bool = False) -> Callable[[Any], Any]:
        def decorate(fn: Callable[[Op, Any], Any]) -> Callable[[Op, Any], Any]:
            request = fn.__annotations__.get("req")
            if isinstance(request, str):
                request = fn.__globals__[request]
            if not (isinstance(request, type) and issubclass(request, BaseModel)):
                raise TypeError(f"{name}: the handler's `req` must be annotated with its model")
            if policy.writes and not issubclass(request, WriteRequest):
                raise TypeError(f"{name}: a write tool's request must extend WriteRequest")
            self.tools.append(Tool(name, title, description, request, response, policy, fn,
                                   app_only))
            return fn

        return decorate

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)
