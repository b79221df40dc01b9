"""The MCP surface: the official SDK's low-level server dispatching to the registry.

tools/list is answered from the catalogue and tools/call from the registry (no tool is
declared twice); every result carries structured content and a short text; errors are
`isError` results with the coded error as structured content (a tool name this server
does not have is a protocol error, -32602: nothing ran). Write tools link the preview
card through `_meta.ui.resourceUri` (MCP Apps); hosts without apps get the same
information as text. An apply without a token from a client that can be asked is
confirmed in the host's own dialog first (`mcp_confirm`); resources live in
`mcp_resources`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.apps import EXTENSION_ID
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from shopfloor import __version__
from shopfloor.kernel.errors import NotFound, ShopfloorError
from shopfloor.kernel.statuses import JOB_TERMINAL
from shopfloor.registry.confirm import ConfirmWrites, policy
from shopfloor.registry.toolsets import ALL
from shopfloor.surfaces.mcp import alerts as mcp_alerts
from shopfloor.surfaces.mcp.confirm import Confirmer
from shopfloor.surfaces.mcp.lowlevel import Screened, ShopfloorServer
from shopfloor.surfaces.mcp.resources import Resources, no_cursor
from shopfloor.surfaces.mcp.source import RegistrySource
from shopfloor.surfaces.mcp.toolsets import Changes, Selection
from shopfloor.surfaces.render import render
from shopfloor.ui import cards

if TYPE_CHECKING:
    from shopfloor.app.settings import Settings
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry

log = logging.getLogger("shopfloor.mcp")


INSTRUCTIONS = (
    "Shopfloor runs inventory and manufacturing: items, stock per location, purchase, sales "
    "and manufacturing orders. Reads are safe. Every write previews first and returns a "
    "preview_token; apply only after the user confirms (on the card or in chat)."
)

# The actor of the current HTTP request, set by the auth middleware in front of /mcp.
current_actor: contextvars.ContextVar[Actor | None] = contextvars.ContextVar(
    "shopfloor_actor", default=None)


def mcp_tool(t: Mapping[str, Any], *, output_schemas: bool = True) -> types.Tool:
    """The MCP face of a tool, from its description (`shopfloor.app.describe`).
    `output_schemas=False` leaves outputSchema out of tools/list (it is optional in MCP)
    for hosts where every byte of context counts."""
    read = not t["writes"] and not t["job"]
    meta: dict[str, Any] | None = None
    if t["writes"]:
        meta = {"ui": {"resourceUri": cards.PREVIEW_URI}}
    elif t["job"]:
        meta = {"ui": {"resourceUri": cards.JOB_URI}}
    elif t["app_only"]:
        meta = {"ui": {"resourceUri": cards.JOB_URI, "visibility": ["app"]}}
    return types.Tool(
        name=t["name"],
        title=t["title"],
        description=t["description"],
        input_schema=t["input_schema"],
        output_schema=t["output_schema"] if output_schemas else None,
        annotations=hints(read=read, destructive=t["destructive"],
                          open_world=bool(t.get("open_world"))),
        meta=meta,
    )


_READ_HINTS = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def hints(*, read: bool, destructive: bool, open_world: bool = False
          ) -> types.ToolAnnotations:
    """The policy's hints, less what MCP's defaults already say (readOnly false,
    idempotent false, openWorld true, destructive true), since every tool pays for them
    in context on every turn. A read needs neither destructiveHint nor idempotentHint (the
    spec gives both meaning only when readOnlyHint is false); a tool that changes something
    always states its destructiveHint, so a host that warns on it need not know the
    default."""
    if read:
        return _READ_HINTS
    return types.ToolAnnotations(destructive_hint=destructive,
                                 open_world_hint=None if open_world else False)


TEXT_LIMIT = 64_000


def text_of(result: dict[str, Any]) -> str:
    """The text a host without apps shows: the same content a person reads on the CLI.

    A big result (an MRP plan, an import report) keeps its full text out: the structured
    content already carries it, and doubling it could pass the 1 MiB a streamable-HTTP
    client accepts in one event.
    """
    text = render(result, "text")
    if len(text) <= TEXT_LIMIT:
        return text
    head = str(result.get("summary") or result.get("message") or "")
    return f"{head}\n(long result: {len(text)} characters; see the structured content)".strip()


def answer(text: str, structured: dict[str, Any]) -> dict[str, Any]:
    """A tool's result in its wire form: the SDK checks a handler's result against the
    protocol version's CallToolResult and shapes it either way, so a CallToolResult
    model built here was validated, dumped and validated again on every call (~10 us of
    a `get_item` over stdio). The same answer reaches the client."""
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured,
            "isError": False, "resultType": "complete"}


def error_result(exc: ShopfloorError) -> types.CallToolResult:
    payload = exc.to_payload()
    where = f" (field: {exc.field})" if exc.field else ""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"error[{exc.code}]: {exc.message}{where}")],
        structured_content=payload,
        is_error=True,
    )


def known(registry: Registry, name: str) -> None:
    """A tool name this server does not have is a protocol error (invalid params), not a
    tool's result: nothing ran."""
    try:
        registry.get(name)
    except NotFound:
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}",
                       data={"name": name}) from None


