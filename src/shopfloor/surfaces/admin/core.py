"""The web admin's shared service: server-rendered pages (Jinja2) with htmx, over the
registry. Every page module calls it; it calls no page.

Like every surface it only lists tools, reads their schemas and invokes them through
`Registry.invoke` as the signed-in actor; the role check is the registry's, so a page
that hides a button is a courtesy, never the guard. Every tool has a page whose form
is generated from its JSON Schema (pages/tools.py). Everything the pages load is
served from the package: htmx is vendored, nothing comes from elsewhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date
from functools import cached_property, partial
from importlib import resources as package_files
from typing import Any
from urllib.parse import parse_qs

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from shopfloor.app.settings import Settings
from shopfloor.kernel.errors import Forbidden, ShopfloorError, Unauthenticated
from shopfloor.kernel.roles import Role
from shopfloor.kernel.statuses import vocabulary
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from shopfloor.registry.tool import Tool
from shopfloor.surfaces.admin import plans
from shopfloor.surfaces.admin import session as sessions
from shopfloor.surfaces.admin.display import Shower, label, words
from shopfloor.surfaces.auth import Authenticator
from shopfloor.ui.formats import Formats, formats_for

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin", "Cache-Control": "no-store",
           "X-Frame-Options": "DENY"}
STATIC = {"htmx.min.js": "text/javascript", "admin.js": "text/javascript",
          "render.js": "text/javascript", "admin.css": "text/css",
          "card.css": "text/css", "htmx.LICENSE.txt": "text/plain"}
LINKS = {"sku": "/items/", "product": "/items/", "job_id": "/jobs/",
         "operation_id": "/log/"}
MAX_FORM = 2 * 1024 * 1024
Handler = Callable[[Request, Actor], Awaitable[Response]]


class Admin:
    def __init__(self, registry: Registry, settings: Settings, auth: Authenticator) -> None:
        self.registry = registry
        self.settings = settings
        self.auth = auth
        self.csrf_key = registry.key("admin-csrf")
        self.env = Environment(loader=PackageLoader("shopfloor.ui", "admin/templates"),
                               autoescape=select_autoescape(default=True, default_for_string=True),
                               trim_blocks=True, lstrip_blocks=True)
        self.env.filters["label"] = label
        self.env.filters["words"] = words
        self.env.globals["statuses"] = vocabulary()  # the words, served: none in templates
        self.env.policies["json.dumps_kwargs"] = {"sort_keys": False, "default": str}

    @cached_property
    def titles(self) -> dict[str, str]:
        """Tool titles, and job kinds by what a person calls them."""
        return {"mrp": "MRP run", **{t.name: t.title for t in self.registry.tools()}}

    def has(self, name: str) -> bool:
        return any(t.name == name for t in self.registry.tools())

    def formats(self, request: Request | None) -> Formats:
        """The reader's formats: their Accept-Language, the deployment's currency."""
        header = request.headers.get("accept-language") if request is not None else None
        return formats_for(header, self.settings.currency, self.settings.time_zone)

    def today(self) -> date:
        """The deployment's date: the registry's clock (the one the tools' `now` reads)
        in the deployment's time zone, not the server process's local date."""
        return self.registry.clock().astimezone(self.formats(None).zone()).date()

    def shower(self, request: Request | None = None, links: dict[str, str] | None = None,
               currency: str | None = None) -> Shower:
        """`currency`: the page's money is in another (a supplier's order in dollars)."""
        formats = self.formats(request)
        if currency:
            formats = replace(formats, currency=currency)
        return Shower(formats, self.titles, {**LINKS, **(links or {})})

    def tools_for(self, actor: Actor) -> list[Tool]:
        return [t for t in self.registry.tools() if not t.app_only and actor.may(t.facts.role)]

    def may(self, actor: Actor, name: str) -> bool:
        return self.has(name) and actor.may(self.registry.get(name).facts.role)

    async def call(self, actor: Actor, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await run_in_threadpool(self.registry.invoke, name, args, actor)
        return result

    async def read(self, actor: Actor, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A read the page can live without: a missing tool or a refusal reads as empty."""
        if not self.may(actor, name):
            return {}
        try:
            return await self.call(actor, name, args)
        except ShopfloorError:
            return {}

    async def plan_drawn(self, request: Request, actor: Actor,
                         plan: dict[str, Any]) -> dict[str, Any]:
        """An MRP plan as the job and MRP pages draw it: cards and messages, with the
        items' names and units (the ticks are the MRP page's own)."""
        skus = plans.skus(plan)[:500]
        items: dict[str, dict[str, Any]] = {}
        if skus and self.may(actor, "search_items"):
            got = await self.read(actor, "search_items", {"skus": skus, "limit": len(skus)})
            items = {i["sku"]: i for i in got.get("items", [])}
        return plans.draw(plan, items, self.formats(request))

    # -- rendering -------------------------------------------------------------------
    def render(self, request: Request, template: str, actor: Actor | None,
               status: int = 200, *, money_in: str | None = None, **ctx: Any) -> HTMLResponse:
        show = self.shower(request, currency=money_in)
        base = {"request": request, "actor": actor, "show": show, "fmt": show.formats,
                "csrf": sessions.csrf_token(request, self.csrf_key) if actor else "",
                "currency": self.settings.currency, "time_zone": self.settings.time_zone,
                "may": (lambda name: actor is not None and self.may(actor, name)),
                "has": self.has, "titles": self.titles, "path": request.url.path,
                "role": actor.highest.name if actor and actor.highest else ""}
        html = self.env.get_template(template).render(**base, **ctx)
        return HTMLResponse(html, status_code=status, headers=HEADERS)

    def problem(self, request: Request, actor: Actor | None, exc: ShopfloorError) -> Response:
        status = {"not_found": 404, "forbidden": 403, "validation_error": 400}.get(exc.code, 409)
        return self.render(request, "problem.html", actor, status=status, error=exc)

    def page(self, path: str, handler: Callable[..., Awaitable[Response]], *args: Any,
             write: bool = False, **route: Any) -> Route:
        """The route of a page's handler, called as `handler(admin, *args, request, actor)`
        behind `guarded`: the one way every page is mounted."""
        return Route(path, self.guarded(partial(handler, self, *args), write=write), **route)

    def guarded(self, handler: Handler, *, write: bool = False
                ) -> Callable[[Request], Awaitable[Response]]:
        """Sign-in first; a POST must say it comes from this site (its Origin, else its
        Referer: naming neither is refused too, previews included) and carry the
        session's CSRF token."""
        async def endpoint(request: Request) -> Response:
            try:
                actor = await sessions.current_actor(request, self.auth)
            except sessions.SignInNeeded as need:
                return sessions.to_sign_in(request, need.reason)
            if request.method == "POST":
                here = sessions.same_origin(request)
                if here is not True:
                    return self.cross_site(request, actor, named=here is not None)
                sent = request.headers.get("x-csrf-token") or (await form_of(request)).get(
                    "csrf", [""])[-1]
                if not sessions.csrf_ok(request, self.csrf_key, sent):
                    return self.render(request, "problem.html", actor, status=403,
                                       error=Unauthenticated(
                                           "This form is out of date; reload the page."))
            try:
                return await handler(request, actor)
            except sessions.SignInNeeded as need:
                return sessions.to_sign_in(request, need.reason)
            except Unauthenticated as exc:
                reason = exc.details.get("reason")
                return sessions.to_sign_in(request, reason if isinstance(reason, str)
                                           else "unauthenticated")
            except ShopfloorError as exc:
                return self.problem(request, actor, exc)
        return endpoint

    def cross_site(self, request: Request, actor: Actor | None, *,
                   named: bool = True) -> Response:
        said = ("This request came from another site" if named else
                "This request named no page of this site (no Origin or Referer)")
        return self.render(request, "problem.html", actor, status=403, error=Forbidden(
            f"{said}; open this site's page and try again."))

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404)
        folder = "" if name in ("render.js", "card.css") else "admin/static/"
        body = package_files.files("shopfloor.ui").joinpath(folder + name).read_bytes()
        return Response(body, media_type=STATIC[name], headers={
            "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})


async def form_of(request: Request) -> dict[str, list[str]]:
    """The urlencoded body (what htmx and plain forms send), parsed once per request."""
    cached = request.scope.get("shopfloor.form")
    if cached is not None:
        parsed: dict[str, list[str]] = cached
        return parsed
    raw = await request.body()
    if len(raw) > MAX_FORM:
        raise ShopfloorError("the form is too large")
    parsed = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
    request.scope["shopfloor.form"] = parsed
    return parsed


__all__ = ["Admin", "Role"]
