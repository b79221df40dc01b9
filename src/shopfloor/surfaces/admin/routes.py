"""The admin's URL map: the page modules of `pages`, each mounting its own URLs under the
core's guard. Calls run one way: routes -> pages -> core -> forms, session, display."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from shopfloor.app.settings import Settings
from shopfloor.registry.registry import Registry
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.pages import (
    accounting,
    company,
    day,
    floor,
    home,
    items,
    jobs,
    log,
    orders,
    partners,
    picks,
    planning,
    proposals,
    returns,
    sign_in,
    tools,
    users,
    valuation,
    webhooks,
)
from shopfloor.surfaces.auth import Authenticator


def admin_routes(registry: Registry, settings: Settings, auth: Authenticator) -> list[BaseRoute]:
    admin = Admin(registry, settings, auth)
    return [
        *sign_in.routes(admin),
        Route("/static/{name}", admin.static, methods=["GET"]),
        *picks.routes(admin),
        *tools.routes(admin),
        *home.routes(admin),
        *day.routes(admin),
        *items.routes(admin),
        *planning.routes(admin),
        *jobs.routes(admin),
        *proposals.routes(admin),
        *log.routes(admin),
        *orders.routes(admin),
        *partners.routes(admin),
        *returns.routes(admin),
        *company.routes(admin),
        *accounting.routes(admin),
        *users.routes(admin),
        *valuation.routes(admin),
        *webhooks.routes(admin),
        *floor.routes(admin),
    ]
