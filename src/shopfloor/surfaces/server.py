"""`shopfloor serve`: the HTTP surface with MCP (streamable HTTP) and the web admin mounted.

/mcp runs stateless, so any number of instances behind a load balancer answer any
request; it sits behind the same bearer-JWT check as the tools API, and the token's
subject is the actor of every tool call made through it. Stateless means POST only: there
is no session for a GET stream to belong to, nor for a DELETE to end. Which toolsets a
request is listed is its own choice too: the X-Shopfloor-Toolsets header or the
/mcp/x/{toolsets} path (surfaces/mcp/toolsets.py).

A POST is answered with one JSON body unless it may stream: only a tools/call that asks
for progress (a job followed to its end) sends anything before its answer, so only that
gets an event stream. Streamable HTTP allows either per request. A JSON answer costs the
SDK's client and server about a third less than one SSE event, and has no event-size cap
(the SDK's client refuses an event over 1 MiB: a big company's MRP plan from get_job).

SIGTERM (or SIGINT) stops it within seconds whatever clients hold open (`Serving`): the
listen streams are ended with their final message at once, any request still running
after `DRAIN` seconds is cancelled, and the worker gives back a job it cannot finish in
its grace; the process exits 0 and says so in the log.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Message, Receive, Scope, Send

from shopfloor.app.settings import Settings
from shopfloor.app.wiring import worker_for
from shopfloor.app.worker import start_in_thread
from shopfloor.kernel.digits import whole
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.confirm import policy
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.http import create_app, error_response

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK = ("127.0.0.1", "localhost", "::1")
INVALID_REQUEST = -32600  # JSON-RPC 2.0's
WARM_AFTER = 5.0
"""Seconds after the app is built that the sign-in's dummy hash is made even if its
lifespan never ran (an app a test calls without starting it)."""
MAX_BODY = 4 * 1024 * 1024
"""The MCP transport's request body limit (the SDK's MAX_BODY, held
equal by a test): said here so that refusing a body needs no SDK."""
DRAIN = 2.0
"""Seconds a stopping server waits for requests still running before cancelling them;
with the worker's grace after it, a stop takes under five."""


class Serving(uvicorn.Server):
    """uvicorn, told to stop, also ends the MCP listen streams (each would hold its
    connection, and so the server, open for as long as its client stays), and remembers
    which signal it was told by. The process's own handlers, restored after, are quiet
    ones, so the signal re-raised by uvicorn ends nothing and the exit status is 0."""

    told: str | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        state = getattr(self.config.app, "state", None)
        if state is not None:  # its lifespan may leave to then what can wait
            state.announced = True
        await super().startup(sockets)
        listens = getattr(state, "listening", None)
        if listens is not None:  # serving: now what would have held up the first page
            listens()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self.told = self.told or signal.Signals(sig).name
        alerts = sys.modules.get("shopfloor.surfaces.mcp.alerts")  # (no SDK: no streams)
        if alerts is not None and self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(alerts.end_streams)


