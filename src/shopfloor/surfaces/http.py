"""The HTTP surface: the tools API, OpenAPI, health, and mounts for /mcp and the admin.

Handlers are thin: authenticate, hand the body to `Registry.invoke` in a worker thread
(the registry is synchronous), map the error code to a status. Bodies are bounded.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.app.settings import Settings
from shopfloor.app.throttle import TooManyAttempts
from shopfloor.kernel.errors import NotFound, ShopfloorError, Unauthenticated, ValidationFailed
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.registry.tool import Tool
from shopfloor.surfaces.auth import Authenticator, client_address, throttled
from shopfloor.surfaces.openapi import STATUS, document

MAX_BODY = 4 * 1024 * 1024


def error_response(exc: ShopfloorError, status: int | None = None) -> JSONResponse:
    return JSONResponse(exc.to_payload(), status_code=status or STATUS.get(exc.code, 500))


def tool_info(t: Tool) -> dict[str, Any]:
    return {"name": t.name, "title": t.title, "description": t.full_description,
            "kind": "write" if t.facts.writes else "read", "role": t.facts.role.name,
            "destructive": t.facts.destructive, "input_schema": t.input_schema,
            "output_schema": t.output_schema}


class ToolsAPI:
    def __init__(self, registry: Registry, auth: Authenticator) -> None:
        self.registry = registry
        self.auth = auth
        self._openapi: dict[str, Any] | None = None  # built when first asked for

    def actor(self, request: Request) -> Actor:
        return self.auth.actor(request.headers.get("authorization"))

    async def list_tools(self, request: Request) -> Response:
        try:
            self.actor(request)
        except ShopfloorError as exc:
            return error_response(exc)
        return JSONResponse({"tools": [tool_info(t) for t in self.registry.tools()]})

    async def get_tool(self, request: Request) -> Response:
        try:
            self.actor(request)
            return JSONResponse(tool_info(self.registry.get(request.path_params["name"])))
        except ShopfloorError as exc:
            return error_response(exc)

    async def tool(self, request: Request) -> Response:
        """GET describes the tool, POST calls it (one route, so a 405 lists both)."""
        if request.method == "POST":
            return await self.call_tool(request)
        return await self.get_tool(request)

    async def call_tool(self, request: Request) -> Response:
        try:
            actor = self.actor(request)
            name = request.path_params["name"]
            self.registry.get(name)
            args = await self._body(request)
            result = await run_in_threadpool(self.registry.invoke, name, args, actor)
        except ValidationFailed as exc:
            return error_response(exc, 400 if exc.details.get("body") else None)
        except ShopfloorError as exc:
            return error_response(exc)
        return JSONResponse(result)

    async def _body(self, request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ValidationFailed(f"request body over {MAX_BODY} bytes", details={"body": True})
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValidationFailed(f"the body is not valid JSON: {exc}",
                                   details={"body": True}) from None
        except RecursionError:  # e.g. 100,000 nested '[': refused, not a 500
            raise ValidationFailed("the body is nested too deeply to be a tool's arguments",
                                   details={"body": True}) from None
        if not isinstance(body, dict):
            raise ValidationFailed("the body must be a JSON object of arguments",
                                   details={"body": True})
        return body

    async def openapi(self, request: Request) -> Response:
        if self._openapi is None:  # (every tool's schemas: not on every server's start)
            self._openapi = await run_in_threadpool(document, self.registry.tools())
        return JSONResponse(self._openapi)

    async def token(self, request: Request) -> Response:
        """OAuth2 password flow (RFC 6749 4.3): form fields `username` and `password`;
        the answer is a bearer token living as long as the session it opens."""
        raw = await request.body()
        if len(raw) > 64 * 1024:
            return error_response(ValidationFailed("request body too large"), 400)
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            return error_response(ValidationFailed(
                "send the form as application/x-www-form-urlencoded (username, password)",
                details={"body": True}), 400)
        form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace"),
                                             keep_blank_values=True).items()}
        grant = form.get("grant_type", "password")
        if grant != "password":
            return error_response(ValidationFailed(
                f"grant_type {grant!r} is not supported; use password", field="grant_type"), 400)
        for name in ("username", "password"):
            if not form.get(name):
                return error_response(ValidationFailed(f"{name} is required", field=name), 400)
        try:
            token, ttl, _ = await run_in_threadpool(self.auth.sign_in, form["username"],
                                                    form["password"], client_address(request))
        except TooManyAttempts as exc:
            return throttled(error_response(exc, 429), exc)
        except Unauthenticated as exc:
            response = error_response(exc)
            response.headers["WWW-Authenticate"] = 'Bearer realm="shopfloor"'
            return response
        except ShopfloorError as exc:
            return error_response(exc)
        return JSONResponse({"access_token": token, "token_type": "bearer", "expires_in": ttl},
                            headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    async def sign_out(self, request: Request) -> Response:
        """End the session a signed-in token names (a minted API token has none to end)."""
        try:
            sid = await run_in_threadpool(self.auth.session_of,
                                          request.headers.get("authorization"))
            if sid is not None:
                await run_in_threadpool(self.auth.accounts.sign_out, sid)
        except ShopfloorError as exc:
            return error_response(exc)
        return JSONResponse({"signed_out": sid is not None})


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def not_found(request: Request, exc: Exception) -> Response:
    return error_response(NotFound(f"no route {request.url.path}"))


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    """405 in the API's error shape (the route exists; this method does not)."""
    headers = dict(getattr(exc, "headers", None) or {})
    allowed = sorted(m.strip() for m in headers.get("Allow", "").split(",") if m.strip())
    named = [m for m in allowed if m != "HEAD"]
    response = error_response(ValidationFailed(
        f"{request.method} is not allowed on {request.url.path}"
        + (f"; use {' or '.join(named)}" if named else ""),
        details={"method": request.method, "allowed": allowed}), 405)
    if allowed:
        response.headers["Allow"] = ", ".join(allowed)
    return response


def create_app(registry: Registry, settings: Settings, *,
               extra_routes: list[BaseRoute] | None = None, lifespan: Any = None,
               auth: Authenticator | None = None) -> Starlette:
    from shopfloor.app.wiring import shown_as_booked

    settings = shown_as_booked(registry, settings)
    auth = auth or Authenticator(registry, settings)
    api = ToolsAPI(registry, auth)
    from shopfloor.surfaces import paper
    from shopfloor.surfaces.admin import admin_routes

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/openapi.json", api.openapi),
        Route("/api/v1/tools", api.list_tools),
        Route("/api/v1/tools/{name}", api.tool, methods=["GET", "POST"]),
        Route("/api/v1/auth/token", api.token, methods=["POST"]),
        Route("/api/v1/auth/sign-out", api.sign_out, methods=["POST"]),
        *(extra_routes or []),
        *paper.routes(registry, settings, auth),
        *admin_routes(registry, settings, auth),  # last: the API's paths come first
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: method_not_allowed})
    app.state.registry = registry
    app.state.auth = auth
    return app
