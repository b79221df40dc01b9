"""`shopfloor serve`: the HTTP surface with MCP (streamable HTTP) and the web admin mounted.

/mcp runs stateless, so any number of instances behind a load balancer answer any
request; it sits behind the same bearer-JWT check as the tools API, and the token's
subject is the actor of every tool call made through it. Stateless means POST only: there
is no session for a GET stream to belong to, nor for a DELETE to end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecuritySettings,
)
from mcp_types import INVALID_REQUEST
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from shopfloor.app import worker_for
from shopfloor.jobs.worker import start_in_thread
from shopfloor.registry.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.http import create_app, error_response
from shopfloor.surfaces.mcp import build_server, current_actor, request_actor

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class AuthenticatedMCP:
    """ASGI wrapper: 401 without a valid token, else run MCP as the token's subject."""

    def __init__(self, manager: StreamableHTTPSessionManager, auth: Authenticator) -> None:
        self.manager = manager
        self.auth = auth

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
        token = current_actor.set(actor)
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            current_actor.reset(token)


def _transport_refusal(method: str, headers: dict[str, str]) -> JSONResponse | None:
    """The SDK transport refuses a mistyped or oversized POST in plain text; a JSON-RPC
    client expects an error object, so those two are answered here first, the same way.
    (A chunked body with no length still meets the transport's own 4 MiB limit.)

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
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) > DEFAULT_MAX_REQUEST_BODY_SIZE:
        return _jsonrpc_error(413, INVALID_REQUEST,
                              f"request body over {DEFAULT_MAX_REQUEST_BODY_SIZE} bytes")
    return None


def _jsonrpc_error(status: int, code: int, message: str) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": None,
                         "error": {"code": code, "message": message}}, status_code=status)


def _security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection when serving on loopback (as the SDK does by default)."""
    if host not in LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def build_app(registry: Registry, settings: Settings, *, run_worker: bool = True) -> Starlette:
    manager = StreamableHTTPSessionManager(
        app=build_server(registry, request_actor, output_schemas=settings.mcp_output_schemas,
                         progress_wait=settings.mcp_progress_wait_seconds),
        stateless=True,
        security_settings=_security(settings.host),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        halt = start_in_thread(worker_for(registry, settings)) if run_worker else None
        try:
            async with manager.run():
                yield
        finally:
            if halt is not None:
                halt()

    auth = Authenticator(registry, settings)  # one, so /mcp and the API share its cache
    # every method reaches the wrapper: 401 without a token first, then 405 but for POST
    mcp_route = Route("/mcp", endpoint=AuthenticatedMCP(manager, auth))
    return create_app(registry, settings, extra_routes=[mcp_route], lifespan=lifespan,
                      auth=auth)
