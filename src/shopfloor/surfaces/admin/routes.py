"""The admin's URL map: the tool pages of `core` and the daily pages of `pages`, mounted
under one guard. Calls run one way: routes -> pages -> core -> forms, session, display."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.pages import home, items, jobs, log, orders, picks, planning
from shopfloor.surfaces.auth import Authenticator


def admin_routes(registry: Registry, settings: Settings, auth: Authenticator) -> list[BaseRoute]:
    admin = Admin(registry, settings, auth)
    g = admin.guarded
    return [
        Route("/sign-in", admin.sign_in_page, methods=["GET"]),
        Route("/sign-in", admin.sign_in, methods=["POST"]),
        Route("/sign-out", admin.sign_out, methods=["POST"]),
        Route("/static/{name}", admin.static, methods=["GET"]),
        *picks.routes(admin),
        Route("/tools", g(admin.tool_list), methods=["GET"]),
        Route("/tools/{name}", g(admin.tool_get), methods=["GET"]),
        Route("/tools/{name}/preview", g(admin.preview, write=True), methods=["POST"]),
        Route("/tools/{name}/apply", g(admin.apply, write=True), methods=["POST"]),
        Route("/tools/{name}/start", g(admin.start, write=True), methods=["POST"]),
        *home.routes(admin),
        *items.routes(admin),
        *planning.routes(admin),
        *jobs.routes(admin),
        *log.routes(admin),
        *orders.routes(admin),
    ]
