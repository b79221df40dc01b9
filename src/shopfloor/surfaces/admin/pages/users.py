"""The accounts: who signs in with which role, for admins. Every change is a link to the
accounts tool's own form (role, disable or enable, reset the password), previewed and
confirmed like any write; the page only lists."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from shopfloor.registry.actor import Actor
from shopfloor.surfaces.admin.core import Admin
from shopfloor.surfaces.admin.forms import prefilled


def routes(admin: Admin) -> list[BaseRoute]:
    return [admin.page("/users", users)]


async def users(a: Admin, request: Request, actor: Actor) -> Response:
    found = (await a.call(actor, "list_users", {})).get("users", [])
    rows = [{**u, "links": links(a, actor, u)} for u in found]
    return a.render(request, "users.html", actor, users=rows)


def links(a: Admin, actor: Actor, user: dict[str, Any]) -> list[tuple[str, str]]:
    name = user["username"]
    out = [("Role", "set_user_role", {"username": name, "role": user["role"]}),
           ("Enable" if user["disabled"] else "Disable", "disable_user",
            {"username": name, "disabled": "false" if user["disabled"] else "true"}),
           ("Reset password", "reset_user_password", {"username": name})]
    return [(text, prefilled(tool, args)) for text, tool, args in out if a.may(actor, tool)]