def _wants_progress(ctx: ServerRequestContext[Any]) -> bool:
    meta: Any = ctx.meta or {}
    return meta.get("progress_token", meta.get("progressToken")) is not None


async def follow_job(ctx: ServerRequestContext[Any], registry: Registry, actor: Actor,
                     started: dict[str, Any], wait: float) -> dict[str, Any]:
    """A client that sent a progress token gets the job's progress as notifications, and
    the finished job as the result; past `wait` seconds it gets the job as it stands (the
    job goes on; get_job follows it). Without a token the call returns at once."""
    deadline = anyio.current_time() + wait
    last: tuple[str, str] | None = None
    while True:
        job = await anyio.to_thread.run_sync(
            registry.invoke, "get_job", {"job_id": started["job_id"]}, actor)
        if (job["progress"], job["message"]) != last:
            last = (job["progress"], job["message"])
            await ctx.session.report_progress(float(job["progress"]), 1.0, job["message"])
        if job["status"] in JOB_TERMINAL or anyio.current_time() > deadline:
            return {**started, "status": job["status"], "progress": job["progress"],
                    "summary": job["message"], "result": job["result"]}
        await anyio.sleep(0.25)


def build_server(registry: Registry, actor_for: Callable[[], Actor], *,
                 output_schemas: bool = True, progress_wait: float = 300.0,
                 inline_reads: bool = False,
                 confirm_writes: ConfirmWrites = ConfirmWrites.destructive,
                 selection: Selection | None = None) -> Server[Any]:
    def described() -> list[dict[str, Any]]:
        """The tools as listed, on the first tools/list rather than at start-up (their
        schemas took half a second of every server's start): the catalogue's cached
        description when it names this registry's tools, else each described here."""
        from shopfloor.app.described import cached_only, describe

        tools = registry.tools()
        cached = cached_only()
        if cached is not None and [d["name"] for d in cached] == [t.name for t in tools]:
            return cached
        return [describe(t) for t in tools]

    return server_for(described, RegistrySource(registry), actor_for,
                      output_schemas=output_schemas, progress_wait=progress_wait,
                      inline_reads=inline_reads, confirm_writes=confirm_writes,
                      selection=selection)


async def invoke(registry: Registry, name: str, arguments: dict[str, Any], actor: Actor, *,
                 inline_reads: bool) -> dict[str, Any]:
    """A plain read on the event loop when `inline_reads` (one client, as on stdio: the
    thread hop cost a quarter of a read's throughput); everything else in a worker
    thread, so a write or a job start never holds the loop up."""
    if inline_reads and registry.get(name).facts.plain_read:
        return registry.invoke(name, arguments, actor)
    return await anyio.to_thread.run_sync(registry.invoke, name, arguments, actor)