def serve(app: Starlette, host: str, port: int) -> str | None:
    """Run `app` until a signal; returns the signal's name (None: stopped otherwise)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)  # what uvicorn restores and re-raises to
    server = Serving(uvicorn.Config(app, host=host, port=port, log_level="info",
                                    timeout_graceful_shutdown=int(DRAIN)))
    server.run()
    return server.told


@dataclass(frozen=True)
class _Mcp:
    """The MCP SDK's side of /mcp: its two transports and the request's context."""

    streaming: StreamableHTTPSessionManager
    answering: StreamableHTTPSessionManager
    actor: ContextVar[Any]
    chosen: ContextVar[Any]
    header: str


class AuthenticatedMCP:
    """ASGI wrapper: 401 without a valid token, else run MCP as the token's subject.

    The MCP SDK (a third of a restart's CPU, ~0.7 s) loads once the server listens
    (`Serving` says so) or a request to /mcp comes, whichever is first: the admin and
    the API answer at once, and a request to /mcp waits for it (`run`, from the
    lifespan)."""

    def __init__(self, registry: Registry, settings: Settings, auth: Authenticator) -> None:
        self.registry, self.settings, self.auth = registry, settings, auth
        self.mcp: _Mcp | None = None
        self.started = False
        self.wanted, self.ready, self.stopping = asyncio.Event(), asyncio.Event(), \
            asyncio.Event()

    def want(self) -> None:
        self.wanted.set()

    def _load(self) -> _Mcp:
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        from shopfloor.surfaces.mcp.surface import build_server, current_actor, request_actor
        from shopfloor.surfaces.mcp.toolsets import HEADER, Selection, requested

        settings = self.settings
        server = build_server(self.registry, request_actor,
                              output_schemas=settings.mcp_output_schemas,
                              progress_wait=settings.mcp_progress_wait_seconds,
                              confirm_writes=policy(settings.confirm_writes),
                              selection=Selection(settings.toolsets, per_request=True))
        streaming, answering = (StreamableHTTPSessionManager(
            app=server, stateless=True, json_response=json_response,
            security_settings=_security(settings.host)) for json_response in (False, True))
        return _Mcp(streaming, answering, current_actor, requested, HEADER)

    async def run(self) -> None:
        """Load the SDK beside the serving, run its transports until told to stop."""
        try:
            await self.wanted.wait()
            if self.stopping.is_set():  # stopped before anything wanted it
                return
            mcp = await anyio.to_thread.run_sync(self._load)
            async with mcp.streaming.run(), mcp.answering.run():
                self.mcp = mcp
                self.ready.set()
                await self.stopping.wait()
        finally:
            self.mcp = None
            self.ready.set()  # (a failed load: requests are answered 503, never hang)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        try:
            actor = self.auth.actor(headers.get("authorization"))
        except ShopfloorError as exc:
            response = error_response(exc)
            response.headers["WWW-Authenticate"] = 'Bearer realm="shopfloor"'
            await response(scope, receive, send)
            return
        refusal = _transport_refusal(scope.get("method", ""), headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            await _too_big()(scope, receive, send)
            return
        if self.started:  # (an app run without its lifespan has no MCP to wait for)
            self.want()
            await self.ready.wait()
        mcp = self.mcp
        if mcp is None:
            await _jsonrpc_error(503, INVALID_REQUEST, "MCP is not running on this server")(
                scope, receive, send)
            return
        manager = mcp.streaming if _may_stream(body) else mcp.answering
        token = mcp.actor.set(actor)
        chose = mcp.chosen.set(scope.get("path_params", {}).get("toolsets")
                               or headers.get(mcp.header))
        try:
            await manager.handle_request(scope, _replay(body, receive), send)
        finally:
            mcp.chosen.reset(chose)
            mcp.actor.reset(token)


async def _body(receive: Receive) -> bytes | None:
    """The whole request body (None past the transport's limit, however it was sent)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)  # the client left: the transport sees an empty body
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for the transport: the body already read, then the connection's own."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def _may_stream(body: bytes) -> bool:
    """A tools/call with a progress token (or a batch, which may hold one): it streams
    its progress notifications; a `subscriptions/listen`, whose answer is the stream.
    Anything else has only its answer to send. Most bodies are told apart without
    parsing; a malformed one is the transport's to refuse."""
    if b"subscriptions/listen" in body:
        return True
    if b"progressToken" not in body:
        return False
    try:
        message = json.loads(body)
    except ValueError:
        return False
    if isinstance(message, list):
        return True
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get("progressToken") is not None


def _too_big() -> JSONResponse:
    return _jsonrpc_error(413, INVALID_REQUEST,
                          f"request body over {MAX_BODY} bytes")


def _transport_refusal(method: str, headers: dict[str, str]) -> JSONResponse | None:
    """The SDK transport refuses a mistyped or oversized POST in plain text; a JSON-RPC
    client expects an error object, so those two are answered here first, the same way.
    (A chunked body with no length meets the same 4 MiB limit as it is read.)

    A GET would open the SDK's stateless event stream, which never sends and never ends
    (nothing can be pushed without a session): each one held a connection for ever. It is
    refused at once, like DELETE, which has no session to end."""
    if method != "POST":
        refusal = _jsonrpc_error(405, INVALID_REQUEST,
                                 f"{method} is not allowed on /mcp: this server is stateless "
                                 "(no event stream, no session); send JSON-RPC with POST")
        refusal.headers["Allow"] = "POST"
        return refusal
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        return _jsonrpc_error(415, INVALID_REQUEST,
                              "Content-Type must be application/json for JSON-RPC over HTTP")
    length = whole(headers.get("content-length", ""), 30)
    if length is not None and length > MAX_BODY:
        return _too_big()
    return None


def _jsonrpc_error(status: int, code: int, message: str) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": None,
                         "error": {"code": code, "message": message}}, status_code=status)


def _security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection when serving on loopback (as the SDK does by default)."""
    from mcp.server.transport_security import TransportSecuritySettings

    if host not in LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def build_app(registry: Registry, settings: Settings, *, run_worker: bool = True) -> Starlette:
    import threading

    from shopfloor.app.accounts import warm_sign_in

    # argon2 (~0.7 s of CPU, off the GIL) and the job worker once the server listens
    # (`Serving` says so; under any other server, at start-up), so that neither holds up
    # the first page on a busy machine; the hash long before a first sign-in
    listening = threading.Event()

    def warm() -> None:
        listening.wait(WARM_AFTER)
        warm_sign_in()

    threading.Thread(target=warm, name="warm-sign-in", daemon=True).start()
    auth = Authenticator(registry, settings)  # one, so /mcp and the API share its cache
    # every method reaches the wrapper: 401 without a token first, then 405 but for POST
    # /mcp/x/{toolsets} lists those toolsets (as the X-Shopfloor-Toolsets header does)
    endpoint = AuthenticatedMCP(registry, settings, auth)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not getattr(app.state, "announced", False):  # nobody will say it listens
            listening.set()
        halt = start_in_thread(worker_for(registry, settings), after=listening) \
            if run_worker else None
        endpoint.wanted, endpoint.ready, endpoint.stopping = (  # this loop's
            asyncio.Event(), asyncio.Event(), asyncio.Event())
        endpoint.started = True
        try:
            async with anyio.create_task_group() as running:
                running.start_soon(endpoint.run)
                try:
                    yield
                finally:
                    endpoint.stopping.set()
                    endpoint.want()  # (never loaded: nothing to wait for)
        finally:
            if halt is not None:
                halt()

    mcp_routes: list[BaseRoute] = [Route("/mcp", endpoint=endpoint),
                                   Route("/mcp/x/{toolsets}", endpoint=endpoint)]
    made = create_app(registry, settings, extra_routes=mcp_routes, lifespan=lifespan,
                      auth=auth)

    def listens() -> None:
        listening.set()
        endpoint.want()

    made.state.listening = listens
    return made
