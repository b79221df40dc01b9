"""The HTTP surface: the tools API, OpenAPI, health, and mounts for /mcp and the admin.

Handlers are thin: authenticate, hand the body to `Registry.invoke` in a worker thread
(the registry is synchronous), map the error code to a status. Bodies are bounded.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.registry.actor import Actor
from shopfloor.registry.errors import NotFound, ShopfloorError, ValidationFailed
from shopfloor.registry.registry import Registry
from shopfloor.registry.tool import Tool
from shopfloor.settings import Settings
from shopfloor.surfaces.auth import Authenticator
from shopfloor.surfaces.openapi import STATUS, document

MAX_BODY = 4 * 1024 * 1024


def error_response(exc: ShopfloorError, status: int | None = None) -> JSONResponse:
    return JSONResponse(exc.to_payload(), status_code=status or STATUS.get(exc.code, 500))


def tool_info(t: Tool) -> dict[str, Any]:
    return {"name": t.name, "title": t.title, "description": t.full_description,
            "kind": "write" if t.policy.writes else "read", "role": t.policy.role.name,
            "destructive": t.policy.destructive, "input_schema": t.input_schema,
            "output_schema": t.output_schema}


class ToolsAPI:
    def __init__(self, registry: Registry, auth: Authenticator) -> None:
        self.registry = registry
        self.auth = auth
        self._openapi = document(registry.tools())

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
        return JSONResponse(self._openapi)


ADMIN_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
             "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'self'; "
             "frame-ancestors 'none'")


async def admin(request: Request) -> Response:
    """The web admin: static, self-contained; it signs in with a token and uses the API."""
    from shopfloor.ui.cards import admin_page

    return HTMLResponse(admin_page(), headers={
        "Content-Security-Policy": ADMIN_CSP, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})


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
    auth = auth or Authenticator(registry, settings)
    api = ToolsAPI(registry, auth)
    routes: list[BaseRoute] = [
        Route("/", admin),
        Route("/healthz", healthz),
        Route("/openapi.json", api.openapi),
        Route("/api/v1/tools", api.list_tools),
        Route("/api/v1/tools/{name}", api.tool, methods=["GET", "POST"]),
        *(extra_routes or []),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: method_not_allowed})
    app.state.registry = registry
    app.state.auth = auth
    return app