def server_for(catalogue: Callable[[], list[dict[str, Any]]], source: RegistrySource,
               actor_for: Callable[[], Actor], *, output_schemas: bool = True,
               progress_wait: float = 300.0, inline_reads: bool = False,
               confirm_writes: ConfirmWrites = ConfirmWrites.destructive,
               lasting_sessions: bool = False, selection: Selection | None = None
               ) -> Server[Any]:
    """One dispatcher over the registry. tools/list needs only the catalogue's
    description (`catalogue()`, called once, in a thread: it may wait for a child
    process) and lists what `selection` chooses (all tools without one; mcp_toolsets);
    tools/call waits for the registry and answers any tool, listed or not.
    `inline_reads`: for a server with one client (stdio), plain reads run on the event
    loop (see `invoke`). `confirm_writes`:
    which applies without a token ask the person first, where the client can be asked
    (`mcp_confirm`). `lasting_sessions`: stdio's, where handshake-era clients may
    `resources/subscribe` (mcp_alerts)."""
    selection = selection or Selection(ALL)
    described: list[list[dict[str, Any]]] = []
    listed: dict[frozenset[str], types.ListToolsResult] = {}
    confirmer = Confirmer(confirm_writes)
    resources = Resources(source.get, actor_for)
    changes = Changes()

    async def catalogued() -> list[dict[str, Any]]:
        if not described:
            found = await anyio.to_thread.run_sync(catalogue)
            if not described:  # (two first lists at once describe the same tools)
                selection.know(found)
                described.append(found)
        return described[0]

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        no_cursor(params)
        every = await catalogued()
        try:
            chosen = selection.current()
        except ShopfloorError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=exc.message,
                           data=exc.to_payload()) from None
        if chosen not in listed:
            listed[chosen] = types.ListToolsResult(tools=[
                mcp_tool(t, output_schemas=output_schemas) for t in selection.filter(every)])
        source.want(urgent=False)
        return listed[chosen]

    async def enabled(ctx: ServerRequestContext[Any], result: dict[str, Any]) -> None:
        """A session that enabled toolsets is listed them from now on, and told."""
        await catalogued()
        if selection.enable(list(result.get("toolsets") or ())):
            await changes.announce(ctx)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult | dict[str, Any]:
        source.running += 1
        try:
            actor = actor_for()
            registry = source.registry or await source.get()
            known(registry, params.name)
            arguments = params.arguments or {}
            asked = await confirmer.call(ctx, registry, params, arguments, actor)
            if isinstance(asked, types.InputRequiredResult):
                return asked
            result = asked if asked is not None else await invoke(
                registry, params.name, arguments, actor, inline_reads=inline_reads)
            if isinstance(result.get("job_id"), str) and _wants_progress(ctx):
                result = await follow_job(ctx, registry, actor, result, progress_wait)
            if registry.get(params.name).facts.enables:
                await enabled(ctx, result)
        except ShopfloorError as exc:
            return error_result(exc)
        finally:
            source.running -= 1
            source.last_answer = anyio.current_time()
            source.answered.set()
        return answer(text_of(result), result)

    server = ShopfloorServer(
        "shopfloor",
        version=__version__,
        title="Shopfloor",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=cast(Any, call_tool),  # (it may answer in wire form: see `answer`)
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.read,
        **mcp_alerts.handlers(source.get, lasting_sessions=lasting_sessions,
                              changes=changes.bus),
    )
    server.extensions[EXTENSION_ID] = {}
    return server


def settings_actor(settings: Settings) -> Callable[[], Actor]:
    """The stdio actor: checked per call, so a missing one is a coded error, not a crash.
    The settings do not change while serving: once found, it is kept."""
    from shopfloor.app.wiring import local_actor

    found: list[Actor] = []

    def actor() -> Actor:
        if not found:
            found.append(local_actor(settings))
        return found[0]

    return actor


