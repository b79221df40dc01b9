"""Discovery: an agent starts with the office day's tools and asks for the rest.

`list_toolsets` names the areas, `find_tools` answers a question in words with the best
tools (ranked from the catalogue's own words, registry/toolsets.py), and
`enable_toolset` lists a toolset from now on: an MCP session that listens is told its
tool list changed; a stateless HTTP client chooses by header or path instead. Every tool
answers when called by name whether listed or not, so these only change what is shown.
They read the catalogue, never the database.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from shopfloor.domain.base.context import Op
from shopfloor.kernel.roles import Role
from shopfloor.registry import catalogue, toolsets
from shopfloor.registry.tool import Request, Tool, Toolset
from shopfloor.tools import ABOUT
from shopfloor.tools.fields import Out

tools = Toolset(toolsets.DISCOVERY)


def _catalogue(op: Op) -> list[Tool]:
    """The tools of the registry this call runs in, less those only cards call."""
    return [t for t in catalogue.of(op).tools() if not t.app_only]


def _line(text: str) -> str:
    return text.split(". ")[0].rstrip(".")


def _mine(op: Op, found: list[Tool]) -> list[Tool]:
    top = max(op.roles, default=Role.viewer)
    return [t for t in found if top >= t.facts.role]


class NoArgs(Request):
    pass


class ToolsetOut(Out):
    name: str
    about: str
    tools: int


class ToolsetList(Out):
    toolsets: list[ToolsetOut]


@tools.read("list_toolsets", title="List toolsets", response=ToolsetList, everyday=True,
            description="The tool areas, one line each, with tool counts.")
def list_toolsets(op: Op, req: NoArgs) -> ToolsetList:
    mine = _mine(op, _catalogue(op))
    about = ABOUT
    return ToolsetList(toolsets=[
        ToolsetOut(name=name, about=about.get(name, ""),
                   tools=sum(1 for t in mine if t.facts.toolset == name))
        for name in toolsets.names_in(mine)])


class FindTools(Request):
    question: Annotated[str, StringConstraints(min_length=1, max_length=500,
                                               pattern=r"^[^\x00-\x1f\x7f]+$")]
    limit: int = Field(5, ge=1, le=20)


class FoundTool(Out):
    name: str
    toolset: str
    about: str


class FoundTools(Out):
    tools: list[FoundTool]


@tools.read("find_tools", title="Find tools", response=FoundTools, everyday=True,
            description="Best tools for a task in words; call any by name.")
def find_tools(op: Op, req: FindTools) -> FoundTools:
    ranked = toolsets.rank(_mine(op, _catalogue(op)), req.question, ABOUT, req.limit)
    return FoundTools(tools=[FoundTool(name=t.name, toolset=t.facts.toolset,
                                       about=_line(t.description)) for t, _ in ranked])


class EnableToolset(Request):
    toolsets: Annotated[list[Annotated[str, StringConstraints(max_length=40)]],
                        Field(min_length=1, max_length=30)]


class Enabled(Out):
    toolsets: list[str]
    tools: list[FoundTool]


@tools.read("enable_toolset", title="Enable toolsets", response=Enabled, everyday=True,
            enables=True, description="List these toolsets' tools from now on.")
def enable_toolset(op: Op, req: EnableToolset) -> Enabled:
    every = _catalogue(op)
    chosen = toolsets.choose(req.toolsets, toolsets.names_in(every))
    return Enabled(toolsets=sorted(chosen), tools=[
        FoundTool(name=t.name, toolset=t.facts.toolset, about=_line(t.description))
        for t in _mine(op, toolsets.selection(every, chosen))
        if t.facts.toolset != toolsets.DISCOVERY])
