"""Signing in and out. Sign-in takes a name and password (or an access token) and sets
the session cookie; neither form carries a CSRF token before there is a session, so
the request's Origin must be this site's."""

from __future__ import annotations

from functools import partial

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from shopfloor.app.accounts import REASONS
from shopfloor.app.throttle import TooManyAttempts
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.surfaces.admin import session as sessions
from shopfloor.surfaces.admin.core import Admin, form_of
from shopfloor.surfaces.auth import client_address, throttled


def routes(admin: Admin) -> list[BaseRoute]:
    return [
        Route("/sign-in", partial(sign_in_page, admin), methods=["GET"]),
        Route("/sign-in", partial(sign_in, admin), methods=["POST"]),
        Route("/sign-out", partial(sign_out, admin), methods=["POST"]),
    ]


async def sign_in_page(a: Admin, request: Request) -> Response:
    reason = request.query_params.get("reason", "")
    return a.render(request, "sign_in.html", None, notice=REASONS.get(reason),
                    next=sessions.safe_next(request.query_params.get("next")))


async def sign_in(a: Admin, request: Request) -> Response:
    here = sessions.same_origin(request)
    if here is not True:  # no CSRF token here: the origin must say
        return a.cross_site(request, None, named=here is not None)
    form = await form_of(request)
    target = sessions.safe_next(form.get("next", ["/"])[-1])
    username = form.get("username", [""])[-1]
    try:
        if form.get("access_token", [""])[-1].strip():
            token = form["access_token"][-1].strip()
            await run_in_threadpool(a.auth.actor, f"Bearer {token}")
        else:
            token, _, _ = await run_in_threadpool(
                a.auth.sign_in, username, form.get("password", [""])[-1],
                client_address(request))
    except TooManyAttempts as exc:
        return throttled(a.render(request, "sign_in.html", None, status=429,
                                  error=exc.message, next=target, username=username), exc)
    except ShopfloorError as exc:
        return a.render(request, "sign_in.html", None, status=401, error=exc.message,
                        next=target, username=username)
    response = RedirectResponse(target, status_code=303)
    sessions.set_session(response, token, request.url.scheme == "https")
    return response


async def sign_out(a: Admin, request: Request) -> Response:
    here = sessions.same_origin(request)
    if here is not True:
        return a.cross_site(request, None, named=here is not None)
    form = await form_of(request)
    if not sessions.csrf_ok(request, a.csrf_key, form.get("csrf", [""])[-1]):
        return RedirectResponse("/", status_code=303)
    await sessions.end_session(request, a.auth)
    response = RedirectResponse("/sign-in?reason=signed_out", status_code=303)
    response.delete_cookie(sessions.COOKIE, path="/")
    return response