def request_actor() -> Actor:
    actor = current_actor.get()
    if actor is None:
        from shopfloor.kernel.errors import Unauthenticated

        raise Unauthenticated("no authenticated actor for this MCP request")
    return actor


def untraced(server: Server[Any]) -> None:
    """Without an OpenTelemetry SDK set up (a tracer provider installed, as
    `opentelemetry-instrument shopfloor mcp` does before anything runs), the SDK's span
    middleware only makes no-op spans: ~8 us of every call over stdio (issue 32). It stays
    when a provider is installed."""
    from opentelemetry import trace

    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        server.middleware[:] = [m for m in server.middleware
                                if type(m).__name__ != "OpenTelemetryMiddleware"]


WORKER_AFTER = 1.0
"""Seconds after the database opens that stdio's job worker starts, or once the first
call is answered and the calls pause (`WORKER_QUIET`) if that is later: its start checks
every alert (seconds of CPU on a big company) in a thread, and while it runs each call
waits for the interpreter at every thread hop of the transport (measured: get_item over
stdio 3-5x slower for the check's duration; issue 32)."""
WORKER_QUIET = 0.25
"""Seconds without a call that count as a pause."""
WORKER_LATEST = 5.0
"""...but however busy the session, no later than this after the database opened."""


async def serve_stdio(settings: Settings,
                      catalogue: Callable[[], list[dict[str, Any]]] | None = None) -> None:
    """stdio, where a line that is not JSON-RPC gets a JSON-RPC error, not silence (see
    `Screened`).

    Start-up does only what tools/list needs: `catalogue` describes the tools (by default
    here and now; `shopfloor mcp` has a child process describe them while this one loads
    the SDK). The database is opened and the job worker started once the session serves.
    """
    import gc

    from mcp.server.stdio import stdio_server

    from shopfloor.app.wiring import describe_catalogue, open_registry, worker_for
    from shopfloor.surfaces.mcp.pipes import loop_stdio

    catalogue = catalogue or describe_catalogue
    def opener() -> Registry:
        """The registry, its imports and its first statements: long-lived, like start-up,
        so the collector pauses for them and keeps out of them after (frozen)."""
        gc.disable()
        try:
            return open_registry(settings, lazy=True)
        finally:
            gc.freeze()
            gc.enable()

    source = RegistrySource(opener=opener)
    server = server_for(catalogue, source, settings_actor(settings),
                        output_schemas=settings.mcp_output_schemas,
                        progress_wait=settings.mcp_progress_wait_seconds, inline_reads=True,
                        confirm_writes=policy(settings.confirm_writes),
                        lasting_sessions=True, selection=Selection(settings.toolsets))
    untraced(server)
    # What start-up built lives as long as the process: keep the collector off it
    # (`shopfloor mcp` starts with the collector paused; see cli.mcp).
    gc.freeze()
    gc.enable()
    halts: list[Callable[[], None]] = []

    async def open_then_work() -> None:
        registry = await source.open()
        if registry is not None:
            registry.store.pin_reads()  # here, on the loop: where the inline reads run
            await anyio.sleep(WORKER_AFTER)
            with anyio.move_on_after(WORKER_LATEST - WORKER_AFTER):
                await source.answered.wait()  # the first call goes first,
                await source.quiet(WORKER_QUIET)  # and calls in a stream before the check
            # (in a thread: the worker's module brings webhook delivery, and httpx brings
            # its CLI's rich and pygments, ~100 modules; on the loop they held up a call)
            worker = await anyio.to_thread.run_sync(worker_for, registry, settings)
            from shopfloor.app.worker import start_in_thread

            halts.append(start_in_thread(worker))
            if catalogue is not describe_catalogue:  # reap the child, listed or not
                await anyio.to_thread.run_sync(catalogue)

    async with loop_stdio() as pipes, \
            stdio_server(*cast(Any, pipes or (None, None))) as (read, write):
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(open_then_work)
                await server.run(Screened(read, write), write,
                                 server.create_initialization_options())
                tg.cancel_scope.cancel()
        finally:
            for halt in halts:
                halt()
