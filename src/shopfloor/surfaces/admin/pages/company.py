"""The company's letterhead: what every printed document carries at its head, and a link
to change it (the tool's own form, filled in with the letterhead as it stands; the logo
stays unless a new file is picked)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled

FIELDS = ("name", "address", "tax_id", "email", "phone")


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/company", company)]


async def company(a: Admin, request: Request, actor: Actor) -> Response:
    found = await a.call(actor, "get_company_profile", {})
    edit = prefilled("set_company_profile", {k: found.get(k) for k in FIELDS}) \
        if a.may(actor, "set_company_profile") else None
    logo = f"data:{found['logo_type']};base64,{found['logo']}" if found.get("logo") else None
    return a.render(request, "company.html", actor, profile=found, edit=edit, logo=logo)
